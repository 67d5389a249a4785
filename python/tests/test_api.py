"""Tests of the unitxt_rs Python API against the Unitxt 1.26.10 oracle and the CLI.

The golden outputs are written by scripts/test.sh before pytest runs:
- target/oracle/<key>.jsonl: the rows of Unitxt's `load_dataset(recipe, split=...)` for each
  recipe of tests/oracle_recipes.tsv (or <key>.error when Unitxt refuses it);
- target/oracle-eval/<key>.json: Unitxt's `evaluate` scores on derived predictions for each
  recipe of tests/oracle_eval_recipes.tsv.
The environment (HF_HUB_CACHE, HF_HUB_OFFLINE, UNITXT_CATALOGS) comes from scripts/test.sh.
"""

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

import datasets
import pytest

import unitxt_rs

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from oracle import media_bytes  # noqa: E402  (the golden rows' form of media bytes)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.path.join(ROOT, "target", "debug", "unitxt-rs")
EXAMPLE = "card=cards.example.capitals,template=templates.example.capital,num_demos=2,demos_pool_size=4"
SST2 = "card=cards.sst2,template=templates.classification.multi_class.instruction,num_demos=2,demos_pool_size=20,max_test_instances=30"


def key(split, recipe):
    return hashlib.sha1(f"{split}\t{recipe}".encode()).hexdigest()[:16]


def recipes(name):
    out = []
    for line in open(os.path.join(ROOT, "tests", name), encoding="utf-8"):
        line = line.rstrip("\n")
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(tuple(line.split("\t", 1)))
    return out


@pytest.fixture(autouse=True)
def _example_catalog(monkeypatch):
    # The example card's CSV paths are relative to the repository root.
    monkeypatch.chdir(ROOT)
    unitxt_rs.register_local_catalog(os.path.join(ROOT, "examples", "catalog"))


def rows(ds):
    return [ds[i] for i in range(len(ds))]


