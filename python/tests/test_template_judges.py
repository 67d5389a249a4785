"""Template judges from Python (``unitxt_rs.llm_as_judge_from_template``): ``LLMAsJudge`` and
``TaskBasedLLMasJudge`` built in code, given to ``load_dataset`` as ``metrics=[judge]``, against
Unitxt's own classes on the same data and the same tiny OpenAI-compatible server in a thread:
the same ``metrics`` column (the judge serialized as Unitxt serializes it), the same multiset of
request bodies and the same instance and global scores.

The environment (HF_HUB_CACHE, HF_HUB_OFFLINE, UNITXT_CATALOGS) comes from scripts/test.sh.
"""

import hashlib
import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import unitxt_rs


def _answer(body):
    """A rating, an arena-hard verdict or a groundedness word, chosen by a hash of the body:
    both libraries must send the same bodies to get the same answers."""
    h = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
    text = json.dumps(body)
    if "[[A>>B]]" in text:
        return ["[[A>B]]", "Verdict: [[B>>A]]", "[[A=B]]", "none"][h % 4]
    if "Reply with one of the 4 options" in text:
        return ["Completely grounded.", "Mostly grounded", "Not grounded", "I do not know"][h % 4]
    return [f"Rating: [[{h % 10 + 1}]]", "No rating here.", f"[[{h % 9}.5]]"][h % 3]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with self.server.lock:
            self.server.bodies.append(body)
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [{"message": {"role": "assistant", "content": _answer(body)}, "finish_reason": "stop", "index": 0}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
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
    srv.lock = threading.Lock()
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _take(srv):
    with srv.lock:
        out = sorted(json.dumps(b, sort_keys=True) for b in srv.bodies)
        srv.bodies.clear()
    return out


def _same(a, b, where):
    if isinstance(a, float) or isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}/{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _judges(module, port):
    """The judges of each case, built with ``module`` (Unitxt's or ours)."""
    engine = module.OpenAiInferenceEngine(
        model_name="judge-model", base_url=f"http://127.0.0.1:{port}/v1", credentials={"api_key": "k"}, temperature=0, use_cache=False
    )
    return {
        "rating": module.LLMAsJudge(
            inference_model=engine,
            template="templates.response_assessment.rating.generic_single_turn",
            task="rating.single_turn",
            format="formats.chat_api",
            main_score="rating_judge",
        ),
        "arena": module.LLMAsJudge(
            inference_model=engine,
            template="templates.response_assessment.pairwise_comparative_rating.arena_hard",
            task="pairwise_comparative_rating.single_turn",
            format="formats.empty",
            main_score="arena_judge",
        ),
        "faithfulness": module.TaskBasedLLMasJudge(
            inference_model=engine,
            template="templates.rag_eval.faithfulness.judge_no_question_simplified_verbal",
            task="tasks.rag_eval.faithfulness.binary",
            main_score="faithfulness_judge",
            prediction_field="answer",
            format=None,  # chosen by the engine (Unitxt's class default is refused with OpenAI)
        ),
    }


ROWS = [
    {"question": "What is 2+2?", "contexts": ["2 + 2 = 4."], "answer": "4"},
    {"question": "What is the capital of France?", "contexts": ["Paris is France's capital.", "Lyon is a city."], "answer": "Paris"},
    {"question": "What color is the sky?", "contexts": ["The sky is blue by day."], "answer": "blue"},
]
PREDICTIONS = ["four", "Paris, of course — « la capitale ».", "It is green."]


@pytest.mark.parametrize("case", ["rating", "arena", "faithfulness"])
def test_template_judge_built_in_code_equals_unitxt(case, server):
    import unitxt
    import unitxt.inference
    import unitxt.llm_as_judge_from_template

    class _Theirs:
        OpenAiInferenceEngine = unitxt.inference.OpenAiInferenceEngine
        LLMAsJudge = unitxt.llm_as_judge_from_template.LLMAsJudge
        TaskBasedLLMasJudge = unitxt.llm_as_judge_from_template.TaskBasedLLMasJudge

    import unitxt_rs.inference
    import unitxt_rs.llm_as_judge_from_template

    class _Ours:
        OpenAiInferenceEngine = unitxt_rs.inference.OpenAiInferenceEngine
        LLMAsJudge = unitxt_rs.llm_as_judge_from_template.LLMAsJudge
        TaskBasedLLMasJudge = unitxt_rs.llm_as_judge_from_template.TaskBasedLLMasJudge

    port = server.server_address[1]
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": ROWS}, "data_classification_policy": ["public"]},
        "task": {
            "__type__": "task",
            "input_fields": {"question": "str", "contexts": "List[str]"},
            "reference_fields": {"answer": "str"},
            "prediction_type": "str",
            "metrics": ["metrics.accuracy"],
        },
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}],
    }
    from unitxt.artifact import fetch_artifact

    their_card = fetch_artifact(json.dumps(card))[0]
    theirs_data = unitxt.load_dataset(card=their_card, template_card_index=0, split="test", metrics=[_judges(_Theirs, port)[case]])
    our_data = unitxt_rs.load_dataset(card=card, template_card_index=0, split="test", metrics=[_judges(_Ours, port)[case]])
    assert list(our_data["metrics"]) == list(theirs_data["metrics"]), "the judge serializes as Unitxt's"

    theirs = unitxt.evaluate(predictions=PREDICTIONS, data=theirs_data)
    their_bodies = _take(server)
    ours = unitxt_rs.evaluate(predictions=PREDICTIONS, data=our_data)
    our_bodies = _take(server)

    assert len(their_bodies) == len(ROWS)
    assert our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        _same(a["score"]["instance"], b["score"]["instance"], f"instance {i}")
    _same(dict(ours.global_scores), dict(theirs.global_scores), "global")


