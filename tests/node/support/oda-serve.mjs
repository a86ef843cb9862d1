// `oda-tasks serve` as a child process: from the built package on a free port,
// or a printed command line in a project; its URL read from its first line, stopped by SIGTERM.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { groupAlive } from "./serve.mjs";
import { until } from "./until.mjs";

export const CLI = fileURLToPath(new URL("../../../pkg/dist/entrypoints/cli.js", import.meta.url));
export const TOKEN = "test-token-0123456789abcdef";

/**
 * Starts `oda-tasks serve` with `args` (`--port 0` added, and `--drain-ms 0`
 * unless `args` name one: a test's stop need not wait for a load balancer);
 * resolves to `{ url, child, output(), stop() }` once it listens. `stop()`
 * sends SIGTERM and resolves to the exit code.
 */
export async function startServe(args, { env = { ODA_TASKS_TOKEN: TOKEN }, t } = {}) {
  const drain = args.includes("--drain-ms") ? [] : ["--drain-ms", "0"];
  const child = spawn(process.execPath, [CLI, "serve", ...args, ...drain, "--port", "0"], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr.on("data", (c) => (output += c));
  const url = await listening(child, () => output);
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    return exited;
  };
  t?.after(stop);
  return { url, child, output: () => output, stop, exited };
}

/** Resolves to the URL on the first line `child` (a `serve`) prints on stdout; rejects if it exits before. */
function listening(child, output) {
  return new Promise((resolve, reject) => {
    let line = "";
    child.stdout.on("data", (c) => {
      line += c;
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${output()}`)));
  });
}

/**
 * Runs a printed `serve` command line as a shell does (`bash -c`, in `cwd`, with `env`
 * beside PATH and HOME), in a process group of its own; resolves to `{ url, output(), stop() }`
 * once it listens. `stop()` sends SIGTERM to the whole group, as a service manager does
 * (`npx` passes no signal on), and resolves once every process of it has exited.
 *
 * @example
 * const a = await startCommand('npx oda-tasks serve --store "$DATABASE_URL"', { cwd: dir, env: { DATABASE_URL, ODA_TASKS_TOKEN: TOKEN }, t });
 */
export async function startCommand(command, { cwd, env, t }) {
  const child = spawn("bash", ["-c", command], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stderr.on("data", (c) => (output += c));
  const url = await listening(child, () => output);
  const stop = async () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // the group has already exited
    }
    await until(`${command} to exit`, () => !groupAlive(child.pid), 15_000);
  };
  t?.after(stop);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { url, output: () => output, stop, child, exited };
}

/** Runs `oda-tasks serve` with `args` until it exits; resolves to `{ code, stdout, stderr }`. */
export function runServe(args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "serve", ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
    setTimeout(() => child.kill("SIGKILL"), 20_000).unref();
  });
}

/** `fetch` with the bearer token. */
export const withToken = (url, init = {}) =>
  fetch(url, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers ?? {}) } });
