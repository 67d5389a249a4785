"""Times Unitxt 1.26.10 and unitxt-rs side by side on the same machine, in one run; or, with a
baseline, two unitxt-rs binaries (an earlier revision's and the current one) side by side.

Usage:
  python3 scripts/bench.py [--quick] [--python PY] [--bin PATH | --pgo] [--cases evaluate,prepare,floor,...] [--write-md]
  python3 scripts/bench.py (--baseline-rev REV | --baseline-bin PATH) [--bin PATH | --pgo] [--quick]
                           [--cases ...] [--recipes N] [--repeat N] [--write-md]

The binary timed: without --bin, the script builds `unitxt-rs` and the bench-only `io_floor`
example with Cargo's `release` profile (fat LTO, one codegen unit: the profile of the binaries
users install, see Cargo.toml) and times <target dir>/release/unitxt-rs. --pgo first builds the
profile-guided binaries with scripts/pgo.sh (about 15 minutes on 2 cores) and times
target/pgo/release/unitxt-rs. The I/O floor is the `io_floor` example found next to the binary
(<dir>/examples/io_floor); a binary built before the floor left the CLI runs it as its hidden
`io-floor` subcommand instead.

Cases (each tool runs as its own subprocess, one at a time; peak RSS is that process's
`ru_maxrss` from `os.wait4`):
- evaluate: 10,000 SST-2 train instances (1,000 with --quick) scored with accuracy, f1_micro
  and f1_macro with confidence intervals. The instances are prepared once by unitxt-rs (not
  timed); both tools get the same instances and the same noisy predictions. Unitxt runs
  `evaluate(predictions, data=instances)` in-process, once (it takes minutes); unitxt-rs runs
  `evaluate --data --predictions`, the median of five runs (a fraction of a second each, where
  one run can be off by half on this shared VM).
- prepare: the seven acceptance recipes (the first seven of tests/oracle_recipes.tsv), SST-2
  train without demos, and MMLU `all` with 5 demos (a bench-only card in scripts/bench_catalog).
  Unitxt: `load_dataset(recipe, split=..., use_cache=False)`; unitxt-rs: `prepare RECIPE --split
  ... --output /dev/null`. The seven recipes (milliseconds for us, about a second for Unitxt)
  run in three rounds of one Unitxt run and four (then three) of ours, and each side's median
  is compared: Unitxt's median of three, ours of eleven. The two large ones: Unitxt once, ours
  the median of five.
- floor: the SST-2 train parquet read through our loader and written as JSON Lines with no
  processing (the `io_floor` example), with the Arrow cache off, compared per instance with an
  SST-2 train prepare with the cache off too. The two run in seven alternating pairs (floor,
  prepare, floor, prepare, ...), so that both sides of a pair see the same phase of a machine
  whose speed drifts from minute to minute; the multiple is the median of the seven pairs'
  multiples (the medians of each side are in the table). The same pair from the cache is
  reported beside it (medians of five runs each).
- onecore: SST-2 train prepared by unitxt-rs on one thread (`RAYON_NUM_THREADS=1`, median of
  five runs), against Unitxt's time from the prepare case.
- memory: unitxt-rs's peak RSS preparing 10k, 100k and 1M instances without demos, from local
  parquet files made by repeating SST-2 train rows (a card without SST-2's split mixing,
  written into the work folder); the growth from 10k to 1M is reported.
- startup: the wall time of `prepare` resolving a recipe in the full installed catalog and
  writing its first instance (`max_test_instances=1`), best of 5.
- infer (not in the default cases): scripts/bench_infer.py, inference against a local server
  that answers after 200 ms (see its docstring).
- judge (not in the default cases): scripts/bench_judge.py, Unitxt's catalog direct judge on
  1,000 instances (100 with --quick) against a local server that answers after 200 ms, at the
  judge's defaults and with more requests in flight (see its docstring).

Both tools read through a local Arrow cache of the decoded data: Unitxt through the `datasets`
library's (under ~/.cache/huggingface/datasets, filled by earlier runs), unitxt-rs through its own
(~/.cache/unitxt-rs/arrow, filled by its first run of a recipe, one of the runs a median is taken
over). The floor reads Parquet with the cache off, see above.

Unitxt's time is measured inside its process around the call (interpreter start and
`import unitxt` excluded; the import time is printed separately); unitxt-rs's time is the whole
process's wall time. Results: a table on stdout and target/bench/results.md; with --write-md
(or its old name --readme) the block between BENCHMARKS.md's `<!-- bench results: begin -->` and
`<!-- bench results: end -->` markers is replaced by the same table, its notes and each target of
the performance issue with the measured figure against it.

Baseline mode (--baseline-rev REV or --baseline-bin PATH) runs no Unitxt. It times the same
unitxt-rs cases with the baseline binary ("old") and the current one ("new"): for each case, one
untimed run of each side (whose outputs are compared byte for byte, except the memory cases'),
then --repeat rounds (default: 11 for the seven recipes, 7 for the floor, 5 for the rest, 3 for
memory) of one run of each, the side that goes first alternating from round to round. It reports
per case each side's median wall time and peak RSS, and new/old: the median of the rounds'
ratios (each round's two runs see the same phase of the machine) and the ratio of the medians;
a case whose new/old is above 1.10 is flagged. Each side keeps its own Arrow cache under the
work folder, so that neither reads entries the other wrote. --baseline-rev builds `unitxt-rs`
(and `io_floor` where the revision has it) at REV in a temporary `git worktree`, with its own
target dir (<target dir>/bench-baseline/<commit>, reused by later runs) and the benchmark
profile of that revision (`release` when it has fat LTO, else `release-lto`; --baseline-profile
overrides it); with --pgo, both sides are built profile-guided by their own scripts/pgo.sh.
--recipes N keeps the first N of the seven recipes. Results: target/bench/baseline.md and, with
--write-md, BENCHMARKS.md's `<!-- baseline results: begin/end -->` block.
"""
import argparse
import json
import os
import filecmp
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