def cli_rows(recipe, split, *extra):
    out = subprocess.run(
        [CLI, "prepare", recipe, "--split", split, "--catalog", os.path.join(ROOT, "examples", "catalog"), *extra],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("split,recipe", recipes("oracle_recipes.tsv"), ids=lambda x: x[:80])
def test_load_dataset_equals_unitxt(split, recipe):
    base = os.path.join(ROOT, "target", "oracle", key(split, recipe))
    if os.path.exists(base + ".error"):
        with pytest.raises(unitxt_rs.UnitxtRsError):
            unitxt_rs.load_dataset(recipe, split=split)
        return
    golden = [json.loads(line) for line in open(base + ".jsonl", encoding="utf-8")]
    ds = unitxt_rs.load_dataset(recipe, split=split)
    assert isinstance(ds, datasets.Dataset)
    # Images as the oracle writes them: the file's kind, not its bytes (an image Unitxt draws
    # with matplotlib cannot be reproduced; test_images_are_the_cli_images checks ours).
    ours = [json.loads(json.dumps(row, ensure_ascii=False, default=media_bytes)) for row in rows(ds)]
    assert len(ours) == len(golden)
    for i, (a, b) in enumerate(zip(ours, golden)):
        assert a == b, f"instance {i} differs"


def test_features_are_unitxt_schema():
    from unitxt.schema import UNITXT_DATASET_SCHEMA

    ds = unitxt_rs.load_dataset(EXAMPLE, split="test")
    # Unitxt's schema, with images not decoded: rows give them as Unitxt's own rows do.
    expected = UNITXT_DATASET_SCHEMA.copy()
    expected["media"]["images"] = datasets.List(datasets.Image(decode=False))
    assert ds.features == expected
    assert ds.features["media"]["images"] != UNITXT_DATASET_SCHEMA["media"]["images"]
    assert ds.split == "test"


TABLE_IMAGE = "card=cards.tables,template_card_index=0,serializer=serializers.table.image"


def test_images_are_the_cli_images():
    import base64

    ds = unitxt_rs.load_dataset(TABLE_IMAGE, split="test")
    cli = cli_rows(TABLE_IMAGE, "test")
    assert len(ds) == len(cli) == 5
    for ours, theirs in zip(rows(ds), cli):
        (image,) = ours["media"]["images"]
        (cli_image,) = theirs["media"]["images"]
        assert image["path"] is None
        assert cli_image["format"] == "png"  # as Unitxt's serializer names it
        head, data = cli_image["image"].split(",", 1)
        assert head == "data:image/png;base64"
        assert image["bytes"] == base64.b64decode(data)
        assert ours["media"]["audios"] == []
    # The same rows streaming, and the bytes decode to the table's picture.
    assert list(unitxt_rs.load_dataset(TABLE_IMAGE, split="test", streaming=True)) == rows(ds)
    from PIL import Image
    import io

    assert Image.open(io.BytesIO(rows(ds)[0]["media"]["images"][0]["bytes"])).mode == "RGBA"
    # The dataset, images included, is evaluated as it is (read back from Arrow).
    scores = unitxt_rs.evaluate(predictions=[r["target"] for r in rows(ds)], data=ds).global_scores
    assert (scores["score_name"], scores["score"], scores["num_of_instances"]) == ("accuracy", 1.0, 5)


def test_load_dataset_equals_cli():
    for recipe in (EXAMPLE, SST2, SST2 + ",format=formats.chat_api"):
        ds = unitxt_rs.load_dataset(recipe, split="test")
        assert rows(ds) == cli_rows(recipe, "test")


def test_chat_source_is_a_list_of_messages():
    ds = unitxt_rs.load_dataset(SST2 + ",format=formats.chat_api", split="test")
    src = ds[0]["source"]
    assert isinstance(src, list) and src[0]["role"] == "system"
    # Stored as Unitxt stores it: JSON text in the Arrow table.
    assert ds.data.column("source")[0].as_py().startswith('[{"role": "system"')


def test_dataset_dict_without_split():
    dd = unitxt_rs.load_dataset(EXAMPLE)
    assert isinstance(dd, datasets.DatasetDict)
    assert list(dd.keys()) == ["train", "test"]
    assert (len(dd["train"]), len(dd["test"])) == (4, 6)  # 4 of the 8 train rows became the demos pool
    assert rows(dd["test"]) == rows(unitxt_rs.load_dataset(EXAMPLE, split="test"))


def test_keyword_arguments_equal_the_recipe_string():
    a = unitxt_rs.load_dataset(EXAMPLE, split="test")
    b = unitxt_rs.load_dataset(
        card="cards.example.capitals", template="templates.example.capital", num_demos=2, demos_pool_size=4, split="test"
    )
    c = unitxt_rs.load_dataset("card=cards.example.capitals,template=templates.example.capital", num_demos=2, demos_pool_size=4, split="test")
    assert rows(a) == rows(b) == rows(c)


def test_streaming_equals_non_streaming():
    ds = unitxt_rs.load_dataset(SST2, split="test")
    it = unitxt_rs.load_dataset(SST2, split="test", streaming=True)
    assert isinstance(it, datasets.IterableDataset)
    assert list(it) == rows(ds)
    # Iterable again (the recipe runs anew).
    assert len(list(it)) == len(ds)
    dd = unitxt_rs.load_dataset(EXAMPLE, streaming=True)
    assert isinstance(dd, datasets.IterableDatasetDict)
    assert list(dd["test"]) == rows(unitxt_rs.load_dataset(EXAMPLE, split="test"))


def test_fingerprint_follows_the_content():
    # The fingerprint is a digest of the rows: the same recipe gives the same one, other rows
    # another, and both splits of a dict get theirs.
    a = unitxt_rs.load_dataset(SST2, split="test")
    b = unitxt_rs.load_dataset(SST2, split="test")
    c = unitxt_rs.load_dataset(SST2.replace("num_demos=2", "num_demos=1"), split="test")
    assert a._fingerprint == b._fingerprint
    assert a._fingerprint != c._fingerprint
    assert len(a._fingerprint) == 16 and int(a._fingerprint, 16) >= 0
    dd = unitxt_rs.load_dataset(EXAMPLE)
    assert len({d._fingerprint for d in dd.values()}) == len(dd)
    # `map` works on it (and gives a new fingerprint).
    mapped = a.map(lambda r: {"n": len(r["target"])})
    assert mapped["n"] == [len(t) for t in a["target"]] and mapped._fingerprint != a._fingerprint


def test_in_memory_records_through_load_from_dictionary():
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"q": "2+2", "a": "4"}, {"q": "3+3", "a": "6"}]}},
        "task": {"__type__": "task", "input_fields": {"q": "str"}, "reference_fields": {"a": "str"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "Q: {q}", "output_format": "{a}"}],
    }
    ds = unitxt_rs.load_dataset(card=card, split="test")
    # Unitxt's default format ends the source with a newline (then the empty target prefix).
    assert list(ds["source"]) == ["Q: 2+2\n", "Q: 3+3\n"]
    assert list(ds["target"]) == ["4", "6"]
    res = unitxt_rs.evaluate(["4", "5"], data=ds, calc_confidence_intervals=False)
    assert res.global_scores["accuracy"] == 0.5


