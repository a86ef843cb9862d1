// A Next.js app in a consumer project (tests/node/consumers/consumer-nextjs*):
// its tsconfig, and building and serving it under Node 22, niced.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consumer, packTarball, runtimes } from "./consumer.mjs";
import { printed } from "./recipes.mjs";
import { freePort, serveUntil } from "./serve.mjs";

/** The app's dependencies, exact versions: Next.js 16 with the AI SDK UI. */
const nextDeps = {
  next: "16.4.6",
  react: "19.3.1",
  "react-dom": "19.3.1",
  ai: "7.0.173",
  "@ai-sdk/react": "4.0.177",
  typescript: "5.9.3",
  "@types/react": "19.3.0",
  "@types/node": "22.20.7",
};

/**
 * The tsconfig.json of a Next.js app (what create-next-app writes, with what `next build` and
 * `next dev` would add: neither rewrites it then, as they run side by side).
 */
const nextTsconfig = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    lib: ["dom", "dom.iterable", "ES2022"],
    strict: true,
    noEmit: true,
    module: "esnext",
    moduleResolution: "bundler",
    jsx: "react-jsx",
    esModuleInterop: true,
    skipLibCheck: true,
    isolatedModules: true,
    resolveJsonModule: true,
    incremental: true,
    allowJs: false,
    plugins: [{ name: "next" }],
  },
  include: ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts", ".next/dev/types/**/*.ts"],
  exclude: ["node_modules"],
});

/**
 * The app in `dir`, run with `node22` first on PATH (what `npx next` runs on):
 * `build(command)` and `serve(t, command)`; `once` removes the PATH folder.
 */
function nextApp(once, dir, node22) {
  const links = mkdtempSync(join(tmpdir(), "oda-bin-"));
  once.after(() => rmSync(links, { recursive: true, force: true }));
  symlinkSync(node22, join(links, "node"));
  const env = (extra = {}) => ({
    ...process.env,
    PATH: `${join(dir, "node_modules/.bin")}:${links}:${process.env.PATH}`,
    NEXT_TELEMETRY_DISABLED: "1",
    NO_COLOR: "1",
    ...extra,
  });

  /** Runs a build command (printed as the docs print it), niced; throws with its output's tail. */
  function build(command) {
    printed(command);
    try {
      return execFileSync("nice", ["-n", "10", "bash", "-c", command], {
        cwd: dir,
        env: env(),
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 900_000,
      });
    } catch (e) {
      throw new Error(`${command} failed:\n${String(e.stdout).slice(-6000)}\n${String(e.stderr).slice(-4000)}`, { cause: e });
    }
  }

  /** Starts `next start` or `next dev` with a fresh chats folder; resolves to its URL and that folder. */
  async function serve(t, command) {
    const port = await freePort();
    const chats = mkdtempSync(join(tmpdir(), "oda-next-chats-"));
    t.after(() => rmSync(chats, { recursive: true, force: true }));
    const url = `http://127.0.0.1:${port}`;
    const { output } = await serveUntil(t, {
      cwd: dir,
      env: env({ ODA_CHATS: chats }),
      command: "nice",
      args: ["-n", "10", "bash", "-c", `${command} --hostname 127.0.0.1 --port ${port}`],
      url: `${url}/api/oda/chats/chat-0`,
      ready: () => true, // any answer: it listens (the chat is the test's to check)
      answer: () => undefined,
      tries: 600,
      every: 500,
    });
    return { url, chats, output };
  }

  return { build, serve };
}

/** lib/auth.ts of the recipes' apps: the person's session (the cookie `session=person-1`) owns the chats named `chat-…`. */
export const sessionCheck = `/** The person's session (a cookie here) owns the chat. */
export async function ownsChat(request: Request, chatId: string): Promise<boolean> {
  return chatId.startsWith("chat-") && /(?:^|;\\s*)session=person-1(?:;|$)/.test(request.headers.get("cookie") ?? "");
}
`;

/**
 * A Next.js app in a fresh consumer project that installed the packed
 * tarball: `files` (path → text) beside the tsconfig and the session check
 * (lib/auth.ts: a cookie owns the chat); `once` removes it all.
 */
export function nextProject(once, files) {
  const node22 = runtimes()("node-22/bin/node");
  const { tarball } = packTarball(once);
  const dir = consumer(once, tarball, {
    deps: nextDeps,
    files: {
      ...files,
      "lib/auth.ts": sessionCheck,
      "tsconfig.json": nextTsconfig,
    },
  });
  return { dir, node22, ...nextApp(once, dir, node22) };
}
