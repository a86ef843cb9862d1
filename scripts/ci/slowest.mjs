// A node:test reporter beside the normal one (scripts/ci/node): at the end of
// the run, the 10 slowest test files (wall time of the file's process, its
// set-up at import included) and the 10 slowest top-level tests.
// ODA_TEST_TIMES=<file> also writes every file's and test's time there, as JSON.
import { writeFileSync } from "node:fs";
import { relative } from "node:path";

const SHOWN = 10;

/**
 * @example
 * // node --test --test-reporter=tap --test-reporter-destination=stdout \
 * //   --test-reporter=./scripts/ci/slowest.mjs --test-reporter-destination=stderr tests/node/*.test.mjs
 */
export default async function* slowest(source) {
  const files = [];
  const tests = [];
  for await (const event of source) {
    if (event.type !== "test:complete" || event.data.nesting !== 0) continue;
    const { name, file, details } = event.data;
    const where = file ? relative(process.cwd(), file) : "?";
    // A file's own completion is named by its path; the tests in it by their names.
    if (name === file) files.push({ what: where, ms: details.duration_ms });
    else tests.push({ what: `${where}: ${name}`, ms: details.duration_ms });
  }
  const top = (list) =>
    list
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN)
      .map(({ what, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${what}\n`)
      .join("");
  if (process.env.ODA_TEST_TIMES) writeFileSync(process.env.ODA_TEST_TIMES, `${JSON.stringify({ files, tests }, null, 1)}\n`);
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  yield `\nslowest ${SHOWN} test files (of ${files.length}, ${(total / 1000).toFixed(0)} s of files in all):\n${top(files)}`;
  yield `slowest ${SHOWN} tests (of ${tests.length}):\n${top(tests)}`;
}
