// Servers of consumer projects: a free port, and a server command run in its
// own process group until a URL answers (stopped when the test ends).
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether a process of the process group `pid` leads (a child spawned `detached`) is still running.
 *
 * @example
 * await until("the server's processes to exit", () => !groupAlive(child.pid));
 */
export function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `command` in `cwd` with `env`; once `url` answers as `ready` says (by
 * default a 200), resolves to `{ value: answer(response), output }`, its
 * output so far; polls every `every` ms, `tries` times; stops it when `t` ends, and waits until it exited.
 */
export async function serveUntil(
  t,
  { cwd, env, command, args, url, answer = (r) => r.json(), ready = (r) => r.status === 200, tries = 240, every = 250 },
) {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  // Stopped, and waited for until no process of its group is left (a dev server's workers write
  // their cache as they exit, which would race the folder's removal); killed after 30 s.
  t.after(async () => {
    const alive = () => groupAlive(child.pid);
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    for (let waited = 0; alive() && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  });
  for (let i = 0; i < tries; i++) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(url);
      if (ready(response)) return { value: await answer(response), output: () => output };
      output += `\n[${url} answered ${response.status}: ${await response.text()}]`;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`${command} ${args.join(" ")} did not answer ${url}:\n${output}`);
}