def test_parquet_output_loads_with_datasets():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "test.parquet")
        cli_rows(SST2 + ",format=formats.chat_api", "test", "--output", path)
        pq = datasets.load_dataset("parquet", data_files=path, split="train")
        ours = unitxt_rs.load_dataset(SST2 + ",format=formats.chat_api", split="test")
        assert pq.features == ours.features
        assert pq.data.table.equals(ours.data.table.select(pq.column_names))
        # The same rows once the chat source is decoded as Unitxt's datasets decode it.
        decoded = [dict(r, source=json.loads(r["source"])) for r in (pq[i] for i in range(len(pq)))]
        assert decoded == rows(ours)


def close(a, b, tol):
    if isinstance(b, str) and b in ("NaN", "Infinity", "-Infinity"):
        b = float(b.replace("Infinity", "inf"))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol
    return a == b


@pytest.mark.parametrize("split,recipe", recipes("oracle_eval_recipes.tsv"), ids=lambda x: x[:80])
def test_evaluate_equals_unitxt(split, recipe):
    path = os.path.join(ROOT, "target", "oracle-eval", key(split, recipe) + ".json")
    golden = json.load(open(path, encoding="utf-8"))
    ds = unitxt_rs.load_dataset(recipe, split=split)
    res = unitxt_rs.evaluate(golden["predictions"], data=ds)
    g = res.global_scores
    for name, value in golden["global"].items():
        tol = 1e-6 if "_ci_" in name else 1e-9
        assert name in g, name
        assert close(g[name], value, tol), (name, g[name], value)
    for i, (ours, theirs) in enumerate(zip(res.instance_scores, golden["instances"])):
        for name, value in theirs.items():
            assert close(ours[name], value, 1e-9), (i, name, ours[name], value)
    assert g.summary.startswith("| score_name")


def test_evaluate_list_of_dicts_equals_dataset():
    ds = unitxt_rs.load_dataset(SST2, split="test")
    preds = ["positive" if i % 3 else "negative" for i in range(len(ds))]
    a = unitxt_rs.evaluate(preds, data=ds)
    b = unitxt_rs.evaluate(preds, data=rows(ds))
    assert dict(a.global_scores) == dict(b.global_scores)
    assert a.instance_scores[0]["processed_prediction"] == "negative"


def test_evaluate_equals_cli():
    ds = unitxt_rs.load_dataset(SST2, split="test")
    preds = ["positive" if i % 3 else "Negative\nmore" for i in range(len(ds))]
    res = unitxt_rs.evaluate(preds, data=ds)
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "data.jsonl")
        with open(data, "w") as f:
            for r in cli_rows(SST2, "test"):
                f.write(json.dumps(r) + "\n")
        p = os.path.join(d, "p.json")
        json.dump(preds, open(p, "w"))
        out = os.path.join(d, "scores.json")
        subprocess.run([CLI, "evaluate", "--data", data, "--predictions", p, "--output", out], check=True, capture_output=True)
        cli = json.load(open(out))
    assert dict(res.global_scores) == cli["global"]


# ---- errors ---------------------------------------------------------------------------------


def test_unknown_artifact_is_a_key_error_with_suggestions():
    with pytest.raises(KeyError) as e:
        unitxt_rs.load_dataset("card=cards.sst3,template=templates.classification.multi_class.instruction", split="test")
    assert isinstance(e.value, unitxt_rs.ArtifactNotFoundError)
    assert isinstance(e.value, unitxt_rs.NotInCatalogError)
    assert e.value.name == "cards.sst3"
    assert "cards.sst3" in str(e.value) and "cards.sst2" in str(e.value)


def test_missing_split_names_the_available_ones():
    with pytest.raises(KeyError) as e:
        unitxt_rs.load_dataset(EXAMPLE, split="validation")
    assert isinstance(e.value, unitxt_rs.MissingSplitError)
    assert e.value.split == "validation" and set(e.value.available) == {"train", "test"}
    assert "train" in str(e.value) and "test" in str(e.value)


def test_errors_are_data():
    """The errors that callers act on are exception classes with their fields as attributes."""
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"q": "a", "a": "b"}]}},
        "task": {"__type__": "task", "input_fields": {"q": "str"}, "reference_fields": {"a": "str"}, "metrics": ["metrics.accuracy"]},
        "templatez": [],
    }
    with pytest.raises(unitxt_rs.UnknownFieldError) as e:
        unitxt_rs.load_dataset(card=card, split="test")
    assert (e.value.type, e.value.field, e.value.suggestion) == ("task_card", "templatez", "templates")
    assert isinstance(e.value, ValueError)
    del card["templatez"]
    card["templates"] = [{"__type__": "input_output_templat", "input_format": "{q}", "output_format": "{a}"}]
    with pytest.raises(unitxt_rs.UnknownTypeError) as t:
        unitxt_rs.load_dataset(card=card, split="test")
    assert (t.value.type, t.value.suggestion) == ("input_output_templat", "input_output_template")
    card["templates"] = [{"__type__": "input_output_template", "input_format": "{q}", "output_format": "{a}"}]
    card["task"]["metrics"] = []
    card["loader"] = {"__type__": "load_from_kaggle", "url": "x"}
    with pytest.raises(unitxt_rs.NeedsError) as n:
        unitxt_rs.load_dataset(card=card, split="test")
    assert n.value.need == "network" and "Kaggle" in n.value.reason
    with pytest.raises(unitxt_rs.MissingDemosSplitError) as d:
        unitxt_rs.load_dataset(EXAMPLE + ",num_demos=1,demos_pool_size=3,demos_taken_from=nosuch", split="test")
    assert d.value.split == "nosuch" and set(d.value.available) == {"train", "test"}


