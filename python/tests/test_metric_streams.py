"""Metrics and operators applied to multi-streams of plain dicts (``unitxt_rs.stream``,
``unitxt_rs.operator``), against Unitxt 1.26.10 running the same script on the same dicts:
the pattern of Unitxt's ``examples/evaluate_external_rag_results_with_binary_llm_as_judge.py``
(``SequentialOperator(steps=[f"{metric}[inference_model={engine}]"])(multi_stream)["test"]``)
with the RAG judges of the catalog calling an OpenAI-compatible server on 127.0.0.1 in a thread,
and a plain metric on dicts with ``prediction`` and ``references``.

The environment (HF_HUB_CACHE, HF_HUB_OFFLINE, UNITXT_CATALOGS) comes from scripts/test.sh.
"""

import hashlib
import json

import pytest

import scripted_server
import unitxt_rs
from scripted_server import same, take
from unitxt_rs.errors import InvalidInputError, UnsupportedError

FAITHFULNESS = "metrics.rag.external_rag.faithfulness.llama_3_3_70b_instruct_watsonx_judge"
CORRECTNESS = "metrics.rag.external_rag.answer_correctness.llama_3_3_70b_instruct_watsonx_judge"

# The example's instances (its toy RAG answers), and one without `metadata`.
EXAMPLES = [
    {
        "question": "What foundation models are available in watsonx.ai ?",
        "answer": "Watsonx.ai supports no foundation models",
        "contexts": ["Supported foundation models available with watsonx.ai. Watsonx.ai offers numerous foundation models."],
        "ground_truths": ["Many Large Language Models are supported by Watsonx.ai"],
        "metadata": {"data_classification_policy": ["public"]},
    },
    {
        "question": "What foundation models are available in watsonx.ai ?",
        "answer": "Watsonx.ai supports a variety of foundation models",
        "contexts": ["Supported foundation models available with Meta. Meta AI offers numerous foundation models."],
        "ground_truths": ["Many Large Language Models are supported by Watsonx.ai"],
        "metadata": {"data_classification_policy": ["public"]},
    },
    {
        "question": "Which city is the capital of France — « Paris » ?",
        "answer": "Meta.ai supports a variety of foundation models",
        "contexts": ["Paris is France's capital.", "Lyon is a city."],
        "ground_truths": ["Paris"],
        "metadata": {"data_classification_policy": ["public"]},
    },
    {
        "question": "What foundation models are available in watsonx.ai ?",
        "answer": "Watsonx.ai supports a variety of foundation models, the most prominent are Llama, Mixtral and Granite.",
        "contexts": ["Supported foundation models available with Meta. Meta AI offers numerous foundation models."],
        "ground_truths": ["Many Large Language Models are supported by Watsonx.ai"],
        "metadata": {"data_classification_policy": ["public"]},
    },
    {
        "question": "What color is the sky?",
        "answer": "never gonna give you up, never gonna let you down.",
        "contexts": ["The sky is blue by day."],
        "ground_truths": ["blue"],
    },
]


def _answer(body):
    """A groundedness word or a 0-10 rating, chosen by a hash of the body: both libraries must
    send the same bodies to get the same answers."""
    h = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
    if "Reply with one of the 4 options" in json.dumps(body):
        return ["Completely grounded.", "Mostly grounded", "Not grounded", "Somewhat grounded", "I do not know"][h % 5]
    return [f"{h % 11}", f"{h % 10}.5 out of 10", "no rating"][h % 3]


@pytest.fixture(scope="module")
def server():
    srv = scripted_server.start(_answer, usage=(7, 3))
    yield srv
    scripted_server.stop(srv)


@pytest.fixture(scope="module")
def engine(server, tmp_path_factory):
    """The catalog name of an ``open_ai_inference_engine`` on the local server, in a catalog
    directory registered with both libraries (its name holds the port: Unitxt keeps what it
    fetched by name)."""
    from unitxt import register_local_catalog

    port = server.server_address[1]
    name = f"engines.stream_test.judge_{port}"
    catalog = tmp_path_factory.mktemp("catalog")
    path = catalog.joinpath(*name.split(".")).with_suffix(".json")
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "__type__": "open_ai_inference_engine",
                "model_name": "judge-model",
                "base_url": f"http://127.0.0.1:{port}/v1",
                "credentials": {"api_key": "k"},
                "temperature": 0,
                "use_cache": False,
            }
        )
    )
    register_local_catalog(str(catalog))
    unitxt_rs.register_local_catalog(catalog)
    return name


def _run_example(operator_module, stream_module, steps, examples):
    """Unitxt's script: a multi-stream of copies of ``examples``, the steps applied, the
    ``test`` stream read."""
    multi_stream = stream_module.MultiStream.from_iterables({"test": examples}, copying=True)
    # A new list each time: Unitxt's operator replaces the names in it by the artifacts.
    return list(operator_module.SequentialOperator(steps=list(steps))(multi_stream)["test"])


