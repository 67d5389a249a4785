"""LLM judges from Python: ``unitxt_rs.evaluate`` with a direct and a pairwise judge against a
tiny OpenAI-compatible server in a thread, compared with Unitxt's own ``evaluate`` on the same
data and server (the judge's engine an ``OpenAiInferenceEngine`` there): the same multiset of
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
    """An assessment, or one of the options the prompt lists (sometimes garbled), chosen by a
    hash of the body: both libraries must send the same bodies to get the same answers."""
    h = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
    last = body["messages"][-1]["content"]
    if "The selected criteria option is:" in last:
        options = [line.split('"')[1] for line in last.splitlines() if line.startswith('- "')]
        o = options[h % len(options)]
        return [o, f"I choose {o}", o[: max(1, len(o) // 2)]][h // 7 % 3]
    if last.endswith("Answer: "):
        systems = [line.split('"')[1] for line in last.splitlines() if line.startswith('Choose "')]
        s = systems[h % len(systems)]
        return [f"Response {s}", s, f"**Response {s}**"][h // 7 % 3]
    return f"Assessment {h % 997}."


@pytest.fixture()
def server():
    srv = scripted_server.start(_answer, usage=(1, 1))
    yield srv
    scripted_server.stop(srv)


def _engine(port):
    return {
        "__type__": "open_ai_inference_engine",
        "model_name": "judge-model",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "credentials": {"api_key": "k"},
        "temperature": 0,
        "max_tokens": 256,
        "use_cache": False,
    }


CASES = {
    "direct": (
        {
            "__type__": "llm_judge_direct",
            "criteria": "metrics.llm_as_judge.direct.criteria.answer_relevance",
            "context_fields": ["question"],
            "evaluator_name": "Judge",
        },
        ["four", "Paris, of course.", "It is green."],
    ),
    # A predefined criteria object given to our `LLMJudgeDirect` class: its JSON holds the
    # criteria inline, and both libraries judge with it.
    "direct_enum": (
        None,
        ["four", "Paris, of course.", "It is green."],
    ),
    "pairwise": (
        {
            "__type__": "llm_judge_pairwise",
            "criteria": "metrics.llm_as_judge.pairwise.criteria.factually_consistent",
            "context_fields": "question",
            "generate_summaries": True,
        },
        [["four", "4", "five"], ["Paris", "Lyon", "Paris, France"], ["green", "blue", "It depends."]],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_judge_scores_and_requests_equal_unitxt(case, server, tmp_path):
    import unitxt
    from unitxt import register_local_catalog

    judge, predictions = CASES[case]
    if judge is None:
        from unitxt_rs.llm_as_judge import LLMJudgeDirect
        from unitxt_rs.llm_as_judge_constants import DirectCriteriaCatalogEnum

        criteria = DirectCriteriaCatalogEnum.CONCISENESS.value
        judge = LLMJudgeDirect(criteria=criteria, context_fields=["question"], evaluator_name="Judge").to_dict()
        assert judge["criteria"]["name"] == "conciseness"
    judge = dict(judge, inference_engine=_engine(server.server_address[1]))
    catalog = tmp_path / "catalog"
    (catalog / "cards").mkdir(parents=True)
    (catalog / "judges").mkdir()
    # Names of their own per case: Unitxt keeps what it fetched by name for the process.
    (catalog / "judges" / f"judge_{case}.json").write_text(json.dumps(judge))
    rows = [
        {"question": "What is 2+2?", "answer": "4"},
        {"question": "What is the capital of France?", "answer": "Paris"},
        {"question": "What color is the sky?", "answer": "blue"},
    ]
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}},
        "task": {
            "__type__": "task",
            "input_fields": {"question": "str"},
            "reference_fields": {"answer": "str"},
            "prediction_type": "Any",
            "metrics": [f"judges.judge_{case}"],
        },
        "templates": [
            {"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}", "postprocessors": []}
        ],
    }
    (catalog / "cards" / f"judge_qa_{case}.json").write_text(json.dumps(card))
    register_local_catalog(str(catalog))
    unitxt_rs.register_local_catalog(str(catalog))
    data = unitxt.load_dataset(f"card=cards.judge_qa_{case},template_card_index=0", split="test")

    theirs = unitxt.evaluate(predictions=predictions, data=data)
    their_bodies = take(server)
    ours = unitxt_rs.evaluate(predictions=predictions, data=data)
    our_bodies = take(server)

    assert their_bodies and our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        same(a["score"]["instance"], b["score"]["instance"], f"instance {i}")
    same(dict(ours.global_scores), dict(theirs.global_scores), "global")


def test_criteria_classes_serialize_as_unitxt():
    """``unitxt_rs.llm_as_judge_constants`` has Unitxt's criteria classes: made in code or with
    ``from_obj`` / ``from_jsons``, they serialize to Unitxt's JSON."""
    from unitxt.llm_as_judge_constants import Criteria as UC
    from unitxt.llm_as_judge_constants import CriteriaOption as UO
    from unitxt.llm_as_judge_constants import CriteriaWithOptions as UCO

    from unitxt_rs.llm_as_judge import CriteriaOption as O2
    from unitxt_rs.llm_as_judge_constants import Criteria, CriteriaOption, CriteriaWithOptions

    assert O2 is CriteriaOption
    d = {"name": "n", "description": "d", "context_fields": ["q"], "options": [{"name": "Yes", "description": ""}, {"name": "No", "description": "no"}], "option_map": {"Yes": 1.0, "No": 0.0}}
    assert CriteriaWithOptions.from_obj(d).to_json() == UCO.from_obj(d).to_json()
    assert CriteriaWithOptions.from_jsons(json.dumps(d)).to_json() == UCO.from_jsons(json.dumps(d)).to_json()
    assert Criteria.from_obj(d).to_json() == UC.from_obj(d).to_json()
    ours = CriteriaWithOptions(name="n", description="d", options=[CriteriaOption(name="A", description="a")])
    theirs = UCO(name="n", description="d", options=[UO(name="A", description="a")])
    assert ours.to_json() == theirs.to_json()


