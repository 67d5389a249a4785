#!/usr/bin/env bash
# Runs each cargo-fuzz target of fuzz/ for SECONDS (default 600), one after another, from a seed
# corpus made from Unitxt's catalog, and prints per target the runs, the time and the crashes
# (inputs libFuzzer saved under fuzz/artifacts/TARGET/). Exits 1 when any target crashed.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Needs cargo-fuzz (installed here when missing). The toolchain here is stable: cargo-fuzz's
# sanitizer flags are nightly-only, so RUSTC_BOOTSTRAP=1 lets stable rustc accept them.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(recipe expression catalog_json format_spec sql)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
catalog="${UNITXT_RS_CATALOG:-$HOME/.cache/unitxt-rs/catalog-1.26.10}"
[ -d fuzz/corpus ] || python3 fuzz/seed_corpus.py "$catalog"
export RUSTC_BOOTSTRAP=1
crashed=0
for t in "${targets[@]}"; do
  mkdir -p "fuzz/artifacts/$t"
  before=$(ls "fuzz/artifacts/$t" | wc -l)
  log="fuzz/artifacts/$t.log"
  # -rss_limit_mb: an input that makes the process exceed 4 GiB is a finding; -timeout: one
  # input running longer than 10 s is a finding (a hang).
  cargo fuzz run --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 >"$log" 2>&1 || true
  after=$(ls "fuzz/artifacts/$t" | wc -l)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "$t: ${secs}s, ${runs} runs, $((after - before)) new crashes (fuzz/artifacts/$t, log $log)"
  [ "$after" -gt "$before" ] && crashed=1
done
exit $crashed
