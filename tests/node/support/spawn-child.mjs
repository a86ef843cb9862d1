// Child processes that race: each child script prints "ready", waits for "go"
// on stdin (so every process starts at once) and prints its results as its
// last line of JSON. Used by the suites that run the service across processes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Spawns `node script ...args` (this runtime's node); `ready` resolves once it
 * printed "ready", `done` to the JSON of its last line (rejecting with its
 * stderr on a non-zero exit, the error carrying the `signal` and its `out()`);
 * `out()` is what it has printed so far.
 */
export function spawnChild(script, args) {
  const path = script instanceof URL ? fileURLToPath(script) : script;
  const proc = spawn(process.execPath, [path, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout.setEncoding("utf8");
  proc.stderr.setEncoding("utf8");
  let onReady;
  const ready = new Promise((r) => (onReady = r));
  proc.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.startsWith("ready\n")) onReady();
  });
  proc.stderr.on("data", (chunk) => (err += chunk));
  const done = new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code, signal) => {
      if (code !== 0) return reject(Object.assign(new Error(`child exited with ${code ?? signal}: ${err}`), { out: () => out, signal }));
      resolve(JSON.parse(out.split("\n").filter(Boolean).at(-1)));
    });
  });
  return { proc, out: () => out, ready: Promise.race([ready, done.then(() => assert.fail("child ended before ready"))]), done };
}

/** Runs `count` children of `script` with `args`, sends them "go" at once; resolves to all their results, in order. */
export async function raceChildren(script, args, count) {
  const children = Array.from({ length: count }, () => spawnChild(script, args));
  try {
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.proc.stdin.end("go\n");
    return (await Promise.all(children.map((c) => c.done))).flat();
  } finally {
    for (const c of children) c.proc.kill();
  }
}
