// The JS of pkg/dist: each entry point the package exports (read from
// pkg/package.json, so a new subpath needs no edit here) bundled by esbuild
// from pkg/src, with the code two entries share in chunks (dist/chunks/), so a
// cold start loads a few files instead of one per module and no code ships
// twice. Run by scripts/build.mjs after tsc has written the .d.ts files.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = fileURLToPath(new URL("../pkg/", import.meta.url));
const src = join(pkg, "src");
const dist = join(pkg, "dist");

/** The main entry (`.` for browsers): every other entry that uses the core shares its modules' chunk. */
const CORE = "entrypoints/index";

/**
 * Internal modules the repository's unit tests and bench import by their
 * dist path. Each is built as an entry that only re-exports a shared chunk
 * (checked below), so its state is the package's own and no code ships twice.
 */
const TEST_ENTRIES = [
  "core/entry-text",
  "core/realm-guard",
  "stores/jsonl/lock",
  "stores/jsonl/scanner",
  "stores/jsonl/watch",
  "elements/live",
  "elements/content-schema",
  "elements/chat-src",
  "serve/node-http",
  "serve/gate",
  "serve/auth",
  "serve/jwt",
  "serve/app",
  "serve/observe",
  "serve/metrics",
  "serve/log",
];

/**
 * Browser modules the package serves itself (`oda-tasks serve`'s page script,
 * read from dist/ by the server): entries like the exported ones.
 */
const SERVED_ENTRIES = ["serve/chat-page"];

/** `./dist/x/y.js` of every export condition and bin, as `x/y`. */
function exportedEntries() {
  const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
  const found = new Set();
  const walk = (value) => {
    if (typeof value === "string") {
      const m = /^(?:\.\/)?dist\/(.+)\.js$/.exec(value);
      if (m) found.add(m[1]);
    } else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  return [...found].sort();
}

/** Where a file of pkg/src (or the pkg/ tree) is once built: `src/a/b.ts` is `dist/a/b.js`. */
const built = (file) => (file.startsWith(src + sep) ? join(dist, relative(src, file)).replace(/\.ts$/, ".js") : file);

/**
 * A path to `target` (a built location) from any file one folder below dist/,
 * where every entry and chunk sits, so it holds wherever esbuild puts the code.
 */
const fromDepthOne = (target) => `../${relative(dist, target).split(sep).join("/")}`;

/**
 * Bundles pkg/src into pkg/dist and checks the layout the relative paths rely on.
 *
 * @example
 * await bundle(); // after tsc -p pkg
 */
export async function bundle() {
  const exported = new Map([...exportedEntries(), ...SERVED_ENTRIES].map((name) => [join(src, `${name}.ts`), name]));
  const entries = new Map([...exported, ...TEST_ENTRIES.map((name) => [join(src, `${name}.ts`), name])]);
  for (const file of entries.keys())
    if (!existsSync(file)) throw new Error(`bundle: ${relative(pkg, file)} is exported (pkg/package.json) but has no source`);

  const coreFile = join(src, `${CORE}.ts`);
  if (!/^(?:\s*(?:\/\/[^\n]*|export\s[^;]*;))*\s*$/.test(readFileSync(coreFile, "utf8")))
    throw new Error(`bundle: ${relative(pkg, coreFile)} must hold only comments and re-exports (the entries that import it inline it)`);
  /** The entries that import the main entry's modules too (set after the first pass). */
  const withCore = new Set();
  const layout = {
    name: "oda-tasks-layout",
    setup(b) {
      // A test entry re-exports its module (and imports the main entry's, like the exported entries).
      b.onResolve({ filter: /^oda-test-entry:/ }, (args) => ({ path: args.path.slice(15), namespace: "oda-test-entry" }));
      b.onLoad({ filter: /.*/, namespace: "oda-test-entry" }, (args) => ({
        contents: `export * from ${JSON.stringify(args.path)};\nimport ${JSON.stringify(coreFile)};\n`,
        resolveDir: dirname(args.path),
        loader: "js",
      }));
      b.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData?.inner) return undefined;
        const target = resolve(args.resolveDir, args.path);
        // A file written into dist/ after the bundle (its .d.ts stands in the sources): wasm-inline.js.
        const stand = join(dirname(target), args.path.split("/").at(-1).replace(/\.js$/, ".d.ts"));
        if (target.startsWith(src + sep) && !existsSync(target.replace(/\.js$/, ".ts")) && existsSync(stand))
          return { path: fromDepthOne(built(target)), external: true };
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { inner: true },
        });
        if (r.errors.length > 0) return { errors: r.errors };
        // The wasm-bindgen glue and the .wasm stay files of their own in pkg/wasm/.
        if (!r.path.startsWith(src + sep)) return { path: fromDepthOne(r.path), external: true };
        // An entry imported by another entry stays an import of that file: its side effects (loading the core) stay in it.
        // The main entry has none (checked above), so an entry importing it re-exports the core chunk itself: one file fewer to load.
        if (exported.has(r.path) && r.path !== args.importer && r.path !== coreFile) {
          if (!exported.has(args.importer))
            throw new Error(`bundle: ${relative(pkg, args.importer)} imports the entry ${relative(pkg, r.path)}; only entries may`);
          const path = relative(dirname(built(args.importer)), built(r.path))
            .split(sep)
            .join("/");
          return { path: path.startsWith(".") ? path : `./${path}`, external: true };
        }
        return undefined;
      });
      // `new URL("../../x", import.meta.url)` written for its source's folder, made to hold from the bundle's.
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        const contents = text.replace(
          /new URL\((["'])(\.\.?\/[^"']*)\1, import\.meta\.url\)/g,
          (_, q, rel) =>
            `new URL(${q}${fromDepthOne(built(resolve(dirname(args.path), rel)))}${rel.endsWith("/") ? "/" : ""}${q}, import.meta.url)`,
        );
        const tail = withCore.has(args.path) ? `\nimport ${JSON.stringify(coreFile)};\n` : "";
        return { contents: contents + tail, loader: "ts" };
      });
    },
  };

  const options = {
    absWorkingDir: pkg,
    outdir: dist,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    charset: "utf8",
    // No keepNames: it wraps every function, closures made per call too, in a
    // name-setting call that costs each one a property dictionary (about 1.9 KB
    // per event stream, `npm run bench:live`); renamed exports get theirs below.
    keepNames: false,
    // Optional peers and runtime modules stay imports: the app has them, or the entry that needs them is not imported.
    packages: "external",
    external: ["node:*", "bun:*", "cloudflare:*"],
    chunkNames: "chunks/[name]-[hash]",
    metafile: true,
    logLevel: "warning",
    // pkg/package.json's sideEffects names the built files; the sources keep every import.
    ignoreAnnotations: true,
  };
  // Which entries reach the main entry's modules (a first pass, nothing written).
  const probe = await build({
    ...options,
    write: false,
    entryPoints: [...entries].map(([file, name]) => ({ in: file, out: name })),
    plugins: [layout],
  });
  const reach = (from) => {
    const seen = new Set();
    const visit = (file) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of probe.metafile.inputs[file]?.imports ?? []) if (!i.external) visit(i.path);
    };
    visit(from);
    return seen;
  };
  const core = reach(relative(pkg, coreFile));
  const usesCore = (file) => [...reach(relative(pkg, file))].some((f) => core.has(f));
  // Such an entry also imports the main entry's modules, so all of them share one chunk: a cold start
  // loads one file for the core, not one per set of entries that happen to share a module.
  for (const file of exported.keys()) if (file !== coreFile && usesCore(file)) withCore.add(file);
  // So does a module an entry imports on demand (a CLI command): otherwise the core's modules it
  // reaches would split off the others into chunks of their own.
  for (const input of Object.values(probe.metafile.inputs))
    for (const i of input.imports)
      if (i.kind === "dynamic-import" && !i.external && i.path.startsWith("src/") && usesCore(join(pkg, i.path)))
        withCore.add(join(pkg, i.path));
  const result = await build({
    ...options,
    entryPoints: [...entries].map(([file, name]) => ({ in: exported.has(file) ? file : `oda-test-entry:${file}`, out: name })),
    sourcemap: "linked",
    sourcesContent: true,
    plugins: [layout],
  });

  for (const file of Object.keys(result.metafile.outputs)) if (file.endsWith(".js")) keepExportedNames(join(pkg, file));

  // Every file that holds code sits one folder below dist/ (the relative paths above rely on it);
  // a test entry deeper down only re-exports a chunk.
  let bytes = 0;
  const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith(".js"));
  for (const [file, output] of outputs) {
    bytes += output.bytes;
    const depth = relative("dist", file).split("/").length - 1;
    const code = Object.values(output.inputs).reduce((n, i) => n + i.bytesInOutput, 0);
    if (depth !== 1 && code > 0) throw new Error(`bundle: ${file} holds code (${code} bytes) outside a folder one below dist/`);
  }
  console.error(`bundle: ${entries.size} entries and ${outputs.length - entries.size} shared chunks in pkg/dist, ${bytes} bytes of JS`);
}

