"""The scripted OpenAI-compatible server the judge tests share: a ``ThreadingHTTPServer`` on
127.0.0.1, in a thread of the test process, that answers every chat completion with
``answer(body)`` and records each request body; and the comparison of score dicts.

Both libraries must send the same bodies to get the same answers, so an answer function
depends on the body only.
"""

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def start(answer, usage=(7, 3)):
    """A running server whose answers' text is ``answer(body)`` and whose ``usage`` reports
    ``usage`` = (prompt tokens, completion tokens). Its port: ``server.server_address[1]``;
    stop it with :func:`stop`."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with self.server.lock:
                self.server.bodies.append(body)
            out = {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model"),
                "choices": [{"message": {"role": "assistant", "content": answer(body)}, "finish_reason": "stop", "index": 0}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[0] + usage[1]},
            }
            data = json.dumps(out).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.bodies = []
    srv.lock = threading.Lock()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def stop(srv):
    """Stops a server of :func:`start`."""
    srv.shutdown()
    srv.server_close()


def take(srv):
    """The bodies received since the last call, as sorted canonical JSON texts (equal lists are
    equal multisets of requests)."""
    with srv.lock:
        out = sorted(json.dumps(b, sort_keys=True) for b in srv.bodies)
        srv.bodies.clear()
    return out


def same(a, b, where):
    """Asserts that two score values are equal: floats to 1e-9 (NaN equal to NaN), dicts with
    the same keys in the same order, lists item by item."""
    if isinstance(a, float) or isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            same(a[k], b[k], f"{where}/{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where
