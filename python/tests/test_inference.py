"""Tests of inference from Python (``unitxt_rs.api.infer`` and ``.infer`` on the engine classes
of ``unitxt_rs.inference``) against a tiny OpenAI-compatible server in a thread, and of the
request bodies against those Unitxt's own ``OpenAiInferenceEngine`` sends to it.

The environment (HF_HUB_CACHE, HF_HUB_OFFLINE, UNITXT_CATALOGS) comes from scripts/test.sh.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import unitxt_rs
import unitxt_rs.inference

RECIPE = "card=cards.sst2,template=templates.classification.multi_class.instruction,max_test_instances=4"


class _Handler(BaseHTTPRequestHandler):
    """Answers ``POST /v1/chat/completions`` (and an Azure deployment's path) with ``echo: <last
    user message>``, with log probabilities when asked; records the request bodies, paths and
    key headers on the server."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.path.split("?")[0] not in ("/v1/chat/completions", "/openai/deployments/dep/chat/completions/"):
            self.send_response(404)
            self.end_headers()
            return
        with self.server.lock:
            self.server.bodies.append(body)
            self.server.requests.append((self.path, self.headers.get("api-key"), self.headers.get("Authorization")))
        last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        words = ("echo: " + last).split()[:3]
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [
                {"message": {"role": "assistant", "content": "echo: " + last}, "finish_reason": "stop", "index": 0}
            ],
            "usage": {"prompt_tokens": len(last), "completion_tokens": 3, "total_tokens": len(last) + 3},
        }
        if body.get("logprobs"):
            # Deterministic log probabilities: the first three words, each with two alternatives.
            answer["choices"][0]["logprobs"] = {
                "content": [
                    {
                        "token": w,
                        "logprob": -0.25 * (i + 1),
                        "top_logprobs": [{"token": w, "logprob": -0.25 * (i + 1)}, {"token": w.upper(), "logprob": -3.5}],
                    }
                    for i, w in enumerate(words)
                ]
            }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.bodies = []
    srv.requests = []
    srv.lock = threading.Lock()
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _args(port):
    return dict(model_name="m", base_url=f"http://127.0.0.1:{port}/v1", credentials={"api_key": "k"})


def _last_user(body):
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def _canonical(bodies):
    return sorted(json.dumps(b, sort_keys=True, ensure_ascii=False) for b in bodies)


@pytest.fixture(autouse=True)
def _answer_cache(tmp_path, monkeypatch):
    """Each test gets its own answer cache directory (engines cache by default, as Unitxt's)."""
    monkeypatch.setenv("UNITXT_INFERENCE_ENGINE_CACHE_PATH", str(tmp_path / "answers"))


@pytest.fixture(scope="module")
def ds():
    return unitxt_rs.load_dataset(RECIPE, split="test")


def test_engine_infer(server, ds):
    engine = unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port))
    predictions = engine.infer(ds)
    assert len(predictions) == 4
    assert len(server.bodies) == 4
    assert all(b["model"] == "m" for b in server.bodies)
    # The parallel requests arrive in any order: match each prediction to its request.
    assert sorted(predictions) == sorted("echo: " + _last_user(b) for b in server.bodies)
    for p, row in zip(predictions, ds):
        assert p.startswith("echo: ") and p[len("echo: "):] in row["source"]


def test_engine_is_callable_and_returns_a_list_with_metadata(server, ds):
    engine = unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port), use_cache=False)
    predictions = engine(ds)
    assert isinstance(predictions, unitxt_rs.inference.ListWithMetadata) and isinstance(predictions, list)
    assert predictions == engine.infer(ds)
    assert predictions.metadata["inference_engine_type"] == "OpenAiInferenceEngine"
    assert predictions.metadata["init_dict"]["model_name"] == "m"
    assert predictions.metadata["init_dict"]["credentials"] == {"api_key": "[redacted]"}
    assert len(server.bodies) == 8


def test_api_infer(server, ds):
    engine = unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port), use_cache=False)
    raw = engine.infer(ds)
    server.bodies.clear()
    predictions = unitxt_rs.api.infer(ds, engine=engine)
    assert len(server.bodies) == 4
    assert all(b["model"] == "m" for b in server.bodies)
    assert predictions == unitxt_rs.post_process(raw, ds)
    # As a dict and with return_data.
    server.bodies.clear()
    data = unitxt_rs.infer(ds, engine=engine.to_dict(), return_data=True)
    assert list(data["raw_prediction"]) == raw
    assert list(data["prediction"]) == predictions
    assert unitxt_rs.infer is unitxt_rs.api.infer


def test_request_bodies_match_unitxt(server, ds, tmp_path):
    pytest.importorskip("openai")
    from unitxt.inference import OpenAiInferenceEngine
    from unitxt.settings_utils import get_settings

    # A fresh disk cache for Unitxt's engine, so that it sends every request.
    settings = get_settings()
    saved = settings.inference_engine_cache_path
    settings.inference_engine_cache_path = str(tmp_path)

    unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port), use_cache=False).infer(ds)
    ours = list(server.bodies)
    server.bodies.clear()
    try:
        theirs_engine = OpenAiInferenceEngine(**_args(server.server_port))
    except BaseException:
        settings.inference_engine_cache_path = saved
        raise
    try:
        theirs = theirs_engine.infer(ds)
    finally:
        settings.inference_engine_cache_path = saved
    assert len(server.bodies) == 4
    assert _canonical(ours) == _canonical(server.bodies)
    assert sorted(theirs) == sorted("echo: " + _last_user(b) for b in ours)


