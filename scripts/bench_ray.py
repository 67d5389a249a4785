"""Throughput of `unitxt_rs.ray.prepare` with 1 and 2 workers, against `unitxt_rs.load_dataset`
in one process.

Usage:
    python scripts/bench_ray.py [--address ADDRESS] [--recipe RECIPE] [--split SPLIT]
                                [--workers 1,2] [--repeat 2] [--batch-size 1024]

Without --address a local Ray cluster is started with as many CPUs as the most workers asked
(`ray.init(num_cpus=...)`). On a real cluster, start Ray on every node (`ray start --head` on
one, `ray start --address=HEAD:6379` on the others; each with the catalog installed and the data
readable) and run this script on the head with `--address auto`.

Reported per configuration (best of --repeat runs, instances per second over the whole split):
- `load_dataset`: the split prepared in this process (the engine's own threads: as many as the
  cores unless RAYON_NUM_THREADS says otherwise), and in a child process with
  RAYON_NUM_THREADS=1 (one thread);
- `ray N workers`: `prepare` (the driver's stream-level half: loading, demos pool, ...) then
  the dataset materialized (the workers' per-instance half, including starting the actors);
  both times are shown, the total, and `busy`: the time the workers spent in their
  `map_batches` calls, summed over workers (Ray Data's stats).
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (split, recipe): SST-2 train with demos from validation, and MMLU `all` (a bench-only card in
# scripts/bench_catalog) with 5 demos.
DEFAULT_CASES = [
    ("train", "card=cards.sst2,template=templates.classification.multi_class.instruction,"
     "num_demos=2,demos_pool_size=50,demos_taken_from=validation"),
    ("test", "card=cards.mmlu.all,template=templates.qa.multiple_choice.with_topic.lm_eval_harness,"
     "num_demos=5,demos_pool_size=20"),
]


def bench_load_dataset(recipe, split, repeat):
    import unitxt_rs

    # One untimed run first: the catalog, the dataset files and the loader's Arrow cache warm.
    unitxt_rs.load_dataset(recipe, split=split)
    best, n = None, 0
    for _ in range(repeat):
        t = time.perf_counter()
        ds = unitxt_rs.load_dataset(recipe, split=split)
        n = len(ds)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return n, best


_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}


def busy_seconds(stats):
    """The workers' busy time: the total remote wall time of the map operator in Ray Data's
    stats text (the time spent in `map_batches` calls, without actor start-up or waiting)."""
    import re

    part = stats[stats.find("MapBatches(PrepareBatches)"):]
    m = re.search(r"Remote wall time: .*?([0-9.]+)(ns|us|ms|s|min) total", part)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else float("nan")


def bench_ray(ray, recipe, split, workers, repeat, batch_size):
    import unitxt_rs.ray as uray

    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ds = uray.prepare(recipe, split=split, num_workers=workers, batch_size=batch_size)
        t1 = time.perf_counter()
        done = ds.materialize()
        n = done.count()
        t2 = time.perf_counter()
        run = (n, t1 - t0, t2 - t1, t2 - t0, busy_seconds(done.stats()))
        if best is None or run[3] < best[3]:
            best = run
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", default=None, help="a Ray cluster to join (e.g. auto); default: start a local one")
    ap.add_argument("--recipe", default=None, help="one recipe (default: the two cases above)")
    ap.add_argument("--split", default="train", help="the split of --recipe")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--baseline-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    # The extra catalogs (tests and the bench-only MMLU `all` card), set before Ray starts so
    # that local workers inherit them (joined clusters get them through the runtime env).
    extra = [os.path.join(ROOT, "tests", "catalog"), os.path.join(ROOT, "scripts", "bench_catalog")]
    have = [p for p in os.environ.get("UNITXT_CATALOGS", "").split(os.pathsep) if p]
    os.environ["UNITXT_CATALOGS"] = os.pathsep.join(have + [p for p in extra if p not in have])

    if args.baseline_only:
        n, dt = bench_load_dataset(args.recipe, args.split, args.repeat)
        print(json.dumps({"n": n, "seconds": dt}))
        return

    cases = [(args.split, args.recipe)] if args.recipe else DEFAULT_CASES
    rows = []
    for split, recipe in cases:
        n, dt = bench_load_dataset(recipe, split, args.repeat)
        rows.append((recipe, split, "load_dataset (engine threads: all cores)", n, None, None, dt, None))
        env = {**os.environ, "RAYON_NUM_THREADS": "1"}
        out = subprocess.run(
            [sys.executable, __file__, "--baseline-only", "--recipe", recipe, "--split", split, "--repeat", str(args.repeat)],
            env=env, capture_output=True, text=True, check=True,
        )
        one = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append((recipe, split, "load_dataset (one thread)", one["n"], None, None, one["seconds"], None))

    import ray

    counts = [int(w) for w in args.workers.split(",")]
    env_vars = {"UNITXT_CATALOGS": os.environ["UNITXT_CATALOGS"]}
    if args.address:
        ray.init(address=args.address, log_to_driver=False, runtime_env={"env_vars": env_vars})
    else:
        ray.init(num_cpus=max(counts), include_dashboard=False, log_to_driver=False)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    # Ray Data's first dataset starts its own actors (about 3 s here): not counted.
    ray.data.from_items([{"x": 1}]).materialize()
    for split, recipe in cases:
        for w in counts:
            n, driver, workers, total, busy = bench_ray(ray, recipe, split, w, args.repeat, args.batch_size)
            rows.append((recipe, split, f"ray, {w} worker{'s' if w > 1 else ''}", n, driver, workers, total, busy))
    ray.shutdown()

    f = lambda x: "" if x is None else f"{x:.2f}"  # noqa: E731
    last = None
    for recipe, split, name, n, driver, workers, total, busy in rows:
        if (recipe, split) != last:
            print(f"\n{split}: {recipe}")
            print(f"{'configuration':42} {'instances':>9} {'driver s':>8} {'workers s':>9} {'busy s':>7} {'total s':>8} {'inst/s':>7}")
            last = (recipe, split)
        print(f"{name:42} {n:9d} {f(driver):>8} {f(workers):>9} {f(busy):>7} {total:8.2f} {n / total:7.0f}")


if __name__ == "__main__":
    main()