/**
 * Bundling renames a top-level function or class whose name another module
 * also uses (`init2`, exported `as init`), and names a class that refers to
 * itself after its inner binding (`var ChatState = class _ChatState`); this
 * gives each such export its source name back, at the end of the file so no
 * source-map position moves.
 *
 * @example
 * keepExportedNames("pkg/dist/entrypoints/index.node.js"); // adds Object.defineProperty(init2, "name", { value: "init" })
 */
function keepExportedNames(file) {
  const text = readFileSync(file, "utf8");
  const renamed = [];
  for (const block of text.matchAll(/^export \{([^}]*)\};$/gm))
    for (const m of block[1].matchAll(/([A-Za-z_$][\w$]*)(?: as ([A-Za-z_$][\w$]*))?/g)) {
      const [, local, name = local] = m;
      const id = local.replace(/\$/g, "\\$");
      const declared = new RegExp(`^(?:(?:async )?function\\*? ${id}\\(|class ${id}\\b|var ${id} = class\\b ?([\\w$]*))`, "m").exec(text);
      if (declared === null) continue;
      const given = declared[1] || local; // the name the runtime gives it
      if (given !== name) renamed.push([local, name]);
    }
  if (renamed.length === 0) return;
  const names = renamed.map(([local, name]) => `Object.defineProperty(${local}, "name", { value: ${JSON.stringify(name)} });\n`).join("");
  const at = text.lastIndexOf("//# sourceMappingURL=");
  writeFileSync(file, at < 0 ? text + names : text.slice(0, at) + names + text.slice(at));
}
