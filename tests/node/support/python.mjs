// A Python virtual environment for the tests, its packages from PyPI through
// pip, kept in the user's cache (~/.cache/oda-tasks/python) per Python and set of
// pinned requirements, so later runs and fresh clones reuse it. Run as a script
// (`bash scripts/setup.sh --python` does), it makes the MCP tests' venv.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** What tests/node/mcp-python.test.mjs runs: the official MCP client and Pydantic AI, pinned. */
export const MCP_PYTHON_REQUIREMENTS = ["mcp==2.3.0", "pydantic-ai-slim[mcp]==2.68.0"];

/** Python 3.11 or later on PATH (`PYTHON` overrides). */
function python() {
  for (const name of [process.env.PYTHON, "python3.11", "python3"].filter(Boolean)) {
    try {
      const version = execFileSync(name, ["-c", "import sys; print(sys.version_info >= (3, 11))"], { encoding: "utf8" }).trim();
      if (version === "True") return name;
    } catch {
      // not this one
    }
  }
  throw new Error("the Python tests need Python >= 3.11 with venv (bash scripts/setup.sh --python)");
}

/** The venv's python for `requirements` (exact pins), created and installed once. */
export function pythonVenv(requirements) {
  const interpreter = python();
  const version = execFileSync(interpreter, ["-c", "import sys; print(sys.version)"], { encoding: "utf8" });
  const key = createHash("sha256")
    .update(`${version}\n${requirements.join("\n")}`)
    .digest("hex")
    .slice(0, 16);
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "oda-tasks/python", key);
  const bin = join(dir, "bin/python");
  const done = join(dir, ".installed");
  if (existsSync(done)) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(interpreter, ["-m", "venv", dir], { stdio: "pipe" });
  execFileSync(bin, ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-q", ...requirements], { stdio: "pipe" });
  writeFileSync(done, `${requirements.join("\n")}\n`);
  return bin;
}

/** Runs `python args` with `env` added; resolves to stdout, rejects with both streams on a non-zero exit. */
export function runPython(bin, args, { cwd, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`python ${args.join(" ")} exited ${code}:\n${out.slice(-3000)}\n${err.slice(-3000)}`)),
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(`setup: Python venv ${pythonVenv(MCP_PYTHON_REQUIREMENTS)}`);
