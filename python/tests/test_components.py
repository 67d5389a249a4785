"""A user's Python components (operators, serializers, metrics) running inside the engine's
pipeline, against Unitxt 1.26.10 running the same subclasses (written against Unitxt's base
classes) on the real sst2 card (../shared/hf-hub).
"""

import copy
import importlib.util
import json
import os

import pytest

import unitxt_rs

from test_parity import close, plain

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEMPLATE = "templates.classification.multi_class.instruction"


@pytest.fixture(scope="module")
def unitxt(tmp_path_factory):
    """Unitxt, reading the HF cache offline (as scripts/oracle.py sets it up)."""
    import unitxt as u

    spec = importlib.util.spec_from_file_location("oracle", os.path.join(ROOT, "scripts", "oracle.py"))
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    tree = str(tmp_path_factory.mktemp("hf-offline"))
    oracle.offline_tree(os.environ["HF_HUB_CACHE"], tree)
    u.settings.hf_offline_datasets_path = tree
    oracle.skip_offline_retry_sleeps()
    return u


def rows(ds):
    return [dict(ds[i]) for i in range(len(ds))]


def components(FieldOperator, InstanceOperator, SingleTypeSerializer, InstanceMetric, GlobalMetric):
    """The same user components, on the bases of either library."""
    from typing import List

    class AddSuffix(FieldOperator):
        suffix: str = "!"

        def process_value(self, value):
            return value.strip() + self.suffix

    class WordCountType(FieldOperator):
        def process_value(self, value):
            return f"{len(value.split())}-word sentence"

    class Tag(InstanceOperator):
        def process(self, instance, stream_name=None):
            instance["text"] = f"[{stream_name}:{instance['label']}] {instance['text']}"
            return instance

    class Options(SingleTypeSerializer):
        serialized_type = List[str]

        def serialize(self, value, instance):
            return " | ".join(v.upper() for v in value)

    class WordOverlap(InstanceMetric):
        main_score = "overlap"
        reduction_map = {"mean": ["overlap"]}
        ci_scores = ["overlap"]

        def compute(self, references, prediction, task_data):
            p, r = set(str(prediction).lower().split()), set(str(references[0]).lower().split())
            overlap = len(p & r) / max(1, len(p | r))
            # A text field beside the scores: kept in the instance scores, as Unitxt keeps it.
            return {"overlap": overlap, "verdict": "match" if overlap == 1 else "miss", "pred_words": float(len(p))}

    class HitRate(GlobalMetric):
        main_score = "hit_rate"

        def compute(self, references, predictions, task_data):
            hits = [p == r[0] for p, r in zip(predictions, references)]
            # Text, a list and an integer beside the scores: kept in the instance and global
            # scores as computed, as Unitxt keeps them.
            return {"summary": f"{sum(hits)} of {len(hits)}", "hit_rate": sum(hits) / len(hits),
                    "misses": sorted({p for p, r in zip(predictions, references) if p != r[0]}),
                    "n": len(hits), "positives": float(sum(p == "positive" for p in predictions))}

    class Boom(FieldOperator):
        def process_value(self, value):
            if "film" in value:
                raise ValueError("no films here")
            return value

    return AddSuffix, WordCountType, Tag, Options, WordOverlap, HitRate, Boom


def ours():
    from unitxt_rs.metrics import GlobalMetric, InstanceMetric
    from unitxt_rs.operators import FieldOperator, InstanceOperator
    from unitxt_rs.serializers import SingleTypeSerializer

    return components(FieldOperator, InstanceOperator, SingleTypeSerializer, InstanceMetric, GlobalMetric)


def theirs():
    from unitxt.metrics import GlobalMetric, InstanceMetric
    from unitxt.operators import FieldOperator, InstanceOperator
    from unitxt.serializers import SingleTypeSerializer

    return components(FieldOperator, InstanceOperator, SingleTypeSerializer, InstanceMetric, GlobalMetric)


