"""Template judges from Python (``unitxt_rs.llm_as_judge_from_template``): ``LLMAsJudge`` and
``TaskBasedLLMasJudge`` built in code, given to ``load_dataset`` as ``metrics=[judge]``, against
Unitxt's own classes on the same data and the same tiny OpenAI-compatible server in a thread:
the same ``metrics`` column (the judge serialized as Unitxt serializes it), the same multiset of
request bodies and the same instance and global scores.

The environment (HF_HUB_CACHE, HF_HUB_OFFLINE, UNITXT_CATALOGS) comes from scripts/test.sh.
"""

import hashlib
import json

import pytest

import scripted_server
import unitxt_rs
from scripted_server import same, take


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


@pytest.fixture()
def server():
    srv = scripted_server.start(_answer, usage=(7, 3))
    yield srv
    scripted_server.stop(srv)


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
    their_bodies = take(server)
    ours = unitxt_rs.evaluate(predictions=PREDICTIONS, data=our_data)
    our_bodies = take(server)

    assert len(their_bodies) == len(ROWS)
    assert our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        same(a["score"]["instance"], b["score"]["instance"], f"instance {i}")
    same(dict(ours.global_scores), dict(theirs.global_scores), "global")


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
    their_bodies = take(server)
    ours = unitxt_rs.evaluate(predictions=PREDICTIONS, data=our_data)
    our_bodies = take(server)
    assert len(their_bodies) == 4 * len(ROWS)
    assert our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        same(a["score"]["instance"], b["score"]["instance"], f"instance {i}")
    same(dict(ours.global_scores), dict(theirs.global_scores), "global")


def test_produce_and_infer_with_a_task_alone_equal_unitxt(server):
    """``produce`` and ``infer`` with a recipe of a task alone (``task=``, ``template=``,
    ``format=``, no card), as a template judge verbalizes its prompts: the same instances (a
    list or one dict), the same requests, and the same post-processed predictions."""
    import copy

    import unitxt.api
    import unitxt.inference

    import unitxt_rs.api
    import unitxt_rs.inference

    instances = [
        {"question": "What is 2+2? « é »", "answer": "four"},
        {"question": "What is the capital of France?", "answer": "Paris"},
    ]
    recipe = {
        "task": "tasks.response_assessment.rating.single_turn",
        "template": "templates.response_assessment.rating.generic_single_turn",
        "format": "formats.chat_api",
    }
    theirs = unitxt.api.produce(copy.deepcopy(instances), **recipe)
    ours = unitxt_rs.api.produce(copy.deepcopy(instances), **recipe)
    assert ours.column_names == theirs.column_names
    assert [dict(r) for r in ours] == [dict(r) for r in theirs]
    one = dict(recipe, format="formats.llama3_instruct", system_prompt="system_prompts.models.llama2")
    assert unitxt_rs.api.produce(copy.deepcopy(instances[0]), **one) == unitxt.api.produce(copy.deepcopy(instances[0]), **one)

    port = server.server_address[1]
    kw = dict(model_name="judge-model", base_url=f"http://127.0.0.1:{port}/v1", credentials={"api_key": "k"}, use_cache=False)
    their_data = unitxt.api.infer(copy.deepcopy(instances), unitxt.inference.OpenAiInferenceEngine(**kw), return_data=True, **recipe)
    their_bodies = take(server)
    our_data = unitxt_rs.api.infer(copy.deepcopy(instances), unitxt_rs.inference.OpenAiInferenceEngine(**kw), return_data=True, **recipe)
    assert take(server) == their_bodies and len(their_bodies) == 2
    assert list(our_data["prediction"]) == list(their_data["prediction"])
    assert list(our_data["raw_prediction"]) == list(their_data["raw_prediction"])


def test_judge_answers_are_cached_when_the_engine_uses_a_cache(server, tmp_path):
    """``evaluate`` keeps a judge's answers in ``settings.inference_engine_cache_path`` when its
    engine has ``use_cache`` (the default, as in Unitxt): evaluating again sends no request and
    gives the same scores. An engine with ``use_cache=False`` sends its requests every time."""
    import unitxt_rs.inference
    import unitxt_rs.llm_as_judge_from_template
    from unitxt_rs.settings_utils import get_settings

    port = server.server_address[1]
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": ROWS}, "data_classification_policy": ["public"]},
        "task": {"__type__": "task", "input_fields": {"question": "str", "contexts": "List[str]"},
                 "reference_fields": {"answer": "str"}, "prediction_type": "str", "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}],
    }

    def judge(use_cache):
        engine = unitxt_rs.inference.OpenAiInferenceEngine(
            model_name="judge-model", base_url=f"http://127.0.0.1:{port}/v1", credentials={"api_key": "k"}, use_cache=use_cache
        )
        return unitxt_rs.llm_as_judge_from_template.LLMAsJudge(
            inference_model=engine, template="templates.response_assessment.rating.generic_single_turn",
            task="rating.single_turn", format="formats.chat_api", main_score="rating_judge",
        )

    with get_settings().context(inference_engine_cache_path=str(tmp_path / "answers")):
        for use_cache, second_time in [(True, 0), (False, len(ROWS))]:
            data = unitxt_rs.load_dataset(card=card, template_card_index=0, split="test", metrics=[judge(use_cache)])
            first = unitxt_rs.evaluate(predictions=PREDICTIONS, data=data)
            assert len(take(server)) == len(ROWS)
            again = unitxt_rs.evaluate(predictions=PREDICTIONS, data=data)
            assert len(take(server)) == second_time
            same(dict(again.global_scores), dict(first.global_scores), "global")
    assert (tmp_path / "answers" / "unitxt_rs_answers.sqlite").is_file()


def test_judge_modules_are_unitxts():
    """``unitxt_rs.llm_as_judge_operators`` and ``unitxt_rs.llm_as_judge_from_template`` have the
    classes Unitxt's modules have (the same objects as in ``unitxt_rs.llm_as_judge``)."""
    import unitxt.llm_as_judge_from_template as theirs_t
    import unitxt.llm_as_judge_operators as theirs_o

    import unitxt_rs.llm_as_judge as ours
    import unitxt_rs.llm_as_judge_from_template as ours_t
    import unitxt_rs.llm_as_judge_operators as ours_o

    for name in ["LoadCriteriaWithOptions", "CreateYesNoCriteriaFromString", "CreateCriteriaFromDict", "LoadCriteria"]:
        assert hasattr(theirs_o, name) and getattr(ours_o, name) is getattr(ours, name)
    for name in ["LLMAsJudge", "TaskBasedLLMasJudge"]:
        assert hasattr(theirs_t, name) and getattr(ours_t, name) is getattr(ours, name)
