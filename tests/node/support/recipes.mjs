// The recipes of docs/integration.md, docs/stores.md, docs/serve.md and docs/operations.md, as the
// tests run them: every code block marked `<!-- file: NAME -->` is a file of a
// consumer project, and every command a test runs must be printed there as it runs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./browser.mjs";

const pages = ["docs/integration.md", "docs/stores.md", "docs/serve.md", "docs/operations.md"];
const doc = pages.map((page) => readFileSync(join(root, page), "utf8")).join("\n");
const onPages = pages.join(", ");

/** The files the pages print: name → text. */
export const recipeFiles = Object.fromEntries([...doc.matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]));

/** The named files, each checked to be on a page. */
export function recipes(...names) {
  return Object.fromEntries(
    names.map((name) => {
      assert.ok(name in recipeFiles, `${onPages}: one prints ${name}`);
      return [name, recipeFiles[name]];
    }),
  );
}

/** `command`, checked to be printed on a page as a line of a ```sh block. */
export function printed(command) {
  const lines = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split("\n"));
  assert.ok(lines.includes(command), `${onPages}: one prints the command: ${command}`);
  return command;
}
