// A throwaway PostgreSQL server for the tests and the benchmark: initdb in a
// temporary directory, listening on 127.0.0.1 on a free port only, stopped
// and removed by stop() (and, as a last resort, when the process exits).
// Runs the server as the `postgres` system user when we are root (it refuses
// to run as root), as ourselves otherwise.
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { freePort } from "./ports.mjs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Where Debian's server binaries are: `PG_BIN`, else the newest /usr/lib/postgresql/<ver>/bin. */
export function serverBin() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error("no PostgreSQL server binaries (run scripts/setup.sh --postgres, or set PG_BIN)");
  return join(base, versions[0], "bin");
}

const running = new Set();
process.on("exit", () => {
  // A test process that ends without calling stop(): no server outlives it.
  for (const server of running) server.stopSync();
});

/**
 * Starts a fresh server. Resolves to `{ url, port, pool(options), restart(), stop(), kill() }`;
 * `pool()` makes a pg.Pool on it (ended by stop()). `settings` adds server settings
 * (a benchmark's experiment, e.g. `{ synchronous_commit: "off" }`).
 *
 * @example
 * const server = await startServer();
 * try { const pool = server.pool(); ... } finally { await server.stop(); }
 */
export async function startServer(settings = {}) {
  const bin = serverBin();
  const root = mkdtempSync(join(tmpdir(), "oda-pg-"));
  const data = join(root, "data");
  const log = join(root, "server.log");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
    chownSync(root, uid, gid);
  }
  const run = (tool, args) => {
    const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
    const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: root });
    if (r.status !== 0) {
      const serverLog = existsSync(log) ? readFileSync(log, "utf8") : "";
      throw new Error(`${tool} ${args.join(" ")} failed (${r.status}): ${r.stderr}${r.error ?? ""}\n${serverLog}`);
    }
    return r.stdout;
  };

  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  let port;
  const options = () =>
    `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories= -c max_connections=200 -c fsync=on${Object.entries(settings)
      .map(([k, v]) => ` -c ${k}=${v}`)
      .join("")}`;
  const start = async () => {
    for (let attempt = 1; ; attempt++) {
      port ??= await freePort();
      try {
        run("pg_ctl", ["-D", data, "-l", log, "-o", options(), "-w", "-t", "60", "start"]);
        return;
      } catch (e) {
        if (attempt >= 3) throw e;
        port = undefined; // lost the port to someone else: take another
      }
    }
  };
  await start();

  const pools = new Set();
  const server = {
    /** The temporary directory holding the data and the server log. */
    dir: root,
    get port() {
      return port;
    },
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    /**
     * A pg.Pool on the server (`extra.connectionString` for another database); errors of idle
     * clients are expected and dropped: a restart, or a `DROP DATABASE … WITH (FORCE)` right
     * after `pool.end()`, which resolves before its connections have closed.
     */
    pool(extra = {}) {
      return poolIn(pools, { connectionString: server.url, ...extra });
    },
    /** Stops (fast: open transactions are rolled back) and starts again on the same port. */
    async restart() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      await start();
    },
    /** Stops the server, leaving the data; `start()` brings it back on the same port. */
    halt() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
    },
    start,
    /** Stops the server and removes its directory. */
    async stop() {
      running.delete(server);
      await Promise.allSettled([...pools].map((p) => p.end()));
      pools.clear();
      server.stopSync();
    },
    stopSync() {
      if (existsSync(join(data, "postmaster.pid"))) {
        try {
          run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
        } catch {
          // already down
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  running.add(server);
  return server;
}

/** A pg.Pool kept in `pools` (ended with them), whose idle clients' errors are dropped. */
function poolIn(pools, options) {
  const pool = new pg.Pool(options);
  pool.on("error", () => undefined);
  pools.add(pool);
  return pool;
}

let schemas = 0;

/**
 * A fresh schema on `server` for one test, and pools whose connections use
 * it (`search_path`), so tests share one server but never each other's tables.
 */
export async function freshSchema(server) {
  const name = `t${process.pid}_${++schemas}`;
  const admin = server.pool({ max: 1 });
  await admin.query(`CREATE SCHEMA ${name}`);
  await admin.end();
  return {
    name,
    pool: (extra = {}) => server.pool({ options: `-c search_path=${name}`, ...extra }),
    url: `${server.url}?options=${encodeURIComponent(`-c search_path=${name}`)}`,
  };
}

let databases = 0;

/**
 * A database of this test file's own on the run's one PostgreSQL server
 * (`ODA_TEST_POSTGRES`, started by tests/node/support/shared-run.mjs), or on a
 * server of its own when the file runs alone. Call it once at the top of the
 * file; the database (or that server) goes when the file's tests end.
 * Resolves to `{ url, port, urlOf(database), pool(options), stop() }`: `url`
 * names the file's database (NOTIFY and LISTEN stay inside it), `urlOf` another
 * database on the same server. A test that restarts or stops its server uses
 * startServer() instead.
 *
 * @example
 * const server = await sharedPostgres();
 * const store = new PostgresStore(server.pool());
 */
export async function sharedPostgres() {
  const { after } = await import("node:test");
  const own = process.env.ODA_TEST_POSTGRES ? undefined : await startServer();
  const admin = new URL(own?.url ?? process.env.ODA_TEST_POSTGRES);
  const name = `file_${process.pid}_${++databases}`;
  const urlOf = (database) => Object.assign(new URL(admin), { pathname: `/${database}` }).href;
  const control = new pg.Client({ connectionString: admin.href });
  await control.connect();
  await control.query(`CREATE DATABASE ${name}`);
  await control.end();
  const pools = new Set();
  const server = {
    url: urlOf(name),
    port: Number(admin.port),
    urlOf,
    /** A pg.Pool on the file's database (`extra.connectionString` for another); idle clients' errors dropped, as startServer's. */
    pool(extra = {}) {
      return poolIn(pools, { connectionString: server.url, ...extra });
    },
    /** Ends the pools made here and drops the database (stops the server when it is the file's own). */
    async stop() {
      await Promise.allSettled([...pools].map((p) => p.end()));
      pools.clear();
      if (own) return own.stop();
      const last = new pg.Client({ connectionString: admin.href });
      await last.connect();
      await last.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await last.end();
    },
  };
  after(() => server.stop());
  return server;
}