METRICS = "[metrics.accuracy,metrics.f1_micro,metrics.f1_macro]"
SST2_TEMPLATE = "templates.classification.multi_class.instruction"
EVAL_RECIPE = f"card=cards.sst2,template={SST2_TEMPLATE},metrics={METRICS},max_train_instances={{n}}"
SST2_TRAIN = f"card=cards.sst2,template={SST2_TEMPLATE}"
MMLU_ALL = (
    "card=cards.mmlu.all,template=templates.qa.multiple_choice.with_topic.lm_eval_harness,"
    "num_demos=5,demos_pool_size=20"
)


# A card reading a local parquet file with SST-2's columns, without SST-2's split mixing (which
# collects its source split); its loader is filled in per size.
LOCAL_CARD = {
    "__type__": "task_card",
    "preprocess_steps": [
        {"__type__": "map_instance_values", "mappers": {"label": {"0": "negative", "1": "positive"}}},
        {"__type__": "rename", "field": "sentence", "to_field": "text"},
        {"__type__": "set", "fields": {"text_type": "sentence", "type_of_class": "sentiment",
                                       "classes": ["negative", "positive"]}},
    ],
    "task": "tasks.classification.multi_class",
    "templates": "templates.classification.multi_class.all",
}

# Writes argv[2] with argv[3] rows: the rows of parquet file argv[1], repeated.
REPEAT_PARQUET = """
import sys, pyarrow as pa, pyarrow.parquet as pq
src, dest, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = pq.read_table(src)
parts, have = [], 0
while have < n:
    k = min(t.num_rows, n - have)
    parts.append(t.slice(0, k))
    have += k
pq.write_table(pa.concat_tables(parts), dest, row_group_size=8192)
"""


# ---------------------------------------------------------------- Unitxt worker (venv python)

def worker(argv):
    """Runs one Unitxt operation and prints {"n", "seconds", "import_seconds"} as JSON."""
    # Offline, Unitxt retries the Hub's split listing with back-off sleeps (seconds per card);
    # those waits are skipped (and counted) so that only its work is timed.
    skipped = [0.0]
    real_sleep = time.sleep

    def no_sleep(s):
        skipped[0] += s
        real_sleep(0)

    time.sleep = no_sleep
    t0 = time.perf_counter()
    import unitxt  # noqa: F401
    from unitxt import evaluate, load_dataset

    t1 = time.perf_counter()
    if argv[0] == "prepare":
        recipe, split = argv[1], argv[2]
        start, cpu0 = time.perf_counter(), time.process_time()
        ds = load_dataset(recipe, split=split, use_cache=False)
        n = len(ds)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
        out = {"n": n}
    else:
        data_path, pred_path = argv[1], argv[2]
        with open(data_path, encoding="utf-8") as f:
            data = [json.loads(line) for line in f if line.strip()]
        with open(pred_path, encoding="utf-8") as f:
            predictions = json.load(f)
        start, cpu0 = time.perf_counter(), time.process_time()
        results = evaluate(predictions=predictions, data=data)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
        g = results.global_scores
        out = {"n": len(data), "global": {k: v for k, v in g.items() if isinstance(v, (int, float))}}
    out.update(seconds=seconds, cpu=cpu, import_seconds=t1 - t0, skipped_sleep=skipped[0])
    print(json.dumps(out))


# ---------------------------------------------------------------- driver

class RusagePopen(subprocess.Popen):
    """Popen that reaps its child with os.wait4, keeping the child's own peak RSS (MiB)."""

    bench_rss = float("nan")
    bench_cpu = float("nan")

    def _try_wait(self, wait_flags):
        try:
            pid, sts, ru = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return (self.pid, 0)
        if pid == self.pid:
            self.bench_rss = ru.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux
            self.bench_cpu = ru.ru_utime + ru.ru_stime
        return (pid, sts)


def run(cmd, env):
    """Runs `cmd`; returns (wall seconds, peak RSS in MiB, CPU seconds, stdout, stderr)."""
    start = time.perf_counter()
    p = RusagePopen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed ({p.returncode}):\n{err[-3000:]}")
    return wall, p.bench_rss, p.bench_cpu, out, err


def unitxt(py, env, *args):
    _, rss, _, out, _ = run([py, os.path.abspath(__file__), "--unitxt-worker", *args], env)
    res = json.loads(out.strip().splitlines()[-1])
    res["rss"] = rss
    return res