def test_answers_are_cached_as_unitxt_caches_them(server, ds, tmp_path):
    engine = unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port))
    first = engine.infer(ds)
    assert len(server.bodies) == 4
    assert (tmp_path / "answers" / "unitxt_rs_answers.sqlite").is_file()
    server.bodies.clear()
    assert engine.infer(ds) == first
    assert server.bodies == [], "a rerun sends nothing"
    # The key is not part of the cache key, and never stored.
    again = unitxt_rs.inference.OpenAiInferenceEngine(**{**_args(server.server_port), "credentials": {"api_key": "other-secret"}})
    assert again.infer(ds) == first and server.bodies == []
    stored = b"".join(p.read_bytes() for p in (tmp_path / "answers").iterdir())
    assert b"other-secret" not in stored
    unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port), use_cache=False).infer(ds)
    assert len(server.bodies) == 4, "use_cache=False sends every request"


def _unitxt_engine(port, tmp_path):
    """Unitxt's own OpenAiInferenceEngine on the server, with a fresh disk cache."""
    pytest.importorskip("openai")
    from unitxt.inference import OpenAiInferenceEngine
    from unitxt.settings_utils import get_settings

    settings = get_settings()
    saved = settings.inference_engine_cache_path
    settings.inference_engine_cache_path = str(tmp_path / "unitxt-cache")
    try:
        return OpenAiInferenceEngine(**_args(port), use_cache=False)
    finally:
        settings.inference_engine_cache_path = saved


@pytest.mark.parametrize("log_probs", [False, True])
def test_log_probs_and_meta_data_match_unitxt(server, ds, tmp_path, log_probs):
    import dataclasses

    ours_engine = unitxt_rs.inference.OpenAiInferenceEngine(**_args(server.server_port), use_cache=False)
    run = (lambda e: e.infer_log_probs(ds, return_meta_data=True)) if log_probs else (lambda e: e.infer(ds, return_meta_data=True))
    ours = run(ours_engine)
    our_bodies = list(server.bodies)
    server.bodies.clear()
    theirs = run(_unitxt_engine(server.server_port, tmp_path))
    assert _canonical(our_bodies) == _canonical(server.bodies)
    assert [type(o).__name__ for o in ours] == ["TextGenerationInferenceOutput"] * 4
    assert [dataclasses.asdict(o) for o in ours] == [dataclasses.asdict(t) for t in theirs]
    if log_probs:
        assert ours[0].prediction[0]["top_tokens"][1]["logprob"] == -3.5
        # Without meta data: the predictions alone, as Unitxt's.
        server.bodies.clear()
        assert ours_engine.infer_log_probs(ds) == [o.prediction for o in theirs]


def _unitxt_class(name, tmp_path):
    """Unitxt's engine class `name`, with its disk cache in `tmp_path`; skipped without the
    packages it calls through."""
    pytest.importorskip("openai")
    pytest.importorskip("litellm")
    import unitxt.inference

    return getattr(unitxt.inference, name)


@pytest.mark.parametrize(
    "name, args",
    [
        ("LiteLLMInferenceEngine", {"model": "openai/m", "max_tokens": 20, "temperature": 0.5, "seed": 7}),
        ("CrossProviderInferenceEngine", {"model": "gpt-4o-mini", "provider": "open-ai", "max_tokens": 20, "top_p": 0.9}),
    ],
)
def test_litellm_and_cross_provider_requests_match_unitxt(server, ds, tmp_path, monkeypatch, name, args):
    import dataclasses

    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    url = f"http://127.0.0.1:{server.server_port}/v1"
    args = {**args, "credentials": {"api_key": "k", "api_base": url}, "use_cache": False}
    ours = getattr(unitxt_rs.inference, name)(**args).infer(ds, return_meta_data=True)
    our_bodies = list(server.bodies)
    server.bodies.clear()
    theirs = _unitxt_class(name, tmp_path)(**args).infer(ds, return_meta_data=True)
    assert len(server.bodies) == 4
    assert _canonical(our_bodies) == _canonical(server.bodies)
    assert [dataclasses.asdict(o) for o in ours] == [dataclasses.asdict(t) for t in theirs]


def test_azure_requests_match_unitxt(server, ds, tmp_path):
    import dataclasses

    pytest.importorskip("openai")
    from unitxt.inference import AzureOpenAIInferenceEngine

    creds = {"api_key": "azure-key", "azure_openai_host": f"http://127.0.0.1:{server.server_port}", "api_version": "2024-02-01"}
    args = dict(model_name="dep", credentials=creds, use_cache=False, max_tokens=7)
    ours = unitxt_rs.inference.AzureOpenAIInferenceEngine(**args).infer(ds, return_meta_data=True)
    our_bodies, our_requests = list(server.bodies), list(server.requests)
    server.bodies.clear()
    server.requests.clear()
    theirs = AzureOpenAIInferenceEngine(**args).infer(ds, return_meta_data=True)
    assert _canonical(our_bodies) == _canonical(server.bodies)
    assert set(our_requests) == set(server.requests) == {("/openai/deployments/dep/chat/completions/?api-version=2024-02-01", "azure-key", None)}
    assert [dataclasses.asdict(o) for o in ours] == [dataclasses.asdict(t) for t in theirs]
