#!/usr/bin/env bash
# Builds a profile-guided (PGO) `unitxt-rs` binary for benchmarks and releases:
# target/pgo/release/unitxt-rs (and the bench-only I/O floor, target/pgo/release/examples/io_floor).
#
#   bash scripts/pgo.sh   # `python3 scripts/bench.py --pgo` runs it, then times its binary
#
# Three steps, as rustc's own PGO guide describes
# (https://doc.rust-lang.org/rustc/profile-guided-optimization.html):
#   1. an instrumented `release` build (fat LTO, see Cargo.toml; `-Cprofile-generate`, in
#      target/pgo-gen) of `unitxt-rs` and of the `io_floor` example;
#   2. training runs of that build: every recipe of tests/oracle_recipes.tsv, SST-2 train (from
#      Parquet and from the Arrow cache, on one thread and on all), MMLU `all` with demos, the
#      I/O floor (the `io_floor` example, whose loader and line writer are the library's), and
#      an evaluation with confidence intervals;
#   3. `llvm-profdata merge`, then a `release` build that uses the merged profile
#      (`-Cprofile-use`, in target/pgo).
# PGO changes how the code is laid out and inlined, never what it computes. Neither bench.py nor
# the tests (which use the debug build) compare this binary's outputs: that was checked by hand
# against the plain build's, every oracle recipe plus SST-2 train and MMLU `all` (BENCHMARKS.md).
#
# Needs rustup's `llvm-tools` component (for an `llvm-profdata` that matches rustc's LLVM); it is
# added when missing. Environment: HF_HUB_CACHE (default ../shared/hf-hub), as for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export HF_HUB_CACHE="${HF_HUB_CACHE:-$ROOT/../shared/hf-hub}"
export HF_HUB_OFFLINE=1
export UNITXT_CATALOGS="$ROOT/tests/catalog:$ROOT/scripts/bench_catalog"

SYSROOT=$(rustc --print sysroot)
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA="$SYSROOT/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
  rustup component add llvm-tools
fi

DATA="$ROOT/target/pgo-data"
WORK="$ROOT/target/pgo-work"
rm -rf "$DATA" "$WORK"
mkdir -p "$DATA" "$WORK"

echo "pgo: instrumented build (target/pgo-gen)" >&2
RUSTFLAGS="-Cprofile-generate=$DATA" CARGO_TARGET_DIR="$ROOT/target/pgo-gen" \
  cargo build --quiet --release -p unitxt-cli --bin unitxt-rs --example io_floor
GEN="$ROOT/target/pgo-gen/release/unitxt-rs"
GEN_FLOOR="$ROOT/target/pgo-gen/release/examples/io_floor"

echo "pgo: training runs" >&2
run() { "$GEN" "$@" >/dev/null 2>>"$WORK/train.log"; }
# Some of these recipes are expected to fail (the oracle tests compare the errors too).
grep -v '^#' tests/oracle_recipes.tsv | while IFS=$'\t' read -r split recipe _; do
  [ -z "$recipe" ] || run prepare "$recipe" --split "$split" --output "$WORK/out.jsonl" || true
done
SST2="card=cards.sst2,template=templates.classification.multi_class.instruction"
# The Arrow cache off, then a fresh cache directory twice (filled, then read).
for cache in off "$WORK/arrow" "$WORK/arrow"; do
  UNITXT_RS_ARROW_CACHE=$cache run prepare "$SST2" --split train --output /dev/null
  UNITXT_RS_ARROW_CACHE=$cache RAYON_NUM_THREADS=1 run prepare "$SST2" --split train --output /dev/null
done
run prepare "card=cards.mmlu.all,template=templates.qa.multiple_choice.with_topic.lm_eval_harness,num_demos=5,demos_pool_size=20" \
  --split test --output /dev/null
for pq in "$HF_HUB_CACHE"/datasets--stanfordnlp--sst2/snapshots/*/*/train-*.parquet; do
  UNITXT_RS_ARROW_CACHE=off "$GEN_FLOOR" "$pq" --output /dev/null 2>>"$WORK/train.log"
done
# An evaluation: 2,000 SST-2 instances, every third prediction the other class.
run prepare "$SST2,metrics=[metrics.accuracy,metrics.f1_micro,metrics.f1_macro],max_train_instances=2000" \
  --split train --output "$WORK/eval.jsonl"
python3 - "$WORK/eval.jsonl" "$WORK/predictions.json" <<'EOF'
import json, sys
preds = []
for i, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    t = json.loads(line)["target"]
    preds.append(t if i % 3 else ("positive" if t == "negative" else "negative"))
json.dump(preds, open(sys.argv[2], "w", encoding="utf-8"))
EOF
run evaluate --data "$WORK/eval.jsonl" --predictions "$WORK/predictions.json" --output "$WORK/scores.json"

echo "pgo: merging the profile" >&2
"$PROFDATA" merge -o "$WORK/merged.profdata" "$DATA"

echo "pgo: optimized build (target/pgo)" >&2
RUSTFLAGS="-Cprofile-use=$WORK/merged.profdata" CARGO_TARGET_DIR="$ROOT/target/pgo" \
  cargo build --quiet --release -p unitxt-cli --bin unitxt-rs --example io_floor
echo "pgo: built target/pgo/release/unitxt-rs" >&2
