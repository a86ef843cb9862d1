#!/usr/bin/env bash
# Installs what the build and tests need and is not there yet; quick when
# everything is. Used by `npm run build`, `npm start` and `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# Must equal the `wasm-bindgen` pin in Cargo.toml: the CLI refuses a module
# built by another version.
WASM_BINDGEN=0.2.130

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32-unknown-unknown target" >&2
  rustup target add wasm32-unknown-unknown
fi
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WASM_BINDGEN"; then
  echo "setup: installing wasm-bindgen-cli $WASM_BINDGEN (compiles from source, about 5 minutes)" >&2
  # No --locked: its lock file pins crates this registry does not serve.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN" --force
fi
# What the tests need beyond the build (`npm test` passes both flags), from
# Debian's packages: Chromium for the browser tests (playwright-core never
# downloads a browser of its own) and the PostgreSQL server binaries for the
# PostgresStore tests, which initdb and run a throwaway server of their own
# (and a throwaway PgBouncer in transaction mode, and websockify for Neon's
# WebSocket driver, in front of it).
APT=()
for flag in "$@"; do
  case "$flag" in
    --browser) [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || APT+=(chromium) ;;
    --postgres)
      compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || [ -n "${PG_BIN:-}" ] || APT+=(postgresql)
      [ -x /usr/sbin/pgbouncer ] || APT+=(pgbouncer)
      [ -x /usr/bin/websockify ] || APT+=(websockify)
      ;;
    # Python >= 3.11 with venv for the Python package (python/) and the MCP tests'
    # Python agents, whose venv installs its packages from PyPI with pip.
    --python)
      "${PYTHON:-python3}" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || APT+=(python3 python3-venv)
      ;;
  esac
done
if [ ${#APT[@]} -gt 0 ]; then
  echo "setup: installing Debian's ${APT[*]} for the tests" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT[@]}" >/dev/null
fi
# better-sqlite3 has no prebuilt addon to download here and compiles one (about a
# minute); prebuild-install first looks in this folder, where the first install keeps it.
PREBUILDS="${XDG_CACHE_HOME:-$HOME/.cache}/oda-tasks/prebuilds"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies" >&2
  npm_config_better_sqlite3_local_prebuilds="$PREBUILDS" npm ci --no-audit --no-fund --loglevel=error
fi
node scripts/keep-prebuild.mjs "$PREBUILDS"
# The project's Python venv (the package of python/, the frameworks and the checks,
# from PyPI), so the test steps install nothing.
for flag in "$@"; do
  if [ "$flag" = --python ]; then node tests/node/support/python.mjs >&2; fi
done
