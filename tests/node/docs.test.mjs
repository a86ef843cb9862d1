// The docs check: the README and docs/ stay true to the repository. Every
// relative link resolves (a file, and a heading when it names one), every
// `npm run X`, `scripts/X` and `tests/X` they name exists, every measured figure has the
// command that produced it in its section, and the API reference builds with
// no TypeDoc warning and an example on every export (`npm run docs`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const docsDir = join(root, "docs");
const pages = [
  "README.md",
  "CHANGELOG.md",
  ...readdirSync(docsDir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const read = (page) => readFileSync(join(root, page), "utf8");
/** The page's text outside fenced code blocks, line by line (code is checked by the command rules only). */
const prose = (text) => {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
};

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}
const anchorsOf = (text) =>
  new Set(
    prose(text)
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, ""))),
  );

test("the README stays short: at most 200 lines", () => {
  const lines = read("README.md").split("\n").length;
  assert.ok(lines <= 200, `README.md has ${lines} lines`);
});

test("docs/performance.md stays a reference of today's figures: at most 250 lines", () => {
  const lines = read("docs/performance.md").split("\n").length;
  assert.ok(lines <= 250, `docs/performance.md has ${lines} lines`);
});

test("every relative link in the README and docs/ resolves, headings included", () => {
  const broken = [];
  for (const page of pages) {
    const text = read(page);
    for (const line of prose(text)) {
      for (const [, target] of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // http:, mailto: ...
        const [path, anchor] = target.split("#");
        const file = path === "" ? join(root, page) : resolve(dirname(join(root, page)), decodeURI(path));
        if (!existsSync(file)) {
          broken.push(`${page}: ${target} (no ${relative(root, file)})`);
          continue;
        }
        if (anchor && file.endsWith(".md") && !anchorsOf(readFileSync(file, "utf8")).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor})`);
        }
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("every `npm run X`, `scripts/X` and `tests/X` the README and docs/ name exists", () => {
  const scripts = JSON.parse(read("package.json")).scripts;
  const missing = [];
  for (const page of pages) {
    const text = read(page);
    for (const [, name] of text.matchAll(/\bnpm run ([a-z][\w:-]*)/g)) {
      if (!(name in scripts)) missing.push(`${page}: npm run ${name}`);
    }
    for (const [, name] of text.matchAll(/\bnpm (start|test)\b/g)) {
      if (!(name in scripts)) missing.push(`${page}: npm ${name}`);
    }
    for (const [path] of text.matchAll(/(?<![\w/.-])(?:scripts|tests)\/[\w./-]*[\w]/g)) {
      if (!existsSync(join(root, path))) missing.push(`${page}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

/**
 * A measured figure: a rate, a ratio, a measured size or a count of fuzz
 * executions (settings such as "250 ms" or "244 bytes" are rules, not measurements).
 */
const FIGURE = /\b\d[\d,.]*\s*(?:[KMG]B\/s|ops\/s|\/s\b|executions|×|B gzipped|gzipped|KB|MB|GB)(?![\w-])|\bmedian\b/;
/** A command that produces figures, in backticks. */
const COMMAND = /`(?:[A-Z_]+=\S+ )*(?:nice -n \d+ )?(?:npm (?:run|test|start)|node |cargo |bash |scripts\/|npx |hyperfine )[^`]*`/;

test("every figure the README and docs/ quote carries the command that produced it", () => {
  const bare = [];
  for (const page of pages) {
    if (page === "CHANGELOG.md") continue;
    // Sections by heading; blocks by blank lines. A figure's block, or one
    // before it in the same section, names the command.
    let commandSeen = false;
    let block = [];
    const flush = () => {
      const text = block.join("\n");
      block = [];
      if (COMMAND.test(text)) commandSeen = true;
      else if (FIGURE.test(text) && !commandSeen)
        bare.push(
          `${page}: ${text
            .split("\n")
            .find((l) => FIGURE.test(l))
            .trim()}`,
        );
    };
    for (const line of prose(read(page))) {
      if (/^#{1,6} /.test(line)) {
        flush();
        commandSeen = false;
        continue;
      }
      if (line.trim() === "") flush();
      else block.push(line);
    }
    flush();
  }
  assert.deepEqual(bare, []);
});

test("npm run docs: the API reference builds with no warning and an example on every export", () => {
  const r = spawnSync(process.execPath, ["scripts/docs.mjs"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`.slice(-6000));
  assert.ok(statSync(join(root, "docs/api/index.html")).isFile());
});

test('docs/stores.md\'s "All codes" lists exactly the StoreErrorCode union of the built typings', () => {
  const typings = readFileSync(join(root, "pkg/dist/stores/store.d.ts"), "utf8");
  const start = typings.indexOf("export type StoreErrorCode");
  const union = typings.slice(start, typings.indexOf('";', start) + 1); // the union's last member ends it
  const declared = [...union.matchAll(/"(store\/[a-z-]+)"/g)].map((m) => m[1]).sort();
  const section = read("docs/stores.md").split("## All codes")[1].split("\n## ")[0];
  const listed = [...section.matchAll(/`(store\/[a-z-]+)`/g)].map((m) => m[1]).sort();
  assert.ok(declared.length >= 10, `read ${declared.length} codes from the typings`);
  assert.deepEqual(listed, declared);
});
