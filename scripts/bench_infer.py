"""The inference benchmark: unitxt-rs's `infer` against Unitxt 1.26.10's OpenAiInferenceEngine
and LiteLLMInferenceEngine, in one run, on a local OpenAI-compatible server that answers every
request after 200 ms (crates/unitxt-inference/examples/slow_server.rs, built here with Cargo's
release profile; it is never the bottleneck).

Usage:
  python3 scripts/bench_infer.py [--bin PATH] [--python PY] [--quick] [--write-md]
  (also `python3 scripts/bench.py --cases infer`)

What is measured (each client runs as its own process; wall time from start to the last
answer, CPU time user+system of the client process, peak RSS from os.wait4 for unitxt-rs):
- requests per second at each client's defaults (Unitxt's OpenAI engine: 20 threads; its
  LiteLLM engine: 6 requests per second) and at equal concurrency (256 requests in flight),
  against the ideal, concurrency / latency (100/s at 20, 1,280/s at 256);
- CPU time per request;
- unitxt-rs's peak memory for 10,000 and 100,000 requests;
- cached answers served per second: the 100,000 requests again, all from the answer cache.
The server counts the requests it answered; each run must send exactly one per instance.
Instances are prepared ones (JSON Lines with a `source`), read by `unitxt-rs infer --data`
and by Unitxt as a list of dicts; Unitxt's disk cache is off (`use_cache=False`).

Results: a table on stdout; with --write-md, the block between BENCHMARKS.md's
`<!-- bench infer: begin -->` and `<!-- bench infer: end -->` markers is replaced by it.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, cargo_target_dir, replace_md_block, run  # noqa: E402

LATENCY_MS = 200

UNITXT_CLIENT = r"""
import json, sys, time
kind, url, path, conc = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
with open(path, encoding="utf-8") as f:
    data = [json.loads(line) for line in f if line.strip()]
if kind == "openai":
    from unitxt.inference import OpenAiInferenceEngine
    engine = OpenAiInferenceEngine(model_name="bench", base_url=url, credentials={"api_key": "bench-key"},
                                   num_parallel_requests=int(conc), use_cache=False)
else:
    from unitxt.inference import LiteLLMInferenceEngine
    engine = LiteLLMInferenceEngine(model="openai/bench", credentials={"api_key": "bench-key", "api_base": url},
                                    max_requests_per_second=conc, use_cache=False)
