"""Explorer timings (a benchmark, not a test): start-up of `unitxt-rs explore` on the full
catalog (until the page is served, and until the catalog index is built: `/api/options`), and
the time from a `/api/prepare` request to the first five instances for a recipe whose data is
in the local hub cache (first request, and a later one of the same recipe).

    python scripts/bench_explore.py [BINARY]   # default target/release/unitxt-rs
"""

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "unitxt-rs")
RECIPES = [
    "card=cards.sst2,template=templates.classification.multi_class.title",
    "card=cards.mmlu.anatomy,template=templates.qa.multiple_choice.with_topic.helm,format=formats.chat_api,num_demos=3,demos_pool_size=5",
]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return r.read()


def until_up(url, t0):
    while True:
        try:
            get(url)
            return time.perf_counter() - t0
        except OSError:
            time.sleep(0.002)


def main():
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen([BIN, "explore", "--port", str(port)], stdout=subprocess.DEVNULL)
    try:
        page = until_up(base + "/", t0)
        t1 = time.perf_counter()
        get(base + "/api/options")
        index = time.perf_counter() - t0
        n = json.loads(get(base + "/api/options"))["artifacts"]
        print(f"start-up: page served after {page * 1000:.0f} ms; catalog index of {n} artifacts after {index * 1000:.0f} ms")
        for recipe in RECIPES:
            times = []
            for _ in range(3):
                t = time.perf_counter()
                r = json.loads(get(base + "/api/prepare", {"recipe": recipe, "split": "test", "offset": 0, "limit": 5}))
                times.append(time.perf_counter() - t)
                assert len(r["instances"]) == 5
            print(f"{recipe}\n  first five of {r['total']}: first request {times[0] * 1000:.1f} ms, "
                  f"then {times[1] * 1000:.1f} ms, {times[2] * 1000:.1f} ms")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