def median_run(runs):
    """The run (as `run` returns it) with the median wall time, as a dict, with every run
    under `runs` (sorted by wall time) and every run's peak RSS under `rss_all` (sorted)."""
    runs = sorted(runs, key=lambda r: r[0])
    as_dict = [{"seconds": w, "cpu": c, "rss": m, "out": o, "err": e} for w, m, c, o, e in runs]
    med = dict(as_dict[len(runs) // 2])
    med.update(rss_all=sorted(r[1] for r in runs), runs=as_dict)
    return med


def rust(binary, env, *args, repeat=1):
    """Runs unitxt-rs `repeat` times; keeps the run with the median wall time (see
    `median_run`)."""
    return median_run([run([binary, *args], env) for _ in range(repeat)])


def rust_paired(binary, env, a_args, b_args, repeat, a_binary=None):
    """Runs two unitxt-rs commands alternately `repeat` times (a, b, a, b, ...); the first with
    `a_binary` when given (the I/O floor). Returns each side as `rust` does (the run with the
    median wall time, with every run under `runs`), and the runs as pairs in the order they ran."""
    pairs = [(run([a_binary or binary, *a_args], env), run([binary, *b_args], env)) for _ in range(repeat)]
    a_side, b_side = (median_run([p[k] for p in pairs]) for k in range(2))
    return a_side, b_side, [(a[0], b[0]) for a, b in pairs]


def median_by_seconds(results):
    """The result with the median wall time of several runs (the upper one of an even count)."""
    return sorted(results, key=lambda r: r["seconds"])[len(results) // 2]


def noisy(i, target, classes):
    """Deterministic prediction for instance `i`: mostly right, some wrong, some messy."""
    kind = i % 10
    if kind in (3, 7) and len(classes) > 1:
        others = [c for c in classes if c != target]
        return others[i % len(others)]
    if kind == 5:
        return "  " + target + " \n"
    if kind == 9:
        return ""
    return target


def first_recipes(n):
    out = []
    for line in open(os.path.join(ROOT, "tests", "oracle_recipes.tsv"), encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        split, recipe = line.rstrip("\n").split("\t", 1)
        out.append((split, recipe))
        if len(out) == n:
            break
    return out


MD_PATH = os.path.join(ROOT, "BENCHMARKS.md")
RESULTS_BLOCK = ("<!-- bench results: begin -->", "<!-- bench results: end -->")
BASELINE_BLOCK = ("<!-- baseline results: begin -->", "<!-- baseline results: end -->")


def replace_md_block(path, markers, lines, command):
    """Puts `lines` between the two `markers` of the Markdown file `path` (the markers kept),
    leaving the rest unchanged; `command` is the bench command that made them."""
    begin, end = markers
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        sys.exit(f"{path}: no {begin} ... {end} block to replace")
    body = "\n".join(["", f"(generated by `{command}`)", ""] + lines).rstrip() + "\n"
    text = text[: start + len(begin)] + body + text[stop:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def cargo_target_dir():
    """Cargo's target directory for this workspace (CARGO_TARGET_DIR and Cargo's config respected)."""
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["target_directory"]


def build_current():
    """Builds `unitxt-rs` and the `io_floor` example with the `release` profile; returns the
    binary's path."""
    print("building unitxt-rs and io_floor (release profile)", file=sys.stderr, flush=True)
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "unitxt-cli", "--bin", "unitxt-rs",
                    "--example", "io_floor"], cwd=ROOT, check=True)
    return os.path.join(cargo_target_dir(), "release", "unitxt-rs")


def floor_command(binary):
    """The I/O floor's command for a `unitxt-rs` binary: the `io_floor` example built beside it,
    or, for a binary of a revision from before the floor left the CLI, its `io-floor` subcommand."""
    example = os.path.join(os.path.dirname(os.path.abspath(binary)), "examples", "io_floor")
    return [example] if os.path.exists(example) else [binary, "io-floor"]


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def bench_profile(cargo_toml):
    """The benchmark profile of a revision, from its root Cargo.toml: `release` when that has fat
    LTO, else `release-lto` when defined (the benchmark profile before `release` had LTO)."""
    try:
        import tomllib

        profiles = tomllib.loads(cargo_toml).get("profile", {})
    except Exception:  # no tomllib (Python < 3.11) or an unreadable file: look for the section
        return "release-lto" if "[profile.release-lto]" in cargo_toml else "release"
    if profiles.get("release", {}).get("lto") in ("fat", True):
        return "release"
    return "release-lto" if "release-lto" in profiles else "release"


def build_baseline(rev, profile, pgo, env):
    """Builds `unitxt-rs` (and the `io_floor` example where it exists) at git revision `rev` in a
    temporary worktree, into <target dir>/bench-baseline/<commit> (kept: a later run with the same
    commit and profile reuses it). Returns (binary path, commit, profile)."""
    sha = git("rev-parse", "--verify", rev + "^{commit}")
    profile = profile or bench_profile(git("show", f"{sha}:Cargo.toml"))
    has_floor = bool(git("ls-tree", sha, "crates/unitxt-cli/examples/io_floor.rs"))
    base = os.path.join(cargo_target_dir(), "bench-baseline", sha[:12])
    out_dir = os.path.join(base, "pgo") if pgo else os.path.join(base, "target", profile)
    binary = os.path.join(out_dir, "unitxt-rs")
    floor = os.path.join(out_dir, "examples", "io_floor")
    if os.path.exists(binary) and (os.path.exists(floor) or not has_floor):
        print(f"baseline: reusing {binary}", file=sys.stderr, flush=True)
        return binary, sha, "pgo" if pgo else profile
    tmp = tempfile.mkdtemp(prefix="unitxt-rs-baseline-")
    wt = os.path.join(tmp, "src")
    subprocess.run(["git", "worktree", "add", "--quiet", "--detach", wt, sha], cwd=ROOT, check=True)
    try:
        benv = {k: v for k, v in env.items() if k != "CARGO_TARGET_DIR"}
        if pgo:
            print(f"baseline: scripts/pgo.sh at {sha[:12]}", file=sys.stderr, flush=True)
            subprocess.run(["bash", "scripts/pgo.sh"], cwd=wt, env=benv, check=True)
            built = [b for b in (os.path.join(wt, "target", "pgo", d, "unitxt-rs") for d in ("release", "release-lto"))
                     if os.path.exists(b)]
            if not built:
                sys.exit(f"baseline: scripts/pgo.sh at {sha[:12]} left no target/pgo/*/unitxt-rs")
            os.makedirs(os.path.join(out_dir, "examples"), exist_ok=True)
            shutil.copy2(built[0], binary)
            src_floor = os.path.join(os.path.dirname(built[0]), "examples", "io_floor")
            if os.path.exists(src_floor):
                shutil.copy2(src_floor, floor)
        else:
            print(f"baseline: building {sha[:12]} with profile {profile} into {base}", file=sys.stderr, flush=True)
            cmd = ["cargo", "build", "--quiet", "--profile", profile, "-p", "unitxt-cli", "--bin", "unitxt-rs"]
            cmd += ["--example", "io_floor"] if has_floor else []
            subprocess.run(cmd, cwd=wt, env=dict(benv, CARGO_TARGET_DIR=os.path.join(base, "target")), check=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", wt], cwd=ROOT)
        shutil.rmtree(tmp, ignore_errors=True)
    return binary, sha, "pgo" if pgo else profile


def memory_gib():
    """The machine's total memory in GiB (from /proc/meminfo; '?' elsewhere)."""
    try:
        with open("/proc/meminfo") as f:
            kib = int(next(l for l in f if l.startswith("MemTotal:")).split()[1])
        return f"{kib / 2**20:.0f}"
    except (OSError, StopIteration, ValueError):
        return "?"


def commit():
    """The checked-out commit (short hash, `+dirty` with uncommitted changes to tracked files)."""
    try:
        h = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", ".", ":!BENCHMARKS.md"], cwd=ROOT).returncode != 0
        return h + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def short(recipe, width=60):
    r = recipe.replace("templates.", "").replace("cards.", "")
    return r if len(r) <= width else r[: width - 1] + "…"


# ---------------------------------------------------------------- baseline mode

class Side:
    """One of the two binaries of baseline mode: its label, `unitxt-rs` path, I/O floor command
    and Arrow cache directory."""

    def __init__(self, label, binary, work):
        self.label, self.bin, self.floor = label, binary, floor_command(binary)
        self.cache = os.path.join(work, f"arrow-{label}")


def baseline_cases(a, cases, py, env, hub, work, new):
    """The cases of baseline mode, as dicts: `name`; `cmd(side, out)`, the command line writing
    its output to `out`; `env` (extra variables); `repeat`; `out`: whether the timed runs write to
    a file of their own rather than /dev/null (evaluate's output is written through a temporary
    file); `check`: whether the two sides' outputs are compared; `n`: the instance count when
    known beforehand."""
    out = []

    def case(name, cmd, repeat, extra=None, check=True, n=None, own_out=False):
        out.append(dict(name=name, cmd=cmd, env=extra or {}, repeat=a.repeat or repeat, check=check, n=n,
                        own_out=own_out))

    def prepare(recipe, split, *more):
        return lambda s, o: [s.bin, "prepare", recipe, "--split", split, "--output", o, *more]

    sst2 = SST2_TRAIN + (",max_train_instances=5000" if a.quick else "")
    if "evaluate" in cases:
        n = a.eval_instances or (1000 if a.quick else 10000)
        data = os.path.join(work, f"eval-{n}.jsonl")
        run([new.bin, "prepare", EVAL_RECIPE.format(n=n), "--split", "train", "--output", data], env)
        with open(data, encoding="utf-8") as f:
            preds = [noisy(i, inst["target"], json.loads(inst["task_data"]).get("classes", []))
                     for i, inst in enumerate(map(json.loads, f))]
        pred_path = os.path.join(work, f"eval-{n}.predictions.json")
        with open(pred_path, "w", encoding="utf-8") as f:
            json.dump(preds, f)
        case("evaluate sst2 train, 3 metrics + CIs",
             lambda s, o: [s.bin, "evaluate", "--data", data, "--predictions", pred_path, "--output", o], 5, n=n,
             own_out=True)
    if "prepare" in cases:
        for split, recipe in first_recipes(a.recipes):
            case(f"prepare {split} {short(recipe)}", prepare(recipe, split), 11)
        case(f"prepare train {short(sst2)}", prepare(sst2, "train"), 5)
        mmlu = MMLU_ALL + (",max_test_instances=2000" if a.quick else "")
        case(f"prepare test {short(mmlu)}", prepare(mmlu, "test"), 5)
    if "floor" in cases:
        pq = sst2_train_parquet(hub)[:1]
        off = {"UNITXT_RS_ARROW_CACHE": "off"}
        case("floor: sst2 train parquet -> JSON Lines, no processing (Arrow cache off)",
             lambda s, o: [*s.floor, *pq, "--output", o], 7, off)
        case("floor: the same from the Arrow cache", lambda s, o: [*s.floor, *pq, "--output", o], 5)
        case("prepare train sst2, from parquet (Arrow cache off)", prepare(sst2, "train"), 7, off)
    if "onecore" in cases:
        case("prepare train sst2, one thread (RAYON_NUM_THREADS=1)", prepare(sst2, "train"), 5,
             {"RAYON_NUM_THREADS": "1"})
    if "memory" in cases:
        for n in [10_000, 100_000] if a.quick else [10_000, 100_000, 1_000_000]:
            recipe, cat = memory_recipe(py, hub, work, n)
            case(f"memory: prepare {n} repeated sst2 rows, no demos", prepare(recipe, "train", "--catalog", cat), 3,
                 check=False, n=n)
    if "startup" in cases:
        recipe = "card=cards.wnli,template=templates.classification.multi_class.relation.default,max_test_instances=1"
        case("startup: wnli, one instance, the installed catalog", prepare(recipe, "test"), 5)
    return out


def run_baseline(a, cases, py, env, hub, work, old_bin, old_rev, old_profile):
    """Baseline mode (see the module's doc): every case with the old and the new binary in
    alternating rounds; writes target/bench/baseline.md and, with --write-md, BENCHMARKS.md's
    baseline block."""
    bdir = os.path.join(work, "baseline")
    os.makedirs(bdir, exist_ok=True)
    old, new = Side("old", old_bin, work), Side("new", a.bin, work)
    rows = []
    print(f"{'case':70} {'n':>7} {'old s':>9} {'new s':>9} {'new/old':>8}  same output", flush=True)
    for c in baseline_cases(a, cases, py, env, hub, work, new):
        def side_env(s):
            e = dict(env, UNITXT_RS_ARROW_CACHE=s.cache)
            e.update(c["env"])
            return e

        # One untimed run of each side: fills its Arrow cache, and its output is compared.
        outs = {}
        for s in (old, new):
            o = os.path.join(bdir, f"{s.label}.out") if c["check"] else "/dev/null"
            _, _, _, _, err = run(c["cmd"](s, o), side_env(s))
            outs[s.label] = (o, err)
        n = c["n"]
        if c["check"]:
            same = filecmp.cmp(outs["old"][0], outs["new"][0], shallow=False)
            if n is None:
                if c["name"].startswith("floor"):
                    n = int(outs["new"][1].split()[0])
                else:
                    with open(outs["new"][0], "rb") as f:
                        n = sum(1 for _ in f)
            for o, _ in outs.values():
                os.remove(o)
        else:
            same = None
        times = {"old": [], "new": []}
        for i in range(c["repeat"]):
            for s in ((old, new) if i % 2 == 0 else (new, old)):
                o = os.path.join(bdir, f"{s.label}.timed.out") if c["own_out"] else "/dev/null"
                times[s.label].append(run(c["cmd"](s, o), side_env(s))[:3])
        mo, mn = (median_run([(w, m, cpu, "", "") for w, m, cpu in times[k]]) for k in ("old", "new"))
        ratios = sorted(tn[0] / to[0] for to, tn in zip(times["old"], times["new"]))
        row = dict(name=c["name"], n=n, old=mo, new=mn, ratio=statistics.median(ratios),
                   ratio_medians=mn["seconds"] / mo["seconds"], lo=ratios[0], hi=ratios[-1], same=same,
                   rounds=len(ratios), old_rss=sorted(mo["rss_all"])[len(ratios) // 2],
                   new_rss=sorted(mn["rss_all"])[len(ratios) // 2])
        rows.append(row)
        print(f"{c['name'][:70]:70} {n or 0:7d} {mo['seconds']:9.4f} {mn['seconds']:9.4f} {row['ratio']:7.3f}x  "
              f"{'-' if same is None else 'yes' if same else 'NO'}" + ("  slower by more than 10%" if row["ratio"] > 1.10 else ""),
              flush=True)

    machine = f"{platform.machine()}, {os.cpu_count()} cores, {memory_gib()} GiB, {platform.platform()}"
    old_desc = (f"`{old_rev[:12]}` built with the `{old_profile}` profile" if old_rev else "given with --baseline-bin")
    lines = [
        "# unitxt-rs: the current binary against a baseline" + (" (--quick)" if a.quick else ""),
        "",
        f"Machine: {machine}. Date: {time.strftime('%Y-%m-%d %H:%M')}. New: commit {commit()}, "
        f"`{display_path(a.bin)}`" + (" (profile-guided)" if a.pgo else "") + f". Old: {old_desc}, "
        f"`{display_path(old_bin)}`.",
        "",
        "| case | instances | old s | new s | new/old | new/old of medians | rounds (range of new/old) "
        "| old peak RSS MiB | new peak RSS MiB | same output |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for r in rows:
        flag = " **slower**" if r["ratio"] > 1.10 else ""
        same = "–" if r["same"] is None else "yes" if r["same"] else "**no**"
        lines.append(
            f"| {r['name'].replace('|', '/')} | {r['n'] or '–'} | {r['old']['seconds']:.4f} | {r['new']['seconds']:.4f} "
            f"| {r['ratio']:.3f}x{flag} | {r['ratio_medians']:.3f}x | {r['rounds']} ({r['lo']:.2f}x to {r['hi']:.2f}x) "
            f"| {r['old_rss']:.0f} | {r['new_rss']:.0f} | {same} |"
        )
    slow = [r["name"] for r in rows if r["ratio"] > 1.10]
    differ = [r["name"] for r in rows if r["same"] is False]
    lines += [
        "",
        "- times: each side's median wall time of the rounds (whole process); new/old: the median of the "
        "rounds' ratios, each round running both binaries back to back, the first of them alternating",
        "- " + ("every case within 10% of the baseline or faster" if not slow else
                "more than 10% slower than the baseline: " + "; ".join(slow)),
        "- " + ("every compared output is the same bytes" if not differ else "outputs differ: " + "; ".join(differ)),
        "",
    ]
    out = os.path.join(os.path.dirname(os.path.abspath(a.out)), "baseline.md")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines[2:]))
    print(f"written {out}")
    if a.write_md:
        flags = " --quick" * a.quick + " --pgo" * a.pgo
        flags += f" --baseline-rev {old_rev[:12]}" if old_rev else f" --baseline-bin {display_path(old_bin)}"
        flags += f" --repeat {a.repeat}" * bool(a.repeat) + f" --recipes {a.recipes}" * (a.recipes != 7)
        flags += f" --cases {a.cases}" * (a.cases != "evaluate,prepare,floor,onecore,memory,startup")
        replace_md_block(MD_PATH, BASELINE_BLOCK, lines[2:], f"python3 scripts/bench.py{flags} --write-md")
        print("BENCHMARKS.md baseline block replaced")


def sst2_train_parquet(hub):
    """The SST-2 train parquet files of the hub cache."""
    import glob

    return glob.glob(os.path.join(hub, "datasets--stanfordnlp--sst2", "snapshots", "*", "*", "train-*.parquet"))


def memory_recipe(py, hub, work, n):
    """The memory case's recipe for `n` instances and the catalog directory holding its card: a
    local parquet file of `n` repeated SST-2 train rows (made once with `py`'s pyarrow)."""
    d = os.path.join(work, f"sst2x{n}")
    os.makedirs(d, exist_ok=True)
    pq_path = os.path.join(d, "train.parquet")
    if not os.path.exists(pq_path) or os.path.getmtime(pq_path) < os.path.getmtime(__file__):
        subprocess.run([py, "-c", REPEAT_PARQUET, sst2_train_parquet(hub)[0], pq_path, str(n)], check=True)
    cat = os.path.join(work, "catalog")
    os.makedirs(os.path.join(cat, "cards", "bench"), exist_ok=True)
    card = dict(LOCAL_CARD, loader={"__type__": "load_hf", "path": d, "data_files": {"train": "train.parquet"}})
    with open(os.path.join(cat, "cards", "bench", f"sst2x{n}.json"), "w") as f:
        json.dump(card, f)
    return f"card=cards.bench.sst2x{n},template={SST2_TEMPLATE}", cat


def display_path(path):
    """`path` relative to the repository when inside it, else as it is."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return path if rel.startswith("..") else rel


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--quick", action="store_true", help="1,000 evaluate instances, smaller prepare cases")
    ap.add_argument("--python", help="python with Unitxt 1.26.10 (default: .venv, then /work/venv)")
    ap.add_argument("--bin", help="unitxt-rs binary to time (default: built with the release profile)")
    ap.add_argument("--pgo", action="store_true", help="build with scripts/pgo.sh and time its profile-guided binary")
    ap.add_argument("--cases", default="evaluate,prepare,floor,onecore,memory,startup")
    ap.add_argument("--eval-instances", type=int, help="instances of the evaluate case (default 10,000)")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "bench", "results.md"))
    ap.add_argument("--write-md", "--readme", dest="write_md", action="store_true",
                    help="also replace the results block of BENCHMARKS.md (--readme: the flag's old name)")
    base = ap.add_mutually_exclusive_group()
    base.add_argument("--baseline-rev", metavar="REV", help="time the binary built at git revision REV against this one")
    base.add_argument("--baseline-bin", metavar="PATH", help="time the binary PATH against this one")
    ap.add_argument("--baseline-profile", help="Cargo profile of the --baseline-rev build (default: its benchmark profile)")
    ap.add_argument("--repeat", type=int, help="baseline mode: rounds per case (default 3 to 11, see above)")
    ap.add_argument("--recipes", type=int, default=7, help="how many of the seven acceptance recipes to run")
    a = ap.parse_args()
    baseline = a.baseline_rev or a.baseline_bin
    cases = set(a.cases.split(","))
    py = a.python or next(
        (p for p in (os.path.join(ROOT, ".venv", "bin", "python"), "/work/venv/bin/python") if os.path.exists(p)),
        sys.executable,
    )

    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("UNITXT_ALLOW_UNVERIFIED_CODE", "True")
    hub = env.setdefault("HF_HUB_CACHE", os.path.join(ROOT, "..", "shared", "hf-hub"))
    if not os.path.isdir(hub) and os.path.isdir("/work/shared/hf-hub"):
        hub = env["HF_HUB_CACHE"] = "/work/shared/hf-hub"
    hub = env["HF_HUB_CACHE"] = os.path.abspath(hub)
    catalogs = [os.path.join(ROOT, "tests", "catalog"), os.path.join(ROOT, "scripts", "bench_catalog")]
    env["UNITXT_CATALOGS"] = ":".join([c for c in env.get("UNITXT_CATALOGS", "").split(":") if c] + catalogs)

    if "judge" in cases and not baseline:
        # The LLM judge benchmark (scripts/bench_judge.py): its own server, one line per row.
        import bench_judge

        bench_judge.main(["--bin", a.bin, "--python", py] + (["--n", "100"] if a.quick else []))
        cases.discard("judge")
        if not cases:
            return

    if "infer" in cases and not baseline:
        # The inference benchmark (scripts/bench_infer.py): its own server and table.
        import bench_infer

        bench_infer.main((["--quick"] if a.quick else []) + (["--write-md"] if a.write_md else []), binary=a.bin, py=py)
        cases.discard("infer")
        if not cases:
            return

    if a.pgo:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "pgo.sh")], check=True)
        a.bin = os.path.join(ROOT, "target", "pgo", "release", "unitxt-rs")
    elif not a.bin:
        a.bin = build_current()
    if not os.path.exists(a.bin):
        sys.exit(f"{a.bin} not found: run `cargo build --release -p unitxt-cli --bin unitxt-rs --example io_floor` first")
    work = os.path.join(os.path.dirname(os.path.abspath(a.out)), "work")
    os.makedirs(work, exist_ok=True)

    if baseline:
        if a.baseline_rev:
            old_bin, old_rev, old_profile = build_baseline(a.baseline_rev, a.baseline_profile, a.pgo, env)
        else:
            old_bin, old_rev, old_profile = os.path.abspath(a.baseline_bin), None, None
        if not os.path.exists(old_bin):
            sys.exit(f"{old_bin} not found")
        run_baseline(a, cases, py, env, hub, work, old_bin, old_rev, old_profile)
        return

    if "UNITXT_HF_OFFLINE_DATASETS_PATH" not in env:
        from oracle import offline_tree

        tree = os.path.join(work, "hf-offline")
        offline_tree(hub, tree)
        env["UNITXT_HF_OFFLINE_DATASETS_PATH"] = tree

    rows = []  # (case, n, unitxt result or None, rust result)
    notes = []
    targets = []  # (target, measured, met)

    def report(case, n, u, r):
        rows.append((case, n, u, r))
        us = f"{n / u['seconds']:10.1f}" if u else " " * 10
        ratio = f"{u['seconds'] / r['seconds']:7.1f}x" if u else " " * 8
        cratio = f"{u['cpu'] / r['cpu']:7.1f}x" if u else " " * 8
        print(f"{case[:60]:60} {n:7d} {us} {n / r['seconds']:10.1f} {ratio} {cratio}", flush=True)

    print(f"{'case':60} {'inst':>7} {'Unitxt/s':>10} {'rs/s':>10} {'ratio':>8} {'CPU ratio':>8}")

    if "evaluate" in cases:
        n = a.eval_instances or (1000 if a.quick else 10000)
        recipe = EVAL_RECIPE.format(n=n)
        data = os.path.join(work, f"eval-{n}.jsonl")
        rust(a.bin, env, "prepare", recipe, "--split", "train", "--output", data)
        preds = []
        with open(data, encoding="utf-8") as f:
            for i, line in enumerate(f):
                inst = json.loads(line)
                classes = json.loads(inst["task_data"]).get("classes", [])
                preds.append(noisy(i, inst["target"], classes))
        pred_path = os.path.join(work, f"eval-{n}.predictions.json")
        with open(pred_path, "w", encoding="utf-8") as f:
            json.dump(preds, f)
        u = unitxt(py, env, "evaluate", data, pred_path)
        scores = os.path.join(work, f"eval-{n}.scores.json")
        r = rust(a.bin, env, "evaluate", "--data", data, "--predictions", pred_path, "--output", scores, repeat=5)
        with open(scores, encoding="utf-8") as f:
            ours = json.load(f)["global"]
        diff = [k for k, v in u["global"].items() if not (isinstance(ours.get(k), (int, float)) and
                                                           abs(ours[k] - v) <= 1e-9 * max(1.0, abs(v)))]
        notes.append(f"evaluate: {len(u['global'])} global scores compared, "
                     + ("all equal" if not diff else "differ: " + ", ".join(diff)))
        report(f"evaluate sst2 train, 3 metrics + CIs", n, u, r)
        notes.append(f"evaluate: Unitxt {u['seconds']:.1f} s and {u['rss']:.0f} MiB, unitxt-rs {r['seconds']:.2f} s "
                     f"and {r['rss']:.0f} MiB for {n:,} instances")
        ratio = u["seconds"] / r["seconds"]
        targets.append(("evaluate with confidence intervals: at least 1000x Unitxt", f"{ratio:.0f}x", ratio >= 1000))

    sst2_prepare = (0, None)
    if "prepare" in cases:
        big = []
        lim = ",max_train_instances=5000" if a.quick else ""
        big.append(("train", SST2_TRAIN + lim))
        big.append(("test", MMLU_ALL + (",max_test_instances=2000" if a.quick else "")))
        for split, recipe in first_recipes(a.recipes) + big:
            args = ("prepare", recipe, "--split", split, "--output", "/dev/null")
            if (split, recipe) in big:
                # Tens of seconds for Unitxt: once; ours the median of five.
                u = unitxt(py, env, "prepare", recipe, split)
                r = rust(a.bin, env, *args, repeat=5)
            else:
                # The acceptance recipes take milliseconds for us and about a second for
                # Unitxt, and this VM's speed drifts from minute to minute: three rounds of one
                # Unitxt run then four (the last three) of ours, so that both sample the same
                # moments; the median of each side's runs is compared.
                us, rs = [], []
                for reps in (4, 4, 3):
                    us.append(unitxt(py, env, "prepare", recipe, split))
                    rs.append(rust(a.bin, env, *args, repeat=reps))
                u = median_by_seconds(us)
                r = median_by_seconds([x for res in rs for x in res["runs"]])
            report(f"prepare {split} {short(recipe)}", u["n"], u, r)
            if recipe.startswith(SST2_TRAIN):
                sst2_prepare = (u["n"], r)

    small = [u["seconds"] / r["seconds"] for case, _, u, r in rows if u and case.startswith("prepare ")][:7]
    if small:
        notes.append(f"prepare: the seven acceptance recipes {min(small):.0f}x to {max(small):.0f}x Unitxt (wall)")
    # The 100x target for every prepare case of the issue (the acceptance recipes, MMLU all with
    # demos, SST-2 train), on the machine's cores: its weakest case is reported.
    every = [(u["seconds"] / r["seconds"], case) for case, _, u, r in rows if u and case.startswith("prepare ")]
    if every:
        worst, case = min(every)
        targets.append(("prepare: at least 100x Unitxt on every prepare case (wall, all cores)",
                        f"{worst:.0f}x (lowest: {case[len('prepare '):][:40]}...)", worst >= 100))

    if "floor" in cases:
        pq = sst2_train_parquet(hub)
        # The floor reads the Parquet file itself (the Arrow cache off), and is compared with a
        # prepare that does too; the cached floor and prepare are reported beside them.
        off = dict(env, UNITXT_RS_ARROW_CACHE="off")
        floor = floor_command(a.bin)
        floor_args = [*floor[1:], *pq[:1], "--output", "/dev/null"]
        paired = "prepare" in cases and sst2_prepare[0]
        if paired:
            # Per instance: the prepare writes the card's train split (a random 95% of the rows
            # the floor copies).
            n_prep = sst2_prepare[0]
            recipe = SST2_TRAIN + (",max_train_instances=5000" if a.quick else "")
            prep_args = ["prepare", recipe, "--split", "train", "--output", "/dev/null"]
            r, rp, pairs = rust_paired(a.bin, off, floor_args, prep_args, 7, a_binary=floor[0])
        else:
            r = rust(floor[0], off, *floor_args, repeat=5)
        n = int(r["err"].split()[0])
        report("floor: sst2 train parquet -> JSON Lines, no processing", n, None, r)
        rust(floor[0], env, *floor_args)  # fills the cache
        rc = rust(floor[0], env, *floor_args, repeat=5)
        report("floor: the same from the Arrow cache", n, None, rc)
        if paired:
            report("prepare train sst2, from parquet (Arrow cache off)", n_prep, None, rp)
            each = sorted((p / n_prep) / (f / n) for f, p in pairs)
            m = each[len(each) // 2]
            apart = (rp["seconds"] / n_prep) / (r["seconds"] / n)
            mc = (sst2_prepare[1]["seconds"] / n_prep) / (rc["seconds"] / n)
            notes.append(f"floor: unitxt-rs prepare of SST-2 train from Parquet takes {m:.1f}x the I/O floor's time per "
                         f"instance (median of {len(each)} alternating pairs, {each[0]:.1f}x to {each[-1]:.1f}x; "
                         f"{apart:.1f}x from the two medians); from the Arrow cache, {mc:.1f}x the cached floor's")
            targets.append(("prepare: within 3x of the I/O floor (SST-2 train from Parquet, time per instance)", f"{m:.1f}x", m <= 3))

    if "onecore" in cases:
        recipe = SST2_TRAIN + (",max_train_instances=5000" if a.quick else "")
        one = dict(env, RAYON_NUM_THREADS="1")
        r = rust(a.bin, one, "prepare", recipe, "--split", "train", "--output", "/dev/null", repeat=5)
        u = next((u for case, _, u, _ in rows if case.startswith("prepare train") and u), None)
        n = u["n"] if u else 0
        report("prepare train sst2, one thread (RAYON_NUM_THREADS=1)", n, u, r)
        if u:
            ratio = u["seconds"] / r["seconds"]
            targets.append(("prepare: at least 100x Unitxt on one core (SST-2 train, one thread)",
                            f"{ratio:.0f}x (CPU {u['cpu'] / r['cpu']:.0f}x)", ratio >= 100))

    if "memory" in cases:
        sizes = [10_000, 100_000] if a.quick else [10_000, 100_000, 1_000_000]
        rss, spread = [], []
        for n in sizes:
            recipe, cat = memory_recipe(py, hub, work, n)
            # Peak RSS moves by a huge page or so (2 MiB) from run to run of the same input:
            # the median of three runs is compared.
            r = rust(a.bin, env, "prepare", recipe, "--split", "train", "--output", "/dev/null", "--catalog", cat,
                     repeat=3)
            r["rss"] = r["rss_all"][1]
            report(f"memory: prepare {n} repeated sst2 rows, no demos", n, None, r)
            rss.append(r["rss"])
            spread.append(r["rss_all"])
        notes.append(
            "memory: unitxt-rs peak RSS, median of three runs (all three) "
            + ", ".join(f"{n:,}: {m:.1f} MiB ({'/'.join(f'{x:.1f}' for x in s)})" for n, m, s in zip(sizes, rss, spread))
            + f" ({100 * (rss[-1] / rss[0] - 1):+.1f}% from {sizes[0]:,} to {sizes[-1]:,})"
        )
        growth = rss[-1] / rss[0] - 1
        targets.append((f"memory: peak RSS flat (within 10%) from {sizes[0]:,} to {sizes[-1]:,} instances",
                        f"{100 * growth:+.1f}%", abs(growth) <= 0.10))

    if "startup" in cases:
        recipe = "card=cards.wnli,template=templates.classification.multi_class.relation.default,max_test_instances=1"
        times = [rust(a.bin, env, "prepare", recipe, "--split", "test", "--output", "/dev/null")["seconds"] for _ in range(5)]
        cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        installed = os.environ.get("UNITXT_RS_CATALOG") or os.path.join(cache_home, "unitxt-rs", "catalog-1.26.10")
        count = sum(len([f for f in fs if f.endswith(".json")]) for _, _, fs in os.walk(installed))
        notes.append(f"startup: a wnli recipe resolved in the installed catalog ({count:,} artifacts) and its first "
                     f"instance written in {1000 * min(times):.0f} ms (best of 5, whole process)")
        targets.append((f"start-up: a recipe resolved in the full catalog ({count:,} artifacts) and its first "
                        "instance written in under 50 ms", f"{1000 * min(times):.0f} ms", min(times) < 0.05))

    slept = sum(u.get("skipped_sleep", 0) for _, _, u, _ in rows if u)
    if slept:
        notes.append(f"Unitxt's offline retry back-off sleeps were skipped ({slept:.0f} s in all; not counted)")
    imports = [u["import_seconds"] for _, _, u, _ in rows if u]
    if imports:
        notes.append(f"Unitxt `import unitxt` took {min(imports):.1f}-{max(imports):.1f} s per process (not counted)")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {memory_gib()} GiB, {platform.platform()}, Python {platform.python_version()}"
    lines = [
        "# unitxt-rs vs Unitxt 1.26.10" + (" (--quick)" if a.quick else ""),
        "",
        f"Machine: {machine}. Date: {time.strftime('%Y-%m-%d %H:%M')}. Commit: {commit()}. Binary: "
        f"`{display_path(a.bin)}`"
        + (" (profile-guided: `scripts/pgo.sh`)." if a.pgo else " (release profile: fat LTO)."),
        "",
        "| case | instances | Unitxt inst/s | unitxt-rs inst/s | ratio (wall) | ratio (CPU) "
        "| Unitxt peak RSS MiB | unitxt-rs peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, n, u, r in rows:
        if u:
            lines.append(
                f"| {case.replace('|', '/')} | {n} | {n / u['seconds']:.1f} | {n / r['seconds']:.1f} "
                f"| {u['seconds'] / r['seconds']:.1f}x | {u['cpu'] / r['cpu']:.1f}x | {u['rss']:.0f} | {r['rss']:.0f} |"
            )
        else:
            lines.append(f"| {case} | {n} | – | {n / r['seconds']:.1f} | – | – | – | {r['rss']:.0f} |")
    lines += [""] + [f"- {n}" for n in notes] + [""]
    if targets:
        lines += ["| target | measured | met |", "|---|---:|:---:|"]
        lines += [f"| {t} | {m} | {'yes' if ok else '**no**'} |" for t, m, ok in targets] + [""]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines[2:]))
    print(f"written {a.out}")
    if a.write_md:
        flags = " --quick" * a.quick + " --pgo" * a.pgo
        replace_md_block(MD_PATH, RESULTS_BLOCK, lines[2:], f"python3 scripts/bench.py{flags} --write-md")
        print("BENCHMARKS.md results block replaced")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--unitxt-worker":
        worker(sys.argv[2:])
    else:
        main()