def sst2_card(lib, steps):
    """cards.sst2 with `steps` appended to its preprocess_steps."""
    if lib == "ours":
        card = unitxt_rs.get_from_catalog("cards.sst2")
        card.preprocess_steps = list(card.preprocess_steps) + steps
        return card
    from unitxt.artifact import fetch_artifact

    card = copy.deepcopy(fetch_artifact("cards.sst2")[0])
    card.preprocess_steps = list(card.preprocess_steps) + steps
    return card


def test_operators_equal_unitxts(unitxt):
    got = {}
    for lib, comps in (("ours", ours()), ("theirs", theirs())):
        AddSuffix, WordCountType, Tag, *_ = comps
        steps = [AddSuffix(field="text", suffix="?!"), WordCountType(field="text", to_field="text_type"), Tag()]
        load = unitxt_rs.load_dataset if lib == "ours" else unitxt.load_dataset
        got[lib] = rows(load(card=sst2_card(lib, steps), template=TEMPLATE, split="test", max_test_instances=25))
    assert len(got["ours"]) == 25
    assert "-word sentence" in got["ours"][0]["source"] and "[test:" in got["ours"][0]["source"]
    assert got["ours"] == got["theirs"]


def test_field_operator_with_process_every_value_equals_unitxts(unitxt):
    got = {}
    for lib, comps in (("ours", ours()), ("theirs", theirs())):
        AddSuffix = comps[0]
        steps = [AddSuffix(field="classes", process_every_value=True, suffix="s"), AddSuffix(field="label", suffix="s")]
        load = unitxt_rs.load_dataset if lib == "ours" else unitxt.load_dataset
        got[lib] = rows(load(card=sst2_card(lib, steps), template=TEMPLATE, split="train", max_train_instances=10))
    assert "negatives" in got["ours"][0]["source"]
    assert got["ours"] == got["theirs"]


def test_serializer_equals_unitxts(unitxt):
    got = {}
    for lib, comps in (("ours", ours()), ("theirs", theirs())):
        Options = comps[3]
        if lib == "ours":
            from unitxt_rs.serializers import MultiTypeSerializer
            from unitxt_rs.templates import InputOutputTemplate

            load = unitxt_rs.load_dataset
        else:
            from unitxt.serializers import MultiTypeSerializer
            from unitxt.templates import InputOutputTemplate

            load = unitxt.load_dataset
        tpl = InputOutputTemplate(input_format="{text} Options: {classes}", output_format="{label}",
                                  serializer=MultiTypeSerializer(serializers=[Options()]))
        got[lib] = rows(load(card="cards.sst2", template=tpl, split="test", max_test_instances=15))
    assert "NEGATIVE | POSITIVE" in got["ours"][0]["source"]
    # The template in task_data names the serializer by its class, as Unitxt does.
    ta = json.loads(got["ours"][0]["task_data"])
    assert ta["metadata"]["template"]["serializer"]["serializers"] == [{"__type__": "options"}]
    assert got["ours"] == got["theirs"]


def test_metrics_equal_unitxts(unitxt):
    results, data = {}, {}
    for lib, comps in (("ours", ours()), ("theirs", theirs())):
        WordOverlap, HitRate = comps[4], comps[5]
        load = unitxt_rs.load_dataset if lib == "ours" else unitxt.load_dataset
        ds = load(card="cards.sst2", template=TEMPLATE, metrics=[WordOverlap(), HitRate()], split="test",
                  max_test_instances=30)
        refs = [json.loads(r["task_data"])["label"] if isinstance(r["task_data"], str) else r["task_data"]["label"] for r in ds]
        preds = [r if i % 3 else ("positive good" if r == "negative" else "negative") for i, r in enumerate(refs)]
        ev = unitxt_rs.evaluate if lib == "ours" else unitxt.evaluate
        results[lib] = ev(preds, ds)
        data[lib] = rows(ds)
    # The instances name the metrics by their classes, as Unitxt's do.
    assert json.loads(data["ours"][0]["metrics"][0]) == {"__type__": "word_overlap"}
    assert data["ours"] == data["theirs"]
    g_ours, g_theirs = dict(results["ours"].global_scores), dict(results["theirs"].global_scores)
    assert "overlap_ci_low" in g_ours and "hit_rate_ci_low" in g_ours
    close(g_ours, g_theirs)
    assert g_ours["summary"] == "20 of 30" and g_ours["misses"] == ["negative", "positive good"]
    assert isinstance(g_ours["n"], int) and g_ours == g_theirs, (g_ours, g_theirs)
    assert list(g_ours) == list(g_theirs), "the global scores' order is Unitxt's"
    inst = plain(results["ours"].instance_scores)
    assert {s["verdict"] for s in inst} == {"match", "miss"}
    assert {s["summary"] for s in inst} == {"1 of 1", "0 of 1"} and inst[0]["n"] == 1
    close(inst, plain(results["theirs"].instance_scores))


