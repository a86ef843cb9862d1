// Dev servers of consumer projects: a free port, and a server command run in
// its own process group until a URL answers (stopped when the test ends).
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

/** Starts `command` in `cwd` with `env`; resolves to `fetchAnswer(url)` once `url` answers; stops it when `t` ends. */
export async function serveUntil(t, { cwd, env, command, args, url, answer = (r) => r.json() }) {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  t.after(() => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  });
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(url);
      if (response.status === 200) return { value: await answer(response), output: () => output };
      output += `\n[${url} answered ${response.status}: ${await response.text()}]`;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${command} ${args.join(" ")} did not answer ${url}:\n${output}`);
}