start, cpu0 = time.perf_counter(), time.process_time()
out = engine.infer(data)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
assert len(out) == len(data) and all(isinstance(p, str) and p.startswith("echo: ") for p in out), out[:3]
print(json.dumps({"n": len(out), "seconds": seconds, "cpu": cpu}))
"""


def build_server():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "unitxt-inference", "--example", "slow_server"], cwd=ROOT, check=True)
    return os.path.join(cargo_target_dir(), "release", "examples", "slow_server")


class Server:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary, "--latency-ms", str(LATENCY_MS)], stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().split()[-1] + "/v1"

    def requests(self):
        with urllib.request.urlopen(self.url[: -len("/v1")] + "/stats") as r:
            return json.load(r)["requests"]

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def write_data(path, n):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"source": f"Question {i}: what is {i} plus {i}? Answer with a number."}) + "\n")


def rs_run(binary, server, data, n, conc, env, cache=None):
    engine = {"__type__": "open_ai_inference_engine", "model_name": "bench", "base_url": server.url,
              "credentials": {"api_key": "bench-key"}, "num_parallel_requests": conc}
    cmd = [binary, "infer", "--data", data, "--engine", json.dumps(engine), "--output", "/dev/null"]
    if cache:
        cmd += ["--cache", cache]
    before = server.requests()
    wall, rss, cpu, _, err = run(cmd, env)
    sent = server.requests() - before
    return {"client": "unitxt-rs", "n": n, "conc": conc, "seconds": wall, "cpu": cpu, "rss": rss, "sent": sent, "note": err.strip().splitlines()[-1] if err.strip() else ""}


def unitxt_run(py, kind, server, data, n, conc, env):
    before = server.requests()
    wall, rss, cpu, out, _ = run([py, "-c", UNITXT_CLIENT, kind, server.url, data, str(conc)], env)
    res = json.loads(out.strip().splitlines()[-1])
    name = "Unitxt OpenAiInferenceEngine" if kind == "openai" else "Unitxt LiteLLMInferenceEngine"
    return {"client": name, "n": n, "conc": conc, "seconds": res["seconds"], "cpu": res["cpu"], "rss": rss, "sent": server.requests() - before}


def has_litellm(py):
    return subprocess.run([py, "-c", "import litellm"], capture_output=True).returncode == 0


def table(rows, cached, mem):
    lines = [
        f"Local server answering after {LATENCY_MS} ms; ideal = concurrency / latency.",
        "",
        "| client | concurrency | requests | req/s | % of ideal | CPU ms/request | sent |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        rate = r["n"] / r["seconds"]
        ideal = r["conc"] / (LATENCY_MS / 1000)
        lines.append(f"| {r['client']} | {r['conc']:g} | {r['n']:,} | {rate:,.1f} | {100 * rate / ideal:.1f}% | "
                     f"{1000 * r['cpu'] / r['n']:.3f} | {r['sent']:,} |")
    lines += ["", "| unitxt-rs | figure |", "|---|---:|"]
    for label, value in mem:
        lines.append(f"| {label} | {value} |")
    if cached:
        lines.append(f"| cached answers per second ({cached['n']:,} requests, whole process) | "
                     f"{cached['n'] / cached['seconds']:,.0f} ({cached['seconds']:.2f} s, {cached['sent']} sent) |")
    return lines


def main(argv=None, binary=None, py=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=binary, help="unitxt-rs binary (default: built with the release profile)")
    ap.add_argument("--python", default=py, help="python with Unitxt 1.26.10 (default: .venv)")
    ap.add_argument("--quick", action="store_true", help="a tenth of the requests")
    ap.add_argument("--write-md", action="store_true")
    a = ap.parse_args(argv)
    if not a.bin:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "unitxt-cli"], cwd=ROOT, check=True)
        a.bin = os.path.join(cargo_target_dir(), "release", "unitxt-rs")
    py = a.python or os.path.join(ROOT, ".venv", "bin", "python")
    scale = 10 if a.quick else 1
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    server = Server(build_server())
    work = tempfile.mkdtemp(prefix="bench-infer-")
    rows, mem, cached = [], [], None
    try:
        def data(n):
            path = os.path.join(work, f"data-{n}.jsonl")
            if not os.path.exists(path):
                write_data(path, n)
            return path

        def check(r):
            if r["sent"] != r["n"]:
                raise SystemExit(f"{r['client']}: the server answered {r['sent']} requests for {r['n']} instances")
            rows.append(r)
            print(json.dumps(r), flush=True)

        n20, n256 = 2000 // scale, 20000 // scale
        check(rs_run(a.bin, server, data(n20), n20, 20, env))
        check(unitxt_run(py, "openai", server, data(n20), n20, 20, env))
        check(rs_run(a.bin, server, data(n256), n256, 256, env))
        check(unitxt_run(py, "openai", server, data(n256 // 2), n256 // 2, 256, env))
        if has_litellm(py):
            check(unitxt_run(py, "litellm", server, data(60), 60, 6, env))
            check(unitxt_run(py, "litellm", server, data(2560 // scale), 2560 // scale, 256, env))
        else:
            print("litellm is not installed in", py, "- its rows are left out", flush=True)
        big = 100000 // scale
        cache = os.path.join(work, "answers.sqlite")
        first = rs_run(a.bin, server, data(big), big, 256, env, cache=cache)
        check(first)
        mem.append((f"peak RSS, {n256:,} requests", f"{rows[2]['rss']:.1f} MiB"))
        mem.append((f"peak RSS, {big:,} requests", f"{first['rss']:.1f} MiB"))
        cached = rs_run(a.bin, server, data(big), big, 256, env, cache=cache)
        if cached["sent"] != 0:
            raise SystemExit(f"the cached rerun sent {cached['sent']} requests")
        mem.append((f"peak RSS, {big:,} cached answers", f"{cached['rss']:.1f} MiB"))
    finally:
        server.stop()
    lines = table(rows, cached, mem)
    print("\n".join(lines))
    if a.write_md:
        replace_md_block(os.path.join(ROOT, "BENCHMARKS.md"), ("<!-- bench infer: begin -->", "<!-- bench infer: end -->"),
                         lines, "python3 scripts/bench_infer.py --write-md")


if __name__ == "__main__":
    main()
