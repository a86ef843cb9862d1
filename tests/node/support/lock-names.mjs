// The JsonlStore lock's owner names as lock.ts makes them, for tests that
// plant locks: `<pid>-<host key>-<token>`, the host key hashing the host name
// and this process's PID namespace.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** This process's host key (what its own lock owners carry). */
export function hostKey() {
  let ns = "";
  try {
    ns = `\0${fs.readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    // no PID namespaces here: the host name alone
  }
  return createHash("sha256")
    .update(os.hostname() + ns)
    .digest("hex")
    .slice(0, 12);
}

/** Makes `dir` look untouched for `ms` (a dead owner's entry is old). */
export function age(file, ms = 60_000) {
  const then = new Date(Date.now() - ms);
  fs.utimesSync(file, then, then);
}

/** Puts an owner entry for `pid` into the lock directory `lock`, untouched for a minute. */
export function plantOwner(lock, pid, token = "0123456789abcdef") {
  const owner = path.join(lock, `${pid}-${hostKey()}-${token}`);
  fs.mkdirSync(owner, { recursive: true });
  age(owner);
  return owner;
}
