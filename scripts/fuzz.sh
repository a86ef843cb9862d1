#!/usr/bin/env bash
# Fuzzes the core (too long for CI; see the README's "Fuzzing" section):
#   scripts/fuzz.sh <seconds> [target ...]
# runs each target (default: todo_write suggest_task replay decisions) for
# <seconds>, one after another, as one libFuzzer job on one core. The corpus
# grows in fuzz/corpus/<target> (git-ignored) from the committed seeds in
# fuzz/seeds/<target>; a crash is saved in fuzz/artifacts/<target>/, the log of
# each run is fuzz/logs/<target>/fuzz-0.log. FUZZ_SANITIZER=address builds with
# AddressSanitizer (about 13 times slower; the core has no unsafe code, so the
# default is none). FUZZ_RUNS=<n> also stops each target after n executions.
# FUZZ_TRACE_COMPARES=0 builds without comparison tracing (about twice the
# executions per second, coarser guidance; the recorded `replay` run used it).
# Exits non-zero when a target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$HOME/.cargo/bin:$PATH"

seconds=${1:-}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh <seconds> [target ...]" >&2
  exit 2
fi
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(todo_write suggest_task replay decisions)
sanitizer=${FUZZ_SANITIZER:-none}
runs_limit=()
build_flags=(--sanitizer "$sanitizer")
[ "${FUZZ_TRACE_COMPARES:-1}" != 0 ] || build_flags+=(--no-trace-compares)
[ -z "${FUZZ_RUNS:-}" ] || runs_limit=(-runs="$FUZZ_RUNS")

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: cargo fuzz needs the nightly toolchain: rustup toolchain install nightly" >&2
  exit 1
fi
if ! command -v cargo-fuzz >/dev/null; then
  echo "fuzz: installing cargo-fuzz (compiles from crates.io)" >&2
  cargo install cargo-fuzz
fi

failed=0
for target in "${targets[@]}"; do
  logs="$root/fuzz/logs/$target"
  mkdir -p "$root/fuzz/corpus/$target" "$logs"
  rm -f "$logs/fuzz-0.log"
  echo "fuzz: $target for ${seconds}s, ${build_flags[*]}" >&2
  # -jobs=1: one job, its output in fuzz-0.log of the working directory.
  (cd "$logs" && cargo +nightly fuzz run --fuzz-dir "$root/fuzz" "${build_flags[@]}" "$target" \
    "$root/fuzz/corpus/$target" "$root/fuzz/seeds/$target" -- \
    -jobs=1 -workers=1 -max_total_time="$seconds" -timeout=10 -print_final_stats=1 "${runs_limit[@]}" \
    >"$logs/run.out" 2>&1) || true
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/fuzz-0.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/fuzz-0.log" | tail -1)
  if grep -q '^Done [0-9]* runs' "$logs/fuzz-0.log"; then
    echo "fuzz: $target: $runs runs ($rate/s), no crash" >&2
  else
    failed=1
    echo "fuzz: $target: FAILED after ${runs:-?} runs; see $logs/fuzz-0.log and fuzz/artifacts/$target/" >&2
    grep -E "panicked|ERROR|Test unit written|SUMMARY" "$logs/fuzz-0.log" >&2 || tail -20 "$logs/run.out" >&2
  fi
done
exit "$failed"
