#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time (default 60 s each) and prints a
# summary (executions, crashes) per target. Installs cargo-fuzz if it is missing.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Environment:
#   CARGO_TARGET_DIR   build directory (default fuzz/target)
#   FUZZ_SANITIZER     address | none (default none: teu is safe Rust and the targets look for
#                      panics; ASan doubles the build and run time)
#   FUZZ_BUILD_FLAGS   extra cargo-fuzz build flags (default "-O -a": release with debug
#                      assertions, so integer overflow panics)
#   FUZZ_JOBS          cargo build jobs
#
# On a stable toolchain cargo-fuzz's nightly-only flags (-Z sanitizer, sancov passes) are
# allowed with RUSTC_BOOTSTRAP=1, which this script sets when rustc is not a nightly.
# A crash leaves its input in fuzz/artifacts/<target>/ and makes the script exit 1.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${1:-60}
shift || true
ALL=(dcsa_json terminal_csv terminal_jsonl email query_params infer_number)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL[@]}")

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked || exit 2
fi
if ! rustc --version | grep -q nightly; then
    export RUSTC_BOOTSTRAP=1
fi

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/fuzz/target}
FLAGS=(${FUZZ_BUILD_FLAGS:--O -a} --sanitizer "${FUZZ_SANITIZER:-none}" --target-dir "$TARGET_DIR")
[ -n "${FUZZ_JOBS:-}" ] && FLAGS+=(--jobs "$FUZZ_JOBS")

cargo fuzz build "${FLAGS[@]}" || exit 2

LOGS=$ROOT/fuzz/logs
mkdir -p "$LOGS"
status=0
for t in "${TARGETS[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    echo "== $t (${SECS}s)" >&2
    start=$(date +%s)
    # Live corpus first (libFuzzer writes new inputs there); the committed seeds are read-only.
    cargo fuzz run "${FLAGS[@]}" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$SECS" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=1 >"$LOGS/$t.log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$LOGS/$t.log" | tail -1 | grep -o '[0-9]*$')
    [ -z "$execs" ] && execs=$(grep -o 'Done [0-9]* runs' "$LOGS/$t.log" | tail -1 | grep -o '[0-9]*')
    crashes=0
    if [ $rc -ne 0 ]; then
        crashes=1
        status=1
        grep -m1 -E 'panicked|ERROR: libFuzzer|SUMMARY' "$LOGS/$t.log" >&2
        grep -E 'Test unit written to' "$LOGS/$t.log" >&2
    fi
    printf '%-16s %8s %14s %8s\n' "$t" "$secs" "${execs:-?}" "$crashes" | tee "$LOGS/$t.stat" >&2
done
printf '%-16s %8s %14s %8s\n' target seconds executions crashes
for t in "${TARGETS[@]}"; do cat "$LOGS/$t.stat"; done
exit $status
