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
  the dataset materialized (the workers' per-instance half); both times are shown, and the
  total, which includes starting the actors.
"""

import argparse
import json
import os
import subprocess
import sys
import time

DEFAULT_RECIPE = (
    "card=cards.sst2,template=templates.classification.multi_class.instruction,"
    "num_demos=2,demos_pool_size=50,demos_taken_from=validation"
)


def bench_load_dataset(recipe, split, repeat):
    import unitxt_rs

    best, n = None, 0
    for _ in range(repeat):
        t = time.perf_counter()
        ds = unitxt_rs.load_dataset(recipe, split=split)
        n = len(ds)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return n, best


def bench_ray(ray, recipe, split, workers, repeat, batch_size):
    import unitxt_rs.ray as uray

    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ds = uray.prepare(recipe, split=split, num_workers=workers, batch_size=batch_size)
        t1 = time.perf_counter()
        n = ds.materialize().count()
        t2 = time.perf_counter()
        run = (n, t1 - t0, t2 - t1, t2 - t0)
        if best is None or run[3] < best[3]:
            best = run
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", default=None, help="a Ray cluster to join (e.g. auto); default: start a local one")
    ap.add_argument("--recipe", default=DEFAULT_RECIPE)
    ap.add_argument("--split", default="train")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--baseline-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.baseline_only:
        n, dt = bench_load_dataset(args.recipe, args.split, args.repeat)
        print(json.dumps({"n": n, "seconds": dt}))
        return

    rows = []
    n, dt = bench_load_dataset(args.recipe, args.split, args.repeat)
    rows.append(("load_dataset (engine threads: all cores)", n, None, None, dt))
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, __file__, "--baseline-only", "--recipe", args.recipe, "--split", args.split, "--repeat", str(args.repeat)],
        env=env, capture_output=True, text=True, check=True,
    )
    one = json.loads(out.stdout.strip().splitlines()[-1])
    rows.append(("load_dataset (one thread)", one["n"], None, None, one["seconds"]))

    import ray

    counts = [int(w) for w in args.workers.split(",")]
    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=max(counts), include_dashboard=False, log_to_driver=False)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    for w in counts:
        n, driver, workers, total = bench_ray(ray, args.recipe, args.split, w, args.repeat, args.batch_size)
        rows.append((f"ray, {w} worker{'s' if w > 1 else ''}", n, driver, workers, total))
    ray.shutdown()

    print(f"recipe: {args.recipe}  split: {args.split}")
    print(f"{'configuration':44} {'instances':>9} {'driver s':>9} {'workers s':>9} {'total s':>8} {'inst/s':>8}")
    for name, n, driver, workers, total in rows:
        f = lambda x: "" if x is None else f"{x:.2f}"  # noqa: E731
        print(f"{name:44} {n:9d} {f(driver):>9} {f(workers):>9} {total:8.2f} {n / total:8.0f}")


if __name__ == "__main__":
    main()
