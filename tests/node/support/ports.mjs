// Loopback ports for the throwaway servers the tests start (PostgreSQL,
// PgBouncer, websockify): a free one, and waiting until one accepts.
import { createConnection, createServer } from "node:net";

/** A port nobody listens on right now (a server may still lose a race for it). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.listen(0, "127.0.0.1", resolve).on("error", reject));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts a connection on 127.0.0.1:`port` now. */
export const accepts = (port) =>
  new Promise((resolve) => {
    const socket = createConnection(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/**
 * Waits until `port` accepts, every 50 ms, at most `tries` times; false when
 * `child` exited first or it never did (the caller says what did not start).
 */
export async function acceptsSoon(port, child, tries) {
  for (let i = 0; !(await accepts(port)); i++) {
    if (i > tries || child.exitCode !== null) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