def test_postprocessor_subclass_keeps_its_type_and_evaluates_as_unitxts(unitxt):
    """A FieldOperator subclass as a template's postprocessor: the instances name it by its
    class and its arguments, and evaluation makes it again from that, as Unitxt does."""
    got, results = {}, {}
    for lib, comps in (("ours", ours()), ("theirs", theirs())):
        AddSuffix = comps[0]
        if lib == "ours":
            from unitxt_rs.templates import InputOutputTemplate

            load, ev = unitxt_rs.load_dataset, unitxt_rs.evaluate
        else:
            from unitxt.templates import InputOutputTemplate

            load, ev = unitxt.load_dataset, unitxt.evaluate
        tpl = InputOutputTemplate(input_format="{text}", output_format="{label}",
                                  postprocessors=[AddSuffix(field="prediction", suffix="ive"), "processors.lower_case"])
        ds = load(card="cards.sst2", template=tpl, split="test", max_test_instances=12)
        got[lib] = rows(ds)
        results[lib] = ev(["posit", "NEGAT", "neutral"] * 4, ds)
    assert json.loads(got["ours"][0]["postprocessors"][0]) == {"__type__": "add_suffix", "field": "prediction", "suffix": "ive"}
    assert got["ours"] == got["theirs"]
    close(dict(results["ours"].global_scores), dict(results["theirs"].global_scores))
    # (Unitxt's result rows hold its postprocessor objects, which print as their repr.)
    def strip(res):
        return [{k: v for k, v in r.items() if k != "postprocessors"} for r in plain(res)]

    close(strip(results["ours"]), strip(results["theirs"]))
    assert [r["processed_prediction"] for r in results["ours"]][:3] == ["positive", "negative", "neutralive"]


def test_exception_in_a_component_is_a_unitxt_rs_error():
    Boom = ours()[6]
    with pytest.raises(unitxt_rs.UnitxtRsError) as e:
        unitxt_rs.load_dataset(card=sst2_card("ours", [Boom(field="text")]), template=TEMPLATE, split="test",
                               max_test_instances=50)
    msg = str(e.value)
    assert "Boom" in msg and "ValueError" in msg and "no films here" in msg, msg
    assert e.value.split == "test" and isinstance(e.value.instance, int), msg
    # The interpreter is alive and the engine still works.
    assert len(unitxt_rs.load_dataset(card="cards.sst2", template=TEMPLATE, split="test", max_test_instances=3)) == 3


def test_exception_in_a_metric_is_a_unitxt_rs_error():
    from unitxt_rs.metrics import InstanceMetric

    class Broken(InstanceMetric):
        main_score = "x"
        reduction_map = {"mean": ["x"]}

        def compute(self, references, prediction, task_data):
            raise KeyError("missing thing")

    ds = unitxt_rs.load_dataset(card="cards.sst2", template=TEMPLATE, metrics=[Broken()], split="test", max_test_instances=3)
    with pytest.raises(unitxt_rs.UnitxtRsError) as e:
        unitxt_rs.evaluate(["positive"] * 3, ds)
    assert "Broken" in str(e.value) and "missing thing" in str(e.value)


def test_unknown_argument_of_a_component_is_an_error():
    AddSuffix = ours()[0]
    with pytest.raises(unitxt_rs.InvalidInputError):
        AddSuffix(field="text", sufix="!")