@pytest.mark.parametrize("metric", [FAITHFULNESS, CORRECTNESS])
def test_external_rag_judge_on_dicts_equals_unitxt(metric, server, engine):
    import unitxt.operator
    import unitxt.stream

    import unitxt_rs.operator
    import unitxt_rs.stream

    steps = [f"{metric}[inference_model={engine}]"]
    theirs = _run_example(unitxt.operator, unitxt.stream, steps, EXAMPLES)
    their_bodies = take(server)
    ours = _run_example(unitxt_rs.operator, unitxt_rs.stream, steps, EXAMPLES)
    our_bodies = take(server)

    assert len(their_bodies) == len(EXAMPLES)
    assert our_bodies == their_bodies
    assert len(ours) == len(theirs) == len(EXAMPLES)
    # What the script reads: the judge's score and prompt per instance, and the global score.
    score_name = theirs[0]["score"]["instance"]["score_name"]
    assert ours[0]["score"]["instance"]["score_name"] == score_name
    for i, (a, b) in enumerate(zip(ours, theirs)):
        same(a["score"]["instance"][score_name], b["score"]["instance"][score_name], f"instance {i} score")
        assert a["score"]["instance"][f"{score_name}_judge_raw_input"] == b["score"]["instance"][f"{score_name}_judge_raw_input"]
        # The whole instance: the fields given, task_data (the instance itself), prediction
        # None, references [""], and every instance and global score.
        same(a, b, f"instance {i}")
    same(ours[0]["score"]["global"], theirs[0]["score"]["global"], "global")
    # The dicts given are left as they were (copying=True).
    assert all("score" not in e and "task_data" not in e for e in EXAMPLES)


def test_both_judges_in_one_sequence_equal_unitxt(server, engine):
    """Two judges as steps of one operator: the second adds its scores to the first's."""
    import unitxt.operator
    import unitxt.stream

    import unitxt_rs.operator
    import unitxt_rs.stream

    steps = [f"{FAITHFULNESS}[inference_model={engine}]", f"{CORRECTNESS}[inference_model={engine}]"]
    theirs = _run_example(unitxt.operator, unitxt.stream, steps, EXAMPLES[:3])
    their_bodies = take(server)
    ours = _run_example(unitxt_rs.operator, unitxt_rs.stream, steps, EXAMPLES[:3])
    our_bodies = take(server)
    assert len(their_bodies) == 6
    assert our_bodies == their_bodies
    for i, (a, b) in enumerate(zip(ours, theirs)):
        same(a, b, f"instance {i}")
    assert ours[0]["score"]["global"]["score_name"].endswith("answer_correctness_judge")


def test_the_example_script_loop(server, engine):
    """The example's loop as written (results table filled from each metric's scores), with
    both libraries."""
    import unitxt.operator
    import unitxt.stream

    import unitxt_rs.operator
    import unitxt_rs.stream

    def script(operator_module, stream_module):
        multi_stream = stream_module.MultiStream.from_iterables({"test": EXAMPLES}, copying=True)
        results = [dict(e) for e in EXAMPLES]
        global_scores = {"question": "global"}
        for metric_name in [CORRECTNESS, FAITHFULNESS]:
            metrics_operator = operator_module.SequentialOperator(steps=[f"{metric_name}[inference_model={engine}]"])
            instances = list(metrics_operator(multi_stream)["test"])
            score_name = instances[0]["score"]["instance"]["score_name"]
            for i in range(len(instances)):
                results[i][score_name] = instances[i]["score"]["instance"][score_name]
                results[i][f"{score_name}_source"] = instances[i]["score"]["instance"][f"{score_name}_judge_raw_input"]
            global_scores[score_name] = instances[0]["score"]["global"][score_name]
        return results, global_scores

    theirs = script(unitxt.operator, unitxt.stream)
    their_bodies = take(server)
    ours = script(unitxt_rs.operator, unitxt_rs.stream)
    assert take(server) == their_bodies
    same(ours, theirs, "results")


ACCURACY_ROWS = [
    {"prediction": "yes", "references": ["yes"], "id": 1},
    {"prediction": "no", "references": ["yes", "no"], "id": 2},
    {"prediction": "maybe", "references": ["no"], "id": 3},
    {"prediction": "yes", "references": ["no"], "id": 4, "task_data": {"k": "v"}},
]


def test_accuracy_on_dicts_equals_unitxt():
    import unitxt.operator
    import unitxt.stream

    import unitxt_rs.operator
    import unitxt_rs.stream

    theirs = _run_example(unitxt.operator, unitxt.stream, ["metrics.accuracy"], ACCURACY_ROWS)
    ours = _run_example(unitxt_rs.operator, unitxt_rs.stream, ["metrics.accuracy"], ACCURACY_ROWS)
    same(ours, theirs, "accuracy")
    assert ours[1]["score"]["instance"]["accuracy"] == 1.0
    assert ours[0]["score"]["global"]["accuracy"] == 0.5


