// Type-checks every `@example` of the built package's .d.ts (pkg/dist/**) the
// way a reader meets it: with every public export of every subpath in scope
// (as if imported), the exports of the module it documents (a reader of an
// internal module sees its names), the example's own imports, and the chat app
// around it declared below (a store, a log, a model ...); each example is a
// module of its own (top-level await and `export` work). Prints each example
// that does not type-check with its first error, and exits 1 if any. Run after
// the build (`npm run examples` builds first; CI runs it in scripts/ci/docs).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * What an example takes as given: the chat app around it, as globals (a
 * script, not a module), so that an example may declare a name of its own
 * again (`const store = new JsonlStore(...)`).
 */
const CONTEXT = `
declare const store: import("oda-tasks").Store;
declare const log: import("oda-tasks").LogEntry[];
declare const entries: import("oda-tasks").LogEntry[];
declare const entry: import("oda-tasks").LogEntry;
declare const session: import("oda-tasks").SessionEntry;
declare const state: import("oda-tasks").ChatState;
declare const service: import("oda-tasks").SuggestionService;
declare const cache: import("oda-tasks").ChatStateCache;
declare const chatId: string;
declare const id: string;
declare const input: unknown;
declare const options: unknown;
declare const text: string;
declare const block: { type: "tool_use"; id: string; name: string; input: unknown };
declare const call: import("oda-tasks").ToolCall;
declare const card: import("oda-tasks").TodoCard;
declare const cardCount: number;
declare const n: number;
declare const view: import("oda-tasks").ChatView;
declare const list: import("oda-tasks").SuggestionList;
declare const bytes: Uint8Array;
declare const file: File; // a file a person picked
declare const dir: string;
declare const pool: import("oda-tasks/postgres").PgPool;
declare const db: import("oda-tasks/sqlite").SqliteConnection;
declare const env: { DB: import("oda-tasks/sqlite").D1Like }; // a Worker's bindings
declare const ctx: { storage: import("oda-tasks/sqlite").DurableObjectStorageLike }; // a Durable Object's state
declare const e: unknown;
declare const model: import("ai").LanguageModel;
declare const messages: import("ai").ModelMessage[];
// The SDK clients as far as the examples use them (the SDKs' own types are checked in consumer-sdks).
declare const openai: { chat: { completions: { create(body: { model: string; messages: unknown[]; tools: readonly { type: "function"; function: { name: string; description: string; parameters: object; strict: boolean } }[] }): Promise<unknown> } } };
declare const anthropic: { messages: { create(body: { model: string; max_tokens: number; messages: unknown[]; tools: readonly { name: string; description: string; input_schema: object }[] }): Promise<unknown> } };
declare function show(...values: unknown[]): void;
declare const source: EventSource; // an EventSource on a chat's events
declare const screen: import("oda-tasks/http").ChatScreen;
declare const sql: any; // a postgres.js Sql
declare const driver: any; // an internal SQLite driver adapter
declare const key: any; // an internal feed key
// node:sqlite's types come with @types/node 22+, and this repository's is 20's:
// its DatabaseSync as @types/node 22 declares it, abridged (the real one runs in consumer-sqlite).
declare module "node:sqlite" {
  type SupportedValueType = null | number | bigint | string | Uint8Array;
  export class StatementSync {
    all(...anonymousParameters: SupportedValueType[]): unknown[];
    get(...anonymousParameters: SupportedValueType[]): unknown;
    run(...anonymousParameters: SupportedValueType[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  }
  export class DatabaseSync {
    constructor(location: string, options?: { open?: boolean; readOnly?: boolean; timeout?: number });
    close(): void;
    exec(sql: string): void;
    open(): void;
    prepare(sql: string): StatementSync;
  }
}
declare function ownsChat(request: Request, chatId: string): Promise<boolean>;
declare function reply(text: string): void;
`;

/** The names a module's own top-level statements declare. */
function declaredNames(code) {
  const names = [];
  const bind = (name) => {
    if (ts.isIdentifier(name)) names.push(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of ts.createSourceFile("x.tsx", code, ts.ScriptTarget.Latest).statements) {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) bind(d.name);
    else if (statement.name && ts.isIdentifier(statement.name)) names.push(statement.name.text);
  }
  return names;
}

/** The export names of every .d.ts file in `files`, by file. */
function exportNames(files) {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
      return [file, symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []];
    }),
  );
}

/** Every public subpath's export names, each name from the first subpath that has it. */
function publicNames() {
  const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
  const typesOf = (target) => (typeof target === "string" ? target : (target.types ?? Object.values(target).map(typesOf).find(Boolean)));
  const entries = Object.entries(manifest.exports)
    .filter(([path]) => !/[*]|\.wasm$|\.json$/.test(path))
    .map(([path, target]) => [path === "." ? "oda-tasks" : `oda-tasks/${path.slice(2)}`, join(root, "pkg", typesOf(target))]);
  const names = exportNames(entries.map(([, file]) => file));
  const seen = new Set();
  return entries.map(([specifier, file]) => [specifier, names.get(file).filter((name) => !seen.has(name) && seen.add(name))]);
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
          found.push({ file: path, where: `${relative(root, path)}:${line}`, code });
        });
      }
    }
  }
  return found;
}

const names = publicNames();
const all = examples(join(root, "pkg/dist"));
const moduleNames = exportNames([...new Set(all.map((example) => example.file))]);
mkdirSync(join(root, "test-artifacts"), { recursive: true });
const dir = mkdtempSync(join(root, "test-artifacts", "examples-"));
try {
  writeFileSync(join(dir, "context.d.ts"), CONTEXT);
  const publicList = new Set(names.flatMap(([, list]) => list));
  const files = all.map((example, n) => {
    const lines = example.code.split("\n");
    const own = lines.filter((l) => l.startsWith("import "));
    const body = lines.filter((l) => !l.startsWith("import ")).join("\n");
    // What the example imports or declares itself is not imported for it.
    const ownNames = new Set(declaredNames(lines.join("\n")));
    for (const statement of ts.createSourceFile("x.ts", own.join("\n"), ts.ScriptTarget.Latest).statements) {
      const clause = statement.importClause;
      if (clause?.name) ownNames.add(clause.name.text);
      if (clause?.namedBindings) {
        if (ts.isNamespaceImport(clause.namedBindings)) ownNames.add(clause.namedBindings.name.text);
        else for (const element of clause.namedBindings.elements) ownNames.add(element.name.text);
      }
    }
    const imports = names.map(([spec, list]) => {
      const left = list.filter((x) => !ownNames.has(x));
      return left.length > 0 ? `import { ${left.join(", ")} } from "${spec}";` : "";
    });
    const moduleOwn = moduleNames.get(example.file).filter((x) => !ownNames.has(x) && !publicList.has(x));
    if (moduleOwn.length > 0)
      imports.push(`import { ${moduleOwn.join(", ")} } from "./${relative(dir, example.file).replace(/\.d\.ts$/, ".js")}";`);
    const file = `example-${n}.${/^\s*</m.test(body) ? "tsx" : "ts"}`;
    // A module of its own, as a reader would paste it (top-level await and `export` work).
    writeFileSync(join(dir, file), `${own.join("\n")}\n${imports.join("\n")}\n${body}\nexport {};\n`);
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
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["context.d.ts", ...checked] }));
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
