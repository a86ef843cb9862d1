# Sourced by every step in scripts/ci/: strict mode, the repository root as the
# working directory, cargo's bin on PATH, and a last line that names the step
# when it fails (and how to run it alone).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
CI_STEP="$(basename "$0")"
trap 'status=$?; if [ "$status" -ne 0 ]; then echo "ci: step \"$CI_STEP\" failed (exit $status); run it alone: bash scripts/ci/$CI_STEP" >&2; fi' EXIT
echo "ci: $CI_STEP" >&2

# Steps after `build` test the built package; alone, they say so instead of
# failing on a missing import.
needs_build() {
  if [ ! -f pkg/dist/entrypoints/index.js ] || [ ! -f pkg/dist/entrypoints/wasm-inline.js ]; then
    echo "ci: $CI_STEP tests the built package: run bash scripts/ci/build first" >&2
    exit 1
  fi
}