def test_direct_judge_built_in_code_equals_unitxt(server):
    """An ``LLMJudgeDirect`` made in code with a ``CriteriaWithOptions`` object serializes into
    the data as Unitxt's does, and scores the same with the same requests."""
    import unitxt
    import unitxt.inference
    import unitxt.llm_as_judge
    import unitxt.llm_as_judge_constants as uc

    import unitxt_rs.inference
    import unitxt_rs.llm_as_judge
    import unitxt_rs.llm_as_judge_constants as oc

    port = server.server_address[1]

    def judge(inference, judges, constants):
        criteria = constants.CriteriaWithOptions(
            name="Grounded",
            description="Is the response supported by the contexts?",
            options=[constants.CriteriaOption(name="Yes", description="It is."), constants.CriteriaOption(name="No", description="")],
            option_map={"Yes": 1.0, "No": 0.0},
        )
        engine = inference.OpenAiInferenceEngine(
            model_name="judge-model", base_url=f"http://127.0.0.1:{port}/v1", credentials={"api_key": "k"}, use_cache=False
        )
        return judges.LLMJudgeDirect(inference_engine=engine, criteria=criteria, context_fields=["question", "contexts"])

    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": ROWS}},
        "task": {
            "__type__": "task",
            "input_fields": {"question": "str", "contexts": "List[str]"},
            "reference_fields": {"answer": "str"},
            "prediction_type": "str",
            "metrics": ["metrics.accuracy"],
        },
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}],
    }
    from unitxt.artifact import fetch_artifact

    theirs_data = unitxt.load_dataset(
        card=fetch_artifact(json.dumps(card))[0], template_card_index=0, split="test",
        metrics=[judge(unitxt.inference, unitxt.llm_as_judge, uc)],
    )
    our_data = unitxt_rs.load_dataset(
        card=card, template_card_index=0, split="test", metrics=[judge(unitxt_rs.inference, unitxt_rs.llm_as_judge, oc)]
    )
    assert list(our_data["metrics"]) == list(theirs_data["metrics"]), "the judge serializes as Unitxt's"
    theirs = unitxt.evaluate(predictions=PREDICTIONS, data=theirs_data)
    their_bodies = _take(server)
    ours = unitxt_rs.evaluate(predictions=PREDICTIONS, data=our_data)
    our_bodies = _take(server)
    assert len(their_bodies) == 4 * len(ROWS)
    assert our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        _same(a["score"]["instance"], b["score"]["instance"], f"instance {i}")
    _same(dict(ours.global_scores), dict(theirs.global_scores), "global")
