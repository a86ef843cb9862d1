// `npm pack` / `npm publish` in pkg/ run this first: build what the package
// ships (pkg/wasm, pkg/dist; a fresh clone has neither) and copy the
// repository's README, LICENSE and CHANGELOG in, so every tarball is complete.
// `node scripts/prepack.mjs --built` skips the build (the tests pack the package
// `npm run build` made, with `npm pack --ignore-scripts`) and keeps the rest.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// npm passes its command's flags on as npm_config_* variables; `npm pack --json`
// or `--dry-run` must not reach the `npm ci` inside setup.sh.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_(json|dry_run|pack_destination)$/i.test(k)));
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: ["ignore", process.stderr, process.stderr] });

if (!process.argv.includes("--built")) {
  run("bash", ["scripts/setup.sh"]);
  run(process.execPath, ["scripts/build.mjs"]);
  run(process.execPath, ["scripts/inline-wasm.mjs"]);
}
for (const file of ["README.md", "LICENSE", "CHANGELOG.md"])
  copyFileSync(new URL(`../${file}`, import.meta.url), new URL(`../pkg/${file}`, import.meta.url));
for (const file of [
  "dist/entrypoints/index.js",
  "dist/entrypoints/index.node.js",
  "dist/entrypoints/index.inline.js",
  "dist/entrypoints/index.workerd.js",
  "dist/entrypoints/wasm-inline.js",
  "dist/entrypoints/cli.js",
  "wasm/oda_tasks_bg.wasm",
]) {
  if (!existsSync(new URL(`../pkg/${file}`, import.meta.url))) throw new Error(`prepack: pkg/${file} was not built`);
}