def test_bad_recipe_argument_is_a_value_error():
    with pytest.raises(ValueError) as e:
        unitxt_rs.load_dataset(EXAMPLE + ",num_demo=2", split="test")
    assert "num_demo" in str(e.value) and "num_demos" in str(e.value)
    with pytest.raises(ValueError):
        unitxt_rs.load_dataset(EXAMPLE, split="test", num_demos=object())


def test_errors_carry_their_location():
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"q": "a", "a": "b"}, {"q": "c", "a": 5}]}},
        "task": {"__type__": "task", "input_fields": {"q": "str"}, "reference_fields": {"a": "str"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{q}", "output_format": "{a}"}],
    }
    with pytest.raises(unitxt_rs.UnitxtRsError) as e:
        unitxt_rs.load_dataset(card=card, split="test")
    assert (e.value.split, e.value.instance, e.value.artifact) == ("test", 1, None)
    assert 'split "test", instance 1' in str(e.value)


def test_missing_data_file_is_a_file_not_found_error():
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_csv", "files": {"test": "/nonexistent/unitxt-rs/test.csv"}},
        "task": {"__type__": "task", "input_fields": ["q"], "reference_fields": ["a"], "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{q}", "output_format": "{a}"}],
    }
    with pytest.raises(FileNotFoundError) as e:
        unitxt_rs.load_dataset(card=card, split="test")
    assert "/nonexistent/unitxt-rs/test.csv" in str(e.value)


def test_failing_instance_is_located():
    card = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"x": "7"}, {"x": "seven"}]}},
        "preprocess_steps": [{"__type__": "execute_expression", "expression": "int(x) * 2", "to_field": "y"}],
        "task": {"__type__": "task", "input_fields": {"x": "str"}, "reference_fields": {"y": "int"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{x}", "output_format": "{y}"}],
    }
    with pytest.raises(ValueError) as e:
        unitxt_rs.load_dataset(card=card, split="test")
    msg = str(e.value)
    assert "int(x) * 2" in msg and 'split "test", instance 1' in msg, msg


def test_prediction_count_mismatch_names_both_counts():
    ds = unitxt_rs.load_dataset(EXAMPLE, split="test")
    with pytest.raises(ValueError) as e:
        unitxt_rs.evaluate(["Rome"], data=ds)
    assert "1 predictions for 6 instances" in str(e.value)


def test_unknown_metric_is_a_key_error():
    ds = unitxt_rs.load_dataset(EXAMPLE + ",metrics=[metrics.accuracyy]", split="test")
    with pytest.raises(KeyError) as e:
        unitxt_rs.evaluate(list(ds["target"]), data=ds)
    assert "metrics.accuracyy" in str(e.value)


def test_catalog_functions():
    t = unitxt_rs.get_from_catalog("templates.example.capital")
    assert t.to_dict()["__type__"] == t.__type__ == "input_output_template"
    assert t.__id__ == "templates.example.capital" and type(t).__name__ == "InputOutputTemplate"
    with pytest.raises(KeyError):
        unitxt_rs.get_from_catalog("templates.example.nope")
    with pytest.raises(FileNotFoundError):
        unitxt_rs.register_local_catalog("/nonexistent/catalog")
    assert os.path.join(ROOT, "examples", "catalog") in unitxt_rs.get_local_catalogs()


def test_seed_changes_demos_and_restores():
    base = list(unitxt_rs.load_dataset(SST2, split="test")["source"])
    unitxt_rs.set_seed(7)
    try:
        other = list(unitxt_rs.load_dataset(SST2, split="test")["source"])
    finally:
        unitxt_rs.set_seed(42)
    assert other != base
    assert list(unitxt_rs.load_dataset(SST2, split="test")["source"]) == base


def test_help_documents_arguments_returns_and_errors():
    doc = unitxt_rs.load_dataset.__doc__
    for word in ("Args:", "Returns:", "Raises:", "streaming", "DatasetDict", "IterableDataset", "ArtifactNotFoundError"):
        assert word in doc
    assert "Raises:" in unitxt_rs.evaluate.__doc__
