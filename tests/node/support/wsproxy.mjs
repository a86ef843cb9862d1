// A real WebSocket-to-TCP proxy (Debian's `websockify`) in front of a test
// server, for Neon's serverless driver, which speaks the PostgreSQL protocol
// over a WebSocket. 127.0.0.1 on a free port; stopped by stop().
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createConnection, createServer } from "node:net";

export const WEBSOCKIFY = "/usr/bin/websockify";

/** Whether Debian's websockify is installed (scripts/setup.sh --postgres installs it). */
export const hasWebsockify = () => existsSync(WEBSOCKIFY);

async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.listen(0, "127.0.0.1", resolve).on("error", reject));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = createConnection(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

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
  for (let i = 0; !(await accepts(port)); i++) {
    if (i > 200 || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error("websockify did not start");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
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
