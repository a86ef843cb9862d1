// The SQLite drivers of this runtime, each opening a real database file:
// better-sqlite3 (a native addon, built from source for the Node that runs
// npm test), node:sqlite (Node >= 22.13) and bun:sqlite (Bun).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** Driver name → `(file) => connection`, for the drivers this runtime has; `names` picks some. */
export async function sqliteDrivers(names = null) {
  const drivers = {};
  const want = (name) => names === null || names.includes(name);
  if (typeof globalThis.Bun !== "undefined") {
    if (want("bun:sqlite")) {
      const { Database } = await import("bun:sqlite");
      drivers["bun:sqlite"] = (file) => new Database(file);
    }
    return drivers;
  }
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (want("node:sqlite") && (major > 22 || (major === 22 && minor >= 13))) {
    const { DatabaseSync } = await import("node:sqlite");
    drivers["node:sqlite"] = (file) => new DatabaseSync(file);
  }
  // The addon is built for Node 20's ABI (the Node of npm test): only there.
  if (want("better-sqlite3") && major === 20) {
    const Database = require("better-sqlite3");
    drivers["better-sqlite3"] = (file) => new Database(file);
  }
  return drivers;
}

/** Opens `file` with the driver named `name`. */
export async function openWith(name, file) {
  const drivers = await sqliteDrivers([name]);
  if (!(name in drivers)) throw new Error(`no ${name} on this runtime`);
  return drivers[name](file);
}