def test_metric_object_called_on_a_multistream_with_two_splits():
    """A metric object called on the multi-stream scores each split on its own, as Unitxt's."""
    import unitxt.metrics
    import unitxt.stream

    import unitxt_rs.metrics
    import unitxt_rs.stream

    data = {"train": ACCURACY_ROWS[:2], "test": ACCURACY_ROWS[2:]}
    theirs = unitxt.metrics.Accuracy()(unitxt.stream.MultiStream.from_iterables(data, copying=True))
    ours = unitxt_rs.metrics.Accuracy()(unitxt_rs.stream.MultiStream.from_iterables(data, copying=True))
    assert isinstance(ours, unitxt_rs.stream.MultiStream)
    assert list(ours) == list(theirs) == ["train", "test"]
    for split in ours:
        same(list(ours[split]), list(theirs[split]), split)
    assert list(ours["train"])[0]["score"]["global"]["accuracy"] == 1.0


def test_operators_on_a_multistream_equal_unitxt():
    """Non-metric steps (Rename, Set) run on the streams, then a metric on their output."""
    import unitxt.operator
    import unitxt.operators
    import unitxt.stream

    import unitxt_rs.operator
    import unitxt_rs.operators
    import unitxt_rs.stream

    rows = [{"pred": "a", "refs": ["a"]}, {"pred": "b", "refs": ["c"]}]

    def run(op, ops, st):
        steps = [ops.Rename(field_to_field={"pred": "prediction", "refs": "references"}), ops.Set(fields={"tag": "x"}), "metrics.accuracy"]
        return list(op.SequentialOperator(steps=steps)(st.MultiStream.from_iterables({"test": rows}, copying=True))["test"])

    theirs = run(unitxt.operator, unitxt.operators, unitxt.stream)
    ours = run(unitxt_rs.operator, unitxt_rs.operators, unitxt_rs.stream)
    same(ours, theirs, "rename, set, accuracy")
    assert ours[1]["tag"] == "x" and ours[1]["score"]["instance"]["accuracy"] == 0.0


def test_errors():
    from unitxt_rs.operator import SequentialOperator
    from unitxt_rs.stream import MultiStream

    ms = MultiStream.from_iterables({"test": [{"prediction": "a", "references": ["a"]}, {"references": ["a"]}]})
    with pytest.raises(InvalidInputError) as e:
        SequentialOperator(steps=["metrics.accuracy"])(ms)
    assert (e.value.split, e.value.instance, e.value.field) == ("test", 1, "prediction")
    with pytest.raises(InvalidInputError):
        SequentialOperator(steps=["metrics.accuracy"])([{"prediction": "a"}])
    with pytest.raises(InvalidInputError):
        SequentialOperator(steps=["metrics.accuracy"])(MultiStream.from_iterables({"test": [{"prediction": object(), "references": []}]}))
    with pytest.raises(UnsupportedError):
        SequentialOperator(steps=[{"__type__": "metrics_list", "items": ["metrics.accuracy"]}])(
            MultiStream.from_iterables({"test": [{"prediction": "a", "references": ["a"]}]})
        )


def test_users_python_operator_and_metric_on_a_multistream_equal_unitxt():
    """A user's InstanceOperator and InstanceMetric subclasses (called back into Python by the
    engine) applied to a multi-stream, as Unitxt applies its own."""
    import unitxt.metrics
    import unitxt.operator
    import unitxt.operators
    import unitxt.stream

    import unitxt_rs.metrics
    import unitxt_rs.operator
    import unitxt_rs.operators
    import unitxt_rs.stream

    def classes(operators, metrics):
        class StreamTestTopic(operators.InstanceOperator):
            def process(self, instance, stream_name=None):
                instance["prediction"] = f"[{instance['topic']}] {instance['prediction']}"
                return instance

        class StreamTestLength(metrics.InstanceMetric):
            main_score = "length"
            reduction_map = {"mean": ["length"]}

            def compute(self, references, prediction, task_data):
                return {"length": float(len(prediction)), "refs": float(len(references))}

        return StreamTestTopic(), StreamTestLength()

    rows = [
        {"prediction": "ab", "references": ["x"], "topic": "t"},
        {"prediction": "abcd", "references": ["x", "y"], "topic": "long"},
        {"prediction": "", "references": ["x"], "topic": "u"},
    ]

    def run(op, st, steps):
        return list(op.SequentialOperator(steps=steps)(st.MultiStream.from_iterables({"test": rows}, copying=True))["test"])

    theirs = run(unitxt.operator, unitxt.stream, list(classes(unitxt.operators, unitxt.metrics)))
    ours = run(unitxt_rs.operator, unitxt_rs.stream, list(classes(unitxt_rs.operators, unitxt_rs.metrics)))
    same(ours, theirs, "user's operator and metric")
    assert ours[1]["score"]["instance"]["length"] == 11.0
