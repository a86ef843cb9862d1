// `oda-tasks serve` from the built package, as a child process: started on a
// free port, its URL read from its first line, stopped by SIGTERM.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../../pkg/dist/entrypoints/cli.js", import.meta.url));
export const TOKEN = "test-token-0123456789abcdef";

/**
 * Starts `oda-tasks serve` with `args` (`--port 0` added); resolves to
 * `{ url, child, output(), stop() }` once it listens. `stop()` sends SIGTERM
 * and resolves to the exit code.
 */
export async function startServe(args, { env = { ODA_TASKS_TOKEN: TOKEN }, t } = {}) {
  const child = spawn(process.execPath, [CLI, "serve", ...args, "--port", "0"], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr.on("data", (c) => (output += c));
  const url = await new Promise((resolve, reject) => {
    let line = "";
    child.stdout.on("data", (c) => {
      line += c;
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    return exited;
  };
  t?.after(stop);
  return { url, child, output: () => output, stop, exited };
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
