// Keeps the better-sqlite3 addon that `npm ci` compiled (about a minute, with no
// prebuilt one to download here) in a folder prebuild-install reads before it
// compiles (`npm_config_better_sqlite3_local_prebuilds`, set by scripts/setup.sh),
// so the next fresh clone on this machine installs it in a second.
//   node scripts/keep-prebuild.mjs <folder>
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const folder = process.argv[2];
const require = createRequire(join(process.cwd(), "node_modules/better-sqlite3/package.json"));
const addon = "build/Release/better_sqlite3.node";
const home = join(process.cwd(), "node_modules/better-sqlite3");
if (folder && existsSync(join(home, addon))) {
  const pkg = require("./package.json");
  const util = require("prebuild-install/util");
  // The name prebuild-install looks for: its download URL's file name, for this Node, platform and libc.
  const { localPrebuild, getDownloadUrl } = util;
  const options = { ...require("prebuild-install/rc")(pkg), pkg, "local-prebuilds": folder };
  const kept = localPrebuild(getDownloadUrl(options), options);
  if (!existsSync(kept)) {
    mkdirSync(folder, { recursive: true });
    const partial = `${kept}.${process.pid}.tmp`;
    execFileSync("tar", ["-czf", partial, "-C", home, addon]);
    renameSync(partial, kept);
    console.error(`setup: kept the compiled better-sqlite3 addon as ${kept}`);
  }
}