def test_stubs_declare_every_class_with_its_arguments():
    """The generated `.pyi` stubs name each class of the artifact modules, with the keyword
    arguments the class accepts, and the component bases."""
    import ast
    import inspect

    from unitxt_rs._unitxt_names import NAMES
    from unitxt_rs.artifact import MODULE_CLASSES

    pkg = os.path.dirname(unitxt_rs.__file__)
    for mod, classes in MODULE_CLASSES.items():
        path = os.path.join(pkg, mod + ".pyi")
        if os.path.exists(os.path.join(pkg, mod + ".py")):
            continue
        tree = ast.parse(open(path, encoding="utf-8").read())
        stubbed = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        for cls in classes:
            assert cls.__name__ in stubbed, f"{mod}.pyi lacks {cls.__name__}"
            init = next(n for n in stubbed[cls.__name__].body if isinstance(n, ast.FunctionDef))
            args = {a.arg for a in init.args.args + init.args.kwonlyargs} - {"self"}
            for a in NAMES[cls.__type__][2]:
                assert a in args, f"{mod}.{cls.__name__} stub lacks {a}"
    ops = open(os.path.join(pkg, "operators.pyi"), encoding="utf-8").read()
    assert "FieldOperator as FieldOperator" in ops and "InstanceOperator as InstanceOperator" in ops
    assert inspect.isclass(unitxt_rs.metrics.InstanceMetric)



def test_inline_template_postprocessors_are_json_as_unitxts(unitxt):
    """A template's postprocessors given as objects reach the instance's `postprocessors` as
    their JSON text (Unitxt's `Artifact.to_json`), and post_process/evaluate read them back."""
    got, res = {}, {}
    for lib in ("ours", "theirs"):
        if lib == "ours":
            from unitxt_rs.processors import LowerCaseTillPunc, PostProcess
            from unitxt_rs.templates import InputOutputTemplate

            u = unitxt_rs
        else:
            from unitxt.processors import LowerCaseTillPunc, PostProcess
            from unitxt.templates import InputOutputTemplate

            u = unitxt
        tpl = InputOutputTemplate(input_format="{text}", output_format="{label}",
                                  postprocessors=[PostProcess(operator=LowerCaseTillPunc()), "processors.to_string_stripped"])
        ds = u.load_dataset(card="cards.sst2", template=tpl, split="test", max_test_instances=12)
        got[lib] = rows(ds)
        preds = ["Positive. really", " NEGATIVE", "x"] * 4
        res[lib] = (u.post_process(preds, ds), dict(u.evaluate(preds, ds).global_scores))
    inline = '{\n    "__type__": "post_process",\n    "operator": {\n        "__type__": "lower_case_till_punc"\n    }\n}'
    assert got["ours"][0]["postprocessors"] == [inline, "processors.to_string_stripped"]
    for a, b in zip(got["ours"], got["theirs"]):
        ta, tb = json.loads(a.pop("task_data")), json.loads(b.pop("task_data"))
        assert ta == tb
        assert a == b
    assert res["ours"][0] == res["theirs"][0]
    close(res["ours"][1], res["theirs"][1])


@pytest.mark.parametrize("fmt", ["formats.empty", "formats.chat_api"])
def test_produce_with_demos_equals_unitxts(unitxt, fmt):
    """produce with num_demos: the demos pool from the card's train split, as Unitxt's."""
    recipe = f"card=cards.sst2,template={TEMPLATE},format={fmt},num_demos=2,demos_pool_size=10"
    common = {"text_type": "sentence", "classes": ["negative", "positive"], "type_of_class": "sentiment"}

    def inst():  # Unitxt's produce adds fields to the dicts it is given: fresh ones each time
        return [{"text": "A joy.", **common}, {"text": "Dull café.", **common}, {"text": "Fine.", "label": "positive", **common}]

    ours, theirs = unitxt_rs.produce(inst(), recipe), unitxt.produce(inst(), recipe)
    assert len(ours) == 3 and ours[0]["source"] != unitxt_rs.produce(inst(), recipe.replace("num_demos=2,demos_pool_size=10", ""))[0]["source"]
    assert rows(ours) == rows(theirs)
    assert unitxt_rs.produce(inst()[0], recipe) == unitxt.produce(inst()[0], recipe)
