// A throwaway PgBouncer (Debian's `pgbouncer`) in transaction mode in front
// of a test server: 127.0.0.1 on a free port, trust auth, stopped and removed
// by stop(). Runs as the `postgres` system user when we are root (PgBouncer
// refuses to run as root).
import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acceptsSoon, freePort } from "./ports.mjs";

export const PGBOUNCER = "/usr/sbin/pgbouncer";

/** Whether Debian's pgbouncer is installed (scripts/setup.sh --postgres installs it). */
export const hasPgbouncer = () => existsSync(PGBOUNCER);

/**
 * Starts PgBouncer in transaction mode in front of `server` (from support/postgres.mjs).
 * Resolves to `{ port, url(database), stop() }`.
 *
 * @example
 * const bouncer = await startPgbouncer(server);
 * try { new pg.Pool({ connectionString: bouncer.url("postgres") }); } finally { await bouncer.stop(); }
 */
export async function startPgbouncer(server) {
  const dir = mkdtempSync(join(tmpdir(), "oda-pgbouncer-"));
  const port = await freePort();
  writeFileSync(join(dir, "users.txt"), '"postgres" ""\n');
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=127.0.0.1 port=${server.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "default_pool_size = 4",
      "max_client_conn = 200",
      "ignore_startup_parameters = extra_float_digits",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
    for (const f of ["", "users.txt", "pgbouncer.ini"]) chownSync(join(dir, f), uid, gid);
  }
  const [cmd, argv] = asRoot
    ? ["runuser", ["-u", "postgres", "--", PGBOUNCER, join(dir, "pgbouncer.ini")]]
    : [PGBOUNCER, [join(dir, "pgbouncer.ini")]];
  const child = spawn(cmd, argv, { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (!(await acceptsSoon(port, child, 100))) {
    const log = existsSync(join(dir, "pgbouncer.log")) ? readFileSync(join(dir, "pgbouncer.log"), "utf8") : "";
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pgbouncer did not start: ${log}`);
  }
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", () => child.exitCode === null && child.kill("SIGKILL"));
  return { port, url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`, stop };
}
