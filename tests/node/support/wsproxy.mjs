// A real WebSocket-to-TCP proxy (Debian's `websockify`) in front of a test
// server, for Neon's serverless driver, which speaks the PostgreSQL protocol
// over a WebSocket. 127.0.0.1 on a free port; stopped by stop().
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { acceptsSoon, freePort } from "./ports.mjs";

export const WEBSOCKIFY = "/usr/bin/websockify";

/** Whether Debian's websockify is installed (scripts/setup.sh --postgres installs it). */
export const hasWebsockify = () => existsSync(WEBSOCKIFY);

/**
 * Starts websockify from a free port to `server` (support/postgres.mjs, or
 * anything with the `port` to relay to); resolves to `{ port, stop() }`.
 *
 * @example
 * const proxy = await startWsProxy(server);
 * neonConfig.wsProxy = () => `127.0.0.1:${proxy.port}/`;
 */
export async function startWsProxy(server) {
  const port = await freePort();
  const child = spawn(WEBSOCKIFY, [`127.0.0.1:${port}`, `127.0.0.1:${server.port}`], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.on("exit", () => child.exitCode === null && child.kill("SIGKILL"));
  if (!(await acceptsSoon(port, child, 200))) {
    child.kill("SIGKILL");
    throw new Error("websockify did not start");
  }
  return {
    port,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
