"""``unitxt_rs.llm_as_judge_constants`` and the criteria operators of ``unitxt_rs.llm_as_judge``
against Unitxt 1.26.10: the enums and metadata member by member, the predefined criteria
(read from the catalog here, made in code by Unitxt) field by field, and each operator's output
as it shows in prepared instances (the prompt prints the criteria object, ``task_data`` holds what
Unitxt's ``FinalizeDataset`` writes for it), on the same cards.

The environment (HF_HUB_CACHE, HF_HUB_OFFLINE, UNITXT_CATALOGS) comes from scripts/test.sh.
"""

import json
import subprocess
import sys

import pytest

import unitxt_rs


def _pairs(enum):
    return [(m.name, m.value) for m in enum]


def test_enums_and_metadata_equal_unitxt():
    import unitxt.llm_as_judge_constants as theirs

    import unitxt_rs.llm_as_judge_constants as ours

    for name in ("OptionSelectionStrategyEnum", "EvaluatorTypeEnum", "EvaluatorNameEnum", "ModelProviderEnum"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert _pairs(a) == _pairs(b), name
        assert list(a.__members__) == list(b.__members__), name
        assert issubclass(a, str), name
    assert {k.name: v for k, v in ours.EVALUATOR_TO_MODEL_ID.items()} == {
        k.name: v for k, v in theirs.EVALUATOR_TO_MODEL_ID.items()
    }
    assert list(map(str, ours.EVALUATOR_TO_MODEL_ID)) == list(map(str, theirs.EVALUATOR_TO_MODEL_ID))
    meta = lambda ms: [(m.name.name, [p.name for p in m.providers]) for m in ms]  # noqa: E731
    assert meta(ours.EVALUATORS_METADATA) == meta(theirs.EVALUATORS_METADATA)
    assert all(isinstance(m, ours.EvaluatorMetadata) for m in ours.EVALUATORS_METADATA)
    # The values are the strings Unitxt's are (str enums compare equal to their values).
    assert ours.EvaluatorNameEnum.GPT4o == theirs.EvaluatorNameEnum.GPT4o == "GPT-4o"
    assert json.dumps(ours.ModelProviderEnum.OPENAI) == '"open-ai"'


def _criteria_fields(c):
    return (
        type(c).__name__,
        c.name,
        c.description,
        c.prediction_field,
        c.context_fields,
        [(o.name, o.description) for o in c.options] if getattr(c, "options", None) is not None else None,
        getattr(c, "option_map", None),
    )


@pytest.mark.parametrize("enum_name", ["DirectCriteriaCatalogEnum", "PairwiseCriteriaCatalogEnum"])
def test_predefined_criteria_equal_unitxt(enum_name):
    import unitxt.llm_as_judge_constants as theirs

    import unitxt_rs.llm_as_judge_constants as ours

    a, b = getattr(ours, enum_name), getattr(theirs, enum_name)
    assert list(a.__members__) == list(b.__members__)
    assert len(a) == len(b) > 0
    for ma, mb in zip(a, b):
        assert ma.name == mb.name
        assert _criteria_fields(ma.value) == _criteria_fields(mb.value), ma.name
        # The same JSON, key order included.
        assert ma.value.to_json() == mb.value.to_json(), ma.name
        # Made in code, as Unitxt's: no catalog name.
        assert ma.value.__id__ is None and mb.value.__id__ is None
        assert a[ma.name] is ma and a(ma.value) is ma
    lst = "DIRECT_CRITERIA" if enum_name.startswith("Direct") else "PAIRWISE_CRITERIA"
    assert [c.to_json() for c in getattr(ours, lst)] == [c.to_json() for c in getattr(theirs, lst)]


def test_criteria_helpers_equal_unitxt():
    import unitxt.llm_as_judge_constants as theirs

    import unitxt_rs.llm_as_judge_constants as ours

    for args, kw in [(("response", ["question"]), {}), (("answer", []), {"name": "n", "description": "d", "bigger_is_better": False})]:
        assert ours.get_yes_no_criteria(*args, **kw).to_json() == theirs.get_yes_no_criteria(*args, **kw).to_json()
    for args, kw in [
        (("n", "is it good?", "response", ["q"]), {}),
        (("n", "d", "summary", ["article"]), {"low_short_description": "bad", "high_short_description": "great"}),
    ]:
        assert ours.get_likert_scale_criteria(*args, **kw).to_json() == theirs.get_likert_scale_criteria(*args, **kw).to_json()


def test_import_reads_no_catalog():
    """Importing the module (and ``unitxt_rs.llm_as_judge``) makes no predefined criteria; they
    are made on first use."""
    code = (
        "import unitxt_rs.llm_as_judge_constants as c, unitxt_rs.llm_as_judge as j\n"
        "assert 'DirectCriteriaCatalogEnum' not in vars(c)\n"
        "assert j.DirectCriteriaCatalogEnum is c.DirectCriteriaCatalogEnum\n"
        "assert j.EvaluatorNameEnum is c.EvaluatorNameEnum\n"
        "assert 'DirectCriteriaCatalogEnum' in vars(c)\n"
        "print(len(c.DIRECT_CRITERIA), len(c.PAIRWISE_CRITERIA))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["63", "7"]


def test_enum_value_as_a_judges_criteria():
    """A predefined criteria given to ``LLMJudgeDirect`` is held inline, as in Unitxt."""
    from unitxt.inference import MockInferenceEngine as TheirEngine
    from unitxt.llm_as_judge import LLMJudgeDirect as TheirJudge
    from unitxt.llm_as_judge_constants import DirectCriteriaCatalogEnum as TheirEnum

    from unitxt_rs.inference import MockInferenceEngine
    from unitxt_rs.llm_as_judge import LLMJudgeDirect
    from unitxt_rs.llm_as_judge_constants import DirectCriteriaCatalogEnum

    ours = LLMJudgeDirect(
        criteria=DirectCriteriaCatalogEnum.ANSWER_RELEVANCE.value, context_fields=["question"], inference_engine=MockInferenceEngine(model_name="m")
    )
    theirs = TheirJudge(criteria=TheirEnum.ANSWER_RELEVANCE.value, context_fields=["question"], inference_engine=TheirEngine(model_name="m", use_cache=False))
    assert json.dumps(ours.to_dict()["criteria"]) == json.dumps(theirs.to_dict()["criteria"])
    assert ours.criteria is DirectCriteriaCatalogEnum.ANSWER_RELEVANCE.value


# ---- the criteria operators, through cards ----------------------------------------------------

#: Operator type -> values of the field it reads (one instance each).
OPERATOR_CASES = {
    "create_yes_no_criteria_from_string": ["Is the answer correct?", "Très «bien»?", ""],
    "create_yes_no_partially_criteria_from_string": ["Is the answer polite?", "It's \"quoted\"\n"],
    "create_criteria_from_string": ["Which answer is funnier?", ""],
    "create_criteria_from_dict": [
        {"name": "n", "description": "d", "extra": 1},
        {"name": "p", "description": "Which one?", "prediction_field": "answer", "context_fields": {"q": "question"}},
    ],
    "create_criteria_from_json": [
        json.dumps({"description": "d", "name": "n", "context_fields": ["question"]}),
        '{"name": "x", "description": "y", "options": [], "option_map": {"a": 1}}',
    ],
    "create_criteria_with_options_from_dict": [
        {
            "name": "helpful",
            "description": "Is it helpful?",
            "options": [{"name": "Yes", "description": "It is."}, {"name": "No", "description": "", "x": 2}],
            "option_map": {"Yes": 1.0, "No": 0.0},
            "prediction_field": "answer",
        },
    ],
    "create_criteria_with_options_from_json": [
        json.dumps({"name": "", "description": "d", "options": [{"name": "A", "description": "a"}], "context_fields": "question"}),
    ],
    "load_criteria_with_options": [
        "metrics.llm_as_judge.direct.criteria.answer_relevance",
        "metrics.llm_as_judge.direct.criteria.conciseness[name=other]",
        json.dumps({"__type__": "criteria_with_options", "name": "j", "description": "d", "options": [{"__type__": "criteria_option", "name": "A", "description": ""}]}),
        {"__type__": "criteria", "name": "j", "description": "d", "context_fields": ["question"]},
    ],
    "load_criteria": [
        "metrics.llm_as_judge.pairwise.criteria.funny_joke",
        json.dumps({"__type__": "criteria", "name": "x", "description": "y"}),
    ],
}


def _operator_card(op_type, values):
    rows = [{"question": f"q{i}", "answer": f"a{i}", "raw": v} for i, v in enumerate(values)]
    return {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}},
        "preprocess_steps": [{"__type__": op_type, "field": "raw", "to_field": "criteria"}, {"__type__": "remove_fields", "fields": ["raw"]}],
        "task": {
            "__type__": "task",
            "input_fields": {"question": "str", "answer": "str", "criteria": "Any"},
            "reference_fields": {},
            "prediction_type": "str",
            "metrics": ["metrics.accuracy"],
        },
        "templates": [{"__type__": "input_output_template", "input_format": "{question} | {criteria}", "output_format": ""}],
    }


