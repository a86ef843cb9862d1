// A fresh temp folder for one test, removed after it however it ends.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Runs `fn(dir)` in a fresh temp dir named `prefix`..., removed afterwards. */
export async function inTempDir(prefix, fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
