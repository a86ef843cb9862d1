// The project's Python virtual environment: the oda-tasks package of python/
// (editable, with every extra), the MCP recipes' client and Pydantic AI, and
// the checks (pytest, mypy, ruff), their packages from PyPI through pip, pinned.
// It is kept in the user's cache (~/.cache/oda-tasks/python) per Python, set of
// requirements and python/pyproject.toml, so later runs and fresh clones reuse it.
// Run as a script (`bash scripts/setup.sh --python` does), it makes the venv;
// with `--bin` it prints the venv's python (for scripts/ci's Python checks).
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root, and the package's folder, python/ of this checkout. */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const PACKAGE_DIR = join(ROOT, "python/");

/**
 * The venv's pins: the MCP client and Pydantic AI (with its MCP toolset) of
 * tests/node/mcp-python.test.mjs, the frameworks of the package's extras at
 * the versions its tests run, and the checks.
 */
export const PYTHON_REQUIREMENTS = [
  "mcp==2.3.0",
  "httpx==0.29.0",
  "pydantic-ai-slim[mcp]==2.68.0",
  "langchain==1.5.2",
  "langchain-core==1.8.3",
  "langgraph==1.2.24",
  "openai-agents==0.24.0",
  "openai==3.63.0",
  "pytest==9.2.0",
  "mypy==2.4.1",
  "ruff==0.17.6",
];

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

/**
 * The venv's python for `requirements` (pip's arguments, run in the repository's
 * root: exact pins, `-e python[all]`), created and installed once per Python,
 * `requirements` and `key` (what else decides what gets installed: the checkout
 * an editable install points at, its pyproject.toml).
 */
export function pythonVenv(requirements, key = "") {
  const interpreter = python();
  const version = execFileSync(interpreter, ["-c", "import sys; print(sys.version)"], { encoding: "utf8" });
  const name = createHash("sha256")
    .update(`${version}\n${requirements.join("\n")}\n${key}`)
    .digest("hex")
    .slice(0, 16);
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "oda-tasks/python", name);
  const bin = join(dir, "bin/python");
  const done = join(dir, ".installed");
  if (existsSync(done)) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(interpreter, ["-m", "venv", dir], { stdio: "pipe" });
  execFileSync(bin, ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-q", ...requirements], {
    cwd: ROOT,
    stdio: "pipe",
  });
  writeFileSync(done, `${requirements.join("\n")}\n`);
  return bin;
}

/** The project's venv: the package (`pip install -e "python[all]"`, as docs/python.md prints it) and {@link PYTHON_REQUIREMENTS}. */
export function projectVenv() {
  const pyproject = readFileSync(join(PACKAGE_DIR, "pyproject.toml"), "utf8");
  return pythonVenv([...PYTHON_REQUIREMENTS, "-e", "python[all]"], `${PACKAGE_DIR}\n${pyproject}`);
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bin = projectVenv();
  console.log(process.argv.includes("--bin") ? bin : `setup: Python venv ${bin}`);
}