def _prepared(lib, card_name):
    ds = lib.load_dataset(f"card={card_name},template_card_index=0", split="test")
    return [(r["source"], json.loads(r["task_data"])) for r in ds]


@pytest.mark.parametrize("op_type", sorted(OPERATOR_CASES))
def test_criteria_operator_outputs_equal_unitxt(op_type, tmp_path):
    import unitxt
    from unitxt import register_local_catalog

    card = _operator_card(op_type, OPERATOR_CASES[op_type])
    catalog = tmp_path / "catalog"
    (catalog / "cards").mkdir(parents=True)
    # Names of their own per case: Unitxt keeps what it fetched by name for the process.
    (catalog / "cards" / f"criteria_op_{op_type}.json").write_text(json.dumps(card))
    register_local_catalog(str(catalog))
    unitxt_rs.register_local_catalog(str(catalog))
    theirs = _prepared(unitxt, f"cards.criteria_op_{op_type}")
    ours = _prepared(unitxt_rs, f"cards.criteria_op_{op_type}")
    assert len(ours) == len(OPERATOR_CASES[op_type])
    assert ours == theirs
    # And what the task data holds reads back as the same criteria in both libraries.
    for (_, td), (_, their_td) in zip(ours, theirs):
        assert json.dumps(td["criteria"]) == json.dumps(their_td["criteria"])


@pytest.mark.parametrize(
    "op_type,value",
    [
        ("create_criteria_from_json", "{not json"),
        ("create_criteria_with_options_from_dict", {"name": "x", "description": "d"}),
        ("create_criteria_from_dict", {"name": "x"}),
        ("load_criteria_with_options", "metrics.llm_as_judge.direct.criteria.no_such_criteria"),
    ],
)
def test_criteria_operator_errors(op_type, value, tmp_path):
    """Where Unitxt raises, preparing fails here too (with one of the package's errors)."""
    import unitxt
    from unitxt import register_local_catalog

    card = _operator_card(op_type, [value])
    catalog = tmp_path / "catalog"
    (catalog / "cards").mkdir(parents=True)
    name = f"criteria_bad_{op_type}_{abs(hash(json.dumps(value))) % 10**8}"
    (catalog / "cards" / f"{name}.json").write_text(json.dumps(card))
    register_local_catalog(str(catalog))
    unitxt_rs.register_local_catalog(str(catalog))
    with pytest.raises(Exception):
        _prepared(unitxt, f"cards.{name}")
    with pytest.raises(unitxt_rs.UnitxtRsError):
        _prepared(unitxt_rs, f"cards.{name}")
