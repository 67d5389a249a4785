"""Wall time of an LLM judge: a direct judge (positional bias on: 4 requests per instance) on N
instances, against a local OpenAI-compatible server that answers each request after a delay,
with Unitxt 1.26.10's `evaluate` and with `unitxt-rs evaluate` (same engine, same concurrency).

    .venv/bin/python scripts/bench_judge.py --bin target/release/unitxt-rs [--n 1000] [--delay 0.2]
        [--parallel 20]

Both sides use an `open_ai_inference_engine` with `num_parallel_requests` = --parallel (20 is
Unitxt's default for that engine) and no answer cache. Prints the requests each side sent and
its wall time.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        time.sleep(self.server.delay)
        with self.server.lock:
            self.server.count += 1
        last = body["messages"][-1]["content"]
        text = "Excellent" if "The selected criteria option is:" in last else "The response is fine."
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--parallel", type=int, default=20)
    args = ap.parse_args()

    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    srv.request_queue_size = 1024
    srv.delay, srv.count, srv.lock = args.delay, 0, threading.Lock()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]

    tmp = tempfile.mkdtemp(prefix="bench-judge-")
    cat = os.path.join(tmp, "catalog")
    os.makedirs(os.path.join(cat, "cards"))
    os.makedirs(os.path.join(cat, "bench"))
    judge = {"__type__": "llm_judge_direct", "evaluator_name": "Bench",
             "inference_engine": {"__type__": "open_ai_inference_engine", "model_name": "judge", "base_url": f"http://127.0.0.1:{port}/v1",
                                  "credentials": {"api_key": "k"}, "num_parallel_requests": args.parallel, "use_cache": False},
             "criteria": "metrics.llm_as_judge.direct.criteria.answer_relevance", "context_fields": ["question"]}
    json.dump(judge, open(os.path.join(cat, "bench", "judge.json"), "w"))
    rows = [{"question": f"Question number {i}?", "answer": str(i)} for i in range(args.n)]
    card = {"__type__": "task_card", "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}},
            "task": {"__type__": "task", "input_fields": {"question": "str"}, "reference_fields": {"answer": "str"},
                     "prediction_type": "str", "metrics": ["bench.judge"]},
            "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}]}
    json.dump(card, open(os.path.join(cat, "cards", "bench_judge.json"), "w"))
    preds = [f"Answer {i}" for i in range(args.n)]
    preds_path = os.path.join(tmp, "preds.json")
    json.dump(preds, open(preds_path, "w"))
    recipe = "card=cards.bench_judge,template_card_index=0"

    t = time.time()
    subprocess.run([args.bin, "evaluate", recipe, "--split", "test", "--predictions", preds_path, "--catalog", cat,
                    "-o", os.path.join(tmp, "rs.json")], check=True, stdout=subprocess.DEVNULL)
    rs_time, rs_count = time.time() - t, srv.count
    srv.count = 0

    code = ("import json, sys\nfrom unitxt import load_dataset, evaluate\n"
            f"ds = load_dataset({recipe!r}, split='test')\n"
            f"preds = json.load(open({preds_path!r}))\n"
            "evaluate(predictions=preds, data=ds)\n")
    env = dict(os.environ, UNITXT_CATALOGS=cat)
    t = time.time()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    py_time, py_count = time.time() - t, srv.count
    print(json.dumps({"instances": args.n, "delay_s": args.delay, "num_parallel_requests": args.parallel,
                      "unitxt": {"requests": py_count, "wall_s": round(py_time, 1)},
                      "unitxt_rs": {"requests": rs_count, "wall_s": round(rs_time, 1)},
                      "ratio": round(py_time / rs_time, 2)}))


if __name__ == "__main__":
    main()
