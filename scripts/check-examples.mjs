// Type-checks every `@example` of the built package's .d.ts (pkg/dist/**) the
// way a reader meets it: with every public export of every subpath in scope
// (as if imported), the example's own imports, and the chat app around it
// declared below (a store, a log, a model ...). Prints each example that does
// not type-check with its first error, and exits 1 if any. Run after the build.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What an example takes as given: the chat app around it. */
const CONTEXT = `
declare const store: Store;
declare const log: LogEntry[];
declare const entries: LogEntry[];
declare const entry: LogEntry;
declare const session: SessionEntry;
declare const state: ChatState;
declare const service: SuggestionService;
declare const cache: ChatStateCache;
declare const chatId: string;
declare const id: string;
declare const input: unknown;
declare const call: ToolCall;
declare const card: TodoCard;
declare const cardCount: number;
declare const n: number;
declare const view: ChatView;
declare const list: SuggestionList;
declare const bytes: Uint8Array;
declare const dir: string;
declare const pool: PgPool;
declare const e: unknown;
declare const model: import("ai").LanguageModel;
declare const messages: import("ai").ModelMessage[];
declare function show(...values: unknown[]): void;
declare function reply(text: string): void;
`;

/** Every public subpath's export names, each name from the first subpath that has it. */
function publicNames() {
  const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
  const typesOf = (target) => (typeof target === "string" ? target : (target.types ?? Object.values(target).map(typesOf).find(Boolean)));
  const entries = Object.entries(manifest.exports)
    .filter(([path]) => !/[*]|\.wasm$|\.json$/.test(path))
    .map(([path, target]) => [path === "." ? "oda-tasks" : `oda-tasks/${path.slice(2)}`, join(root, "pkg", typesOf(target))]);
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true },
  );
  const checker = program.getTypeChecker();
  const seen = new Set();
  return entries.map(([specifier, file]) => {
    const names = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file))).map((s) => s.name);
    return [specifier, names.filter((name) => !seen.has(name) && seen.add(name))];
  });
}

/** Every `@example` block of the .d.ts files under `dir`: where it is and its code. */
function examples(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...examples(path));
    else if (path.endsWith(".d.ts")) {
      const text = readFileSync(path, "utf8");
      for (const comment of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
        const lines = comment[1].split("\n").map((l) => l.replace(/^\s*\* ?/, ""));
        const line = text.slice(0, comment.index).split("\n").length;
        lines.forEach((l, i) => {
          if (!l.startsWith("@example")) return;
          const rest = lines.slice(i + 1);
          const end = rest.findIndex((x) => /^@\w/.test(x));
          const code = (end === -1 ? rest : rest.slice(0, end))
            .join("\n")
            .replace(/^```\w*$/gm, "")
            .trim();
          found.push({ where: `${relative(root, path)}:${line}`, code });
        });
      }
    }
  }
  return found;
}

const names = publicNames();
const all = examples(join(root, "pkg/dist"));
mkdirSync(join(root, "test-artifacts"), { recursive: true });
const dir = mkdtempSync(join(root, "test-artifacts", "examples-"));
try {
  const files = all.map((example, n) => {
    const lines = example.code.split("\n");
    const own = lines.filter((l) => l.startsWith("import "));
    const body = lines.filter((l) => !l.startsWith("import "));
    const ownNames = new Set(
      own
        .flatMap((l) => (l.match(/\{([^}]*)\}/)?.[1] ?? l.match(/^import (\w+)/)?.[1] ?? "").split(","))
        .map((x) =>
          x
            .trim()
            .replace(/^type /, "")
            .split(/\s+as\s+/)
            .pop(),
        ),
    );
    const imports = names.map(([spec, list]) => {
      const left = list.filter((x) => !ownNames.has(x));
      return left.length > 0 ? `import { ${left.join(", ")} } from "${spec}";` : "";
    });
    const file = `example-${n}.${/^\s*</m.test(body.join("\n")) ? "tsx" : "ts"}`;
    writeFileSync(
      join(dir, file),
      `${own.join("\n")}\n${imports.join("\n")}\n${CONTEXT}\nexport async function example() {\n${body.join("\n")}\n}\n`,
    );
    return file;
  });
  const compilerOptions = {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM", "ESNext.Disposable"],
    types: ["node"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    jsx: "react-jsx",
  };
  const firstError = new Map();
  // tsc reports no type errors while any file has a syntax error: a second run leaves those files out.
  for (let run = 0; run < 2; run++) {
    const checked = files.filter((_, n) => !firstError.has(n));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: checked }));
    const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
    for (const line of tsc.stdout.split("\n")) {
      const m = line.match(/example-(\d+)\.tsx?\(\d+,\d+\): error (TS\d+: .*)/);
      if (m && !firstError.has(Number(m[1]))) firstError.set(Number(m[1]), m[2]);
    }
    if (tsc.status !== 0 && firstError.size === 0)
      throw new Error(`check-examples: tsc failed outside the examples:\n${tsc.stdout}${tsc.stderr}`);
  }
  for (const [n, error] of [...firstError].sort((a, b) => a[0] - b[0])) console.log(`${all[n].where}: ${error}`);
  console.log(`check-examples: ${all.length - firstError.size} of ${all.length} @examples type-check; ${firstError.size} do not`);
  process.exitCode = firstError.size === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