#: Cards whose criteria come from each instance through the criteria operators: the field each
#: row gives and the preprocess step that turns it into the `criteria` task field.
CRITERIA_CARDS = {
    "load": (
        ["metrics.llm_as_judge.direct.criteria.answer_relevance", "metrics.llm_as_judge.direct.criteria.conciseness",
         "metrics.llm_as_judge.direct.criteria.answer_relevance"],
        {"__type__": "load_criteria_with_options", "field": "raw", "to_field": "criteria"},
    ),
    "yes_no": (
        ["Does the response answer the question?", "Is the response short?", "Is the response in English?"],
        {"__type__": "create_yes_no_criteria_from_string", "field": "raw", "to_field": "criteria"},
    ),
}


@pytest.mark.parametrize("case", sorted(CRITERIA_CARDS))
def test_judge_with_criteria_from_operators_equals_unitxt(case, server, tmp_path):
    """A card whose preprocess steps make each instance's criteria (`load_criteria_with_options`,
    `create_yes_no_criteria_from_string`), judged by a direct judge reading them from
    `criteria_field`: the prepared instances, the judge's requests and its scores equal Unitxt's."""
    import unitxt
    from unitxt import register_local_catalog

    raws, step = CRITERIA_CARDS[case]
    judge = {
        "__type__": "llm_judge_direct",
        "criteria_field": "criteria",
        "context_fields": ["question"],
        "evaluator_name": "Judge",
        "inference_engine": _engine(server.server_address[1]),
    }
    questions = ["What is 2+2?", "What is the capital of France?", "What color is the sky?"]
    rows = [{"question": q, "response": "", "raw": r} for q, r in zip(questions, raws)]
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}},
        "preprocess_steps": [step],
        "task": {
            "__type__": "task",
            "input_fields": {"question": "str", "criteria": "Any"},
            "reference_fields": {},
            "prediction_type": "str",
            "metrics": [f"judges.criteria_judge_{case}"],
        },
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "", "postprocessors": []}],
    }
    catalog = tmp_path / "catalog"
    (catalog / "cards").mkdir(parents=True)
    (catalog / "judges").mkdir()
    (catalog / "judges" / f"criteria_judge_{case}.json").write_text(json.dumps(judge))
    (catalog / "cards" / f"criteria_qa_{case}.json").write_text(json.dumps(card))
    register_local_catalog(str(catalog))
    unitxt_rs.register_local_catalog(str(catalog))
    recipe = f"card=cards.criteria_qa_{case},template_card_index=0"
    data = unitxt.load_dataset(recipe, split="test")
    ours_data = unitxt_rs.load_dataset(recipe, split="test")
    cols = ["source", "target", "references", "task_data", "metrics", "postprocessors"]
    assert [{c: r[c] for c in cols} for r in ours_data] == [{c: r[c] for c in cols} for r in data]

    predictions = ["4", "Paris, France, a city that is the capital of France.", "Blue."]
    theirs = unitxt.evaluate(predictions=predictions, data=data)
    their_bodies = take(server)
    ours = unitxt_rs.evaluate(predictions=predictions, data=ours_data)
    our_bodies = take(server)

    assert their_bodies and our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        same(a["score"]["instance"], b["score"]["instance"], f"instance {i}")
    same(dict(ours.global_scores), dict(theirs.global_scores), "global")
