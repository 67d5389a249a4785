"""Wall time of an LLM judge: Unitxt's catalog judge `metrics.llm_as_judge.direct.openai.gpt_4o`
(direct assessment, positional bias on: 4 requests per instance) with the catalog criteria
`answer_relevance`, on N instances, against a local OpenAI-compatible server that answers each
request after a delay, with Unitxt 1.26.10's `evaluate` and with `unitxt-rs evaluate`.

    .venv/bin/python scripts/bench_judge.py --bin target/release/unitxt-rs [--n 1000] [--delay 0.2]
        [--rows defaults,rate256,openai256]

Rows (each run by both libraries, on the same data, server and judge):
- `defaults`: the judge's own engine as the catalog gives it (`cross_provider_inference_engine`,
  provider `open-ai`, which Unitxt runs through LiteLLM: at most 6 requests a second, 6 in
  flight), its `credentials` pointed at the local server;
- `rate256`: the same engine with `max_requests_per_second` 256 for its provider
  (`provider_specific_args`: 256 in flight);
- `openai256`: the judge's engine replaced by an `open_ai_inference_engine` with
  `num_parallel_requests` 256 (no rate limit).

No answer cache on either side (`use_cache` off; Unitxt runs in a scratch directory). The server
is crates/unitxt-inference/examples/slow_server.rs (built here in release; it answers every
request with the same short text and is never the bottleneck); `--python-server` uses a Python
`http.server` in this process instead. Prints one JSON line per row: requests each side sent,
wall times, and Unitxt's time over unitxt-rs's.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        time.sleep(self.server.delay)
        with self.server.lock:
            self.server.count += 1
        last = body["messages"][-1]["content"]
        text = "Yes" if "The selected criteria option is:" in last else "The response is relevant."
        data = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                           "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def engine_for(row, url):
    """The judge engine of a row (see the module's docstring)."""
    catalog_engine = {"__type__": "cross_provider_inference_engine", "max_tokens": 1024, "seed": 42, "temperature": 0,
                      "provider": "open-ai", "model": "gpt-4o-2024-08-06", "credentials": {"api_key": "k", "api_base": url},
                      "use_cache": False}
    if row == "defaults":
        return catalog_engine
    if row == "rate256":
        return dict(catalog_engine, provider_specific_args={"open-ai": {"max_requests_per_second": 256}})
    if row == "openai256":
        return {"__type__": "open_ai_inference_engine", "model_name": "gpt-4o-2024-08-06", "base_url": url,
                "credentials": {"api_key": "k"}, "max_tokens": 1024, "seed": 42, "temperature": 0,
                "num_parallel_requests": 256, "use_cache": False}
    raise SystemExit(f"unknown row {row!r}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--python", default=sys.executable, help="the Python with Unitxt 1.26.10")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--rows", default="defaults,rate256,openai256")
    ap.add_argument("--python-server", action="store_true", help="answer from a Python http.server instead of slow_server")
    args = ap.parse_args(argv)

    if args.python_server:
        srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        srv.daemon_threads = True
        srv.request_queue_size = 1024
        srv.delay, srv.count, srv.lock = args.delay, 0, threading.Lock()
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{srv.server_address[1]}/v1"

        def answered():
            return srv.count
    else:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "unitxt-inference", "--example", "slow_server"], cwd=ROOT, check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        proc = subprocess.Popen([os.path.join(target, "release", "examples", "slow_server"), "--latency-ms", str(int(args.delay * 1000)),
                                 "--answer", "Yes, the response is relevant."], stdout=subprocess.PIPE, text=True)
        url = proc.stdout.readline().split()[-1] + "/v1"
        import atexit

        atexit.register(proc.kill)

        def answered():
            with urllib.request.urlopen(url[: -len("/v1")] + "/stats") as r:
                return json.load(r)["requests"]

    for row in args.rows.split(","):
        tmp = tempfile.mkdtemp(prefix="bench-judge-")
        cat = os.path.join(tmp, "catalog")
        os.makedirs(os.path.join(cat, "cards"))
        os.makedirs(os.path.join(cat, "bench"))
        json.dump(engine_for(row, url), open(os.path.join(cat, "bench", "engine.json"), "w"))
        metric = ("metrics.llm_as_judge.direct.openai.gpt_4o[inference_engine=bench.engine,"
                  "criteria=metrics.llm_as_judge.direct.criteria.answer_relevance,context_fields=[question]]")
        rows = [{"question": f"Question number {i}?", "answer": str(i)} for i in range(args.n)]
        card = {"__type__": "task_card",
                "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}, "data_classification_policy": ["public"]},
                "task": {"__type__": "task", "input_fields": {"question": "str"}, "reference_fields": {"answer": "str"},
                         "prediction_type": "str", "metrics": [metric]},
                "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}]}
        json.dump(card, open(os.path.join(cat, "cards", "bench_judge.json"), "w"))
        preds_path = os.path.join(tmp, "preds.json")
        json.dump([f"Answer {i}" for i in range(args.n)], open(preds_path, "w"))
        recipe = "card=cards.bench_judge,template_card_index=0"
        env = dict(os.environ, UNITXT_CATALOGS=cat)
        env.pop("OPENAI_API_KEY", None)
        env.pop("OPENAI_BASE_URL", None)

        before = answered()
        t = time.time()
        subprocess.run([args.bin, "evaluate", recipe, "--split", "test", "--predictions", preds_path, "--catalog", cat,
                        "-o", os.path.join(tmp, "rs.json")], check=True, stdout=subprocess.DEVNULL, env=env)
        rs_time, rs_count = time.time() - t, answered() - before

        code = ("import json\nfrom unitxt import load_dataset, evaluate\n"
                f"ds = load_dataset({recipe!r}, split='test')\n"
                f"preds = json.load(open({preds_path!r}))\n"
                "evaluate(predictions=preds, data=ds)\n")
        before = answered()
        t = time.time()
        subprocess.run([args.python, "-c", code], check=True, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        py_time, py_count = time.time() - t, answered() - before
        print(json.dumps({"row": row, "instances": args.n, "delay_s": args.delay,
                          "unitxt": {"requests": py_count, "wall_s": round(py_time, 1)},
                          "unitxt_rs": {"requests": rs_count, "wall_s": round(rs_time, 1)},
                          "ratio": round(py_time / rs_time, 2)}), flush=True)


if __name__ == "__main__":
    main()
