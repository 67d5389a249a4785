"""`unitxt_rs.ray.prepare` on a local Ray cluster gives `load_dataset`'s rows, in order.

The cluster has two CPUs, and each recipe runs with two workers (Ray actors, separate
processes). Recipes come from tests/oracle_recipes.tsv, whose rows `test_api.py` checks against
Unitxt 1.26.10: with and without demos, a demos pool taken from the split being prepared,
drawn numbers of demos, drawn templates, a chat format, a train split, and a benchmark.

Needs `ray` (the `[ray]` extra) and `unitxt_rs`; a missing one fails the tests, it does not
skip them. The data is read from the Hugging Face cache (HF_HUB_CACHE, offline).
"""

import importlib
import os
from pathlib import Path

import pyarrow as pa
import pytest

REPO = Path(__file__).resolve().parents[2]
os.environ.setdefault("HF_HUB_CACHE", str(REPO.parent / "shared" / "hf-hub"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.fail(f"cannot import {name} ({err}); install it in the test venv", pytrace=False)


def _oracle_recipes():
    out = []
    for line in (REPO / "tests" / "oracle_recipes.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            split, recipe = line.split("\t", 1)
            out.append((split, recipe))
    return out


CHOSEN = [
    # Demos (a pool from train), the acceptance recipe.
    "card=cards.sst2,template=templates.classification.multi_class.instruction,num_demos=2,demos_pool_size=20,max_test_instances=200",
    # Demos, a chat format (source stored as JSON text).
    "card=cards.mmlu.anatomy,template=templates.qa.multiple_choice.with_topic.helm,format=formats.chat_api,num_demos=3,demos_pool_size=5",
    # A number of demos drawn per instance.
    "card=cards.sst2,template=templates.classification.multi_class.title,format=formats.chat_api,num_demos=[1,2,3],demos_pool_size=15,max_test_instances=80",
    # The demos pool taken from the split being prepared.
    "card=cards.ag_news,template_card_index=1,num_demos=1,demos_pool_size=5,demos_taken_from=test,max_test_instances=80",
    # A template drawn per instance, a system prompt and a model format.
    "card=cards.wnli,template=templates.classification.multi_class.relation.all,num_demos=1,demos_pool_size=5",
    "card=cards.wnli,template=templates.classification.multi_class.relation.default,system_prompt=system_prompts.models.llama2,format=formats.llama2,num_demos=3,demos_pool_size=30",
    # An augmentor and no demos.
    "card=cards.sst2,template=templates.classification.multi_class.instruction,augmentor=augmentors.text.whitespace_prefix_suffix,max_test_instances=60",
    # A card whose preprocessing mixes splits (split_random_mix, on the driver).
    "card=cards.squad,template=templates.qa.with_context.simple,num_demos=1,demos_pool_size=10,max_test_instances=200",
    # A train split.
    "card=cards.stsb,template=templates.regression.two_texts.simple,max_train_instances=100",
    # A benchmark (prepared on the driver, spread over the cluster).
    "benchmarks.glue_small",
]
CASES = [(s, r) for s, r in _oracle_recipes() if r in CHOSEN]


def test_every_chosen_recipe_is_an_oracle_recipe():
    assert len(CASES) == len(CHOSEN)


@pytest.fixture(scope="module")
def cluster():
    ray = _import("ray")
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _collect(ray, ds):
    tables = ray.get(ds.to_arrow_refs())
    return pa.concat_tables(tables) if tables else None


@pytest.mark.parametrize("split,recipe", CASES, ids=[f"{s}:{r[:60]}" for s, r in CASES])
def test_rows_equal_load_dataset(cluster, split, recipe):
    unitxt_rs = _import("unitxt_rs")
    uray = _import("unitxt_rs.ray")
    expected = unitxt_rs.load_dataset(recipe, split=split).data.table
    # Small batches, so that both workers get several.
    ds = uray.prepare(recipe, split=split, num_workers=2, batch_size=16)
    got = _collect(cluster, ds)
    assert got.num_rows == expected.num_rows > 0
    assert got.column_names == expected.column_names
    assert [f.type for f in got.schema] == [f.type for f in expected.schema]
    got_rows, want_rows = got.to_pylist(), expected.to_pylist()
    for i, (g, w) in enumerate(zip(got_rows, want_rows)):
        assert g == w, f"row {i} differs"


def test_recipe_arguments_and_seed_reach_the_workers(cluster):
    """Keyword recipe arguments and the global seed (which draws the demos) are the
    driver's."""
    unitxt_rs = _import("unitxt_rs")
    uray = _import("unitxt_rs.ray")
    recipe = "card=cards.sst2,template=templates.classification.multi_class.instruction"
    args = {"num_demos": 2, "demos_pool_size": 20, "max_test_instances": 30}
    seed = unitxt_rs.get_seed()
    try:
        unitxt_rs.set_seed(7)
        expected = unitxt_rs.load_dataset(recipe, split="test", **args).data.table
        got = _collect(cluster, uray.prepare(recipe, split="test", num_workers=2, batch_size=8, **args))
    finally:
        unitxt_rs.set_seed(seed)
    assert got.to_pylist() == expected.to_pylist()
    default_seed = unitxt_rs.load_dataset(recipe, split="test", **args).data.table
    assert default_seed["source"].to_pylist() != expected["source"].to_pylist()


def _prepare_actors():
    """Actor id to process id of every `PrepareBatches` actor the cluster has had (Ray's GCS
    actor table: `ray._private.state`, which needs no dashboard, unlike `ray.util.state`)."""
    state = _import("ray._private.state")
    return {k: a["Pid"] for k, a in state.actors().items() if "PrepareBatches" in a["ActorClassName"]}


def test_two_worker_processes_prepare_the_rows(cluster):
    """The per-instance stages run in two Ray actors, each its own process (not the
    driver's)."""
    uray = _import("unitxt_rs.ray")
    before = set(_prepare_actors())
    recipe = "card=cards.sst2,template=templates.classification.multi_class.instruction,max_test_instances=64"
    assert _collect(cluster, uray.prepare(recipe, split="test", num_workers=2, batch_size=8)).num_rows == 64
    new = {k: pid for k, pid in _prepare_actors().items() if k not in before}
    assert len(new) == 2
    assert len(set(new.values())) == 2
    assert os.getpid() not in new.values()


def test_errors(cluster):
    unitxt_rs = _import("unitxt_rs")
    uray = _import("unitxt_rs.ray")
    with pytest.raises(unitxt_rs.InvalidInputError, match="split"):
        uray.prepare("card=cards.sst2,template=templates.classification.multi_class.instruction")
    with pytest.raises(unitxt_rs.ArtifactNotFoundError, match="validation"):
        uray.prepare("card=cards.sst2,template=templates.classification.multi_class.instruction", split="nope")
    with pytest.raises(unitxt_rs.ArtifactNotFoundError):
        uray.prepare("card=cards.no_such_card,template=templates.classification.multi_class.instruction", split="test")
    with pytest.raises(unitxt_rs.InvalidInputError, match="num_workers"):
        uray.prepare("card=cards.sst2", split="test", num_workers=0)


# ---- fusion -------------------------------------------------------------------------------

_FUSION_ORACLE = r"""
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
from oracle import offline_tree, skip_offline_retry_sleeps
offline_tree(os.environ["HF_HUB_CACHE"], sys.argv[2])
os.environ["UNITXT_HF_OFFLINE_DATASETS_PATH"] = sys.argv[2]
from unitxt.api import load_recipe
from unitxt.fusion import FixedFusion, WeightedFusion
skip_offline_retry_sleeps()
job = json.load(sys.stdin)
recipes = job["recipes"]
if isinstance(recipes, dict):
    subsets = {k: load_recipe(r) for k, r in recipes.items()}
else:
    subsets = [load_recipe(r) for r in recipes]
if job["weights"] is None:
    fusion = FixedFusion(subsets=subsets, max_instances_per_subset=job["max"], include_splits=[job["split"]])
else:
    fusion = WeightedFusion(subsets=subsets, weights=job["weights"], max_total_samples=job["max"], include_splits=[job["split"]])
rows = [{k: r[k] for k in ("source", "target", "references", "subset")} for r in fusion()[job["split"]]]
print(json.dumps(rows))
"""

FUSED = {
    "sst2": "card=cards.sst2,template=templates.classification.multi_class.instruction,num_demos=1,demos_pool_size=10,max_train_instances=30",
    "wnli": "card=cards.wnli,template=templates.classification.multi_class.relation.default,max_train_instances=20",
    "stsb": "card=cards.stsb,template=templates.regression.two_texts.simple,max_train_instances=15",
}


def _unitxt_fusion(recipes, weights, max_instances, tmp_path):
    import json
    import subprocess
    import sys

    _import("unitxt")
    job = json.dumps({"recipes": recipes, "weights": weights, "max": max_instances, "split": "train"})
    env = {**os.environ, "UNITXT_CATALOGS": str(REPO / "tests" / "catalog"), "UNITXT_ALLOW_UNVERIFIED_CODE": "True"}
    proc = subprocess.run(
        [sys.executable, "-c", _FUSION_ORACLE, str(REPO), str(tmp_path / "hf-offline")],
        input=job, capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "named,weights,max_instances",
    [
        # WeightedFusion over named subsets, stopped at 40 rows.
        (True, {"sst2": 2, "wnli": 1, "stsb": 1}, 40),
        # WeightedFusion over a list, until every subset is used up.
        (False, [1, 3, 1], None),
        # FixedFusion, at most 10 rows of each named subset.
        (True, None, 10),
    ],
    ids=["weighted_named_max40", "weighted_list_all", "fixed_named_10"],
)
def test_fuse_equals_unitxt_fusion(cluster, tmp_path, named, weights, max_instances):
    uray = _import("unitxt_rs.ray")
    recipes = dict(FUSED) if named else list(FUSED.values())
    ds = uray.fuse(recipes, weights=weights, max_instances=max_instances, split="train", num_workers=2, batch_size=8)
    got = _collect(cluster, ds).to_pylist()
    want = _unitxt_fusion(recipes, weights, max_instances, tmp_path)
    assert len(got) == len(want) > 0
    if max_instances is not None and weights is not None:
        assert len(got) == max_instances
    for i, (g, w) in enumerate(zip(got, want)):
        assert {k: g[k] for k in w} == w, f"row {i} differs"
    # The mix holds rows of several recipes.
    assert len({g["target"] for g in got}) > 2


def test_fuse_skips_a_subset_without_the_split_but_not_a_missing_demos_split(cluster):
    """A subset that lacks the split is skipped, as Unitxt's fusions skip it; a subset whose
    demos pool names a split that does not exist is an error (it was once skipped too, when
    the two were told apart by their messages)."""
    unitxt_rs = _import("unitxt_rs")
    uray = _import("unitxt_rs.ray")
    test_only = {
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"text": "a", "label": "x"}]}},
        "task": {"__type__": "task", "input_fields": {"text": "str"}, "reference_fields": {"label": "str"},
                 "prediction_type": "str", "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{text}", "output_format": "{label}"}],
    }
    sst2 = "card=cards.sst2,template=templates.classification.multi_class.instruction,max_train_instances=5"
    rows = _collect(cluster, uray.fuse([sst2, {"card": test_only}], split="train", num_workers=1, batch_size=8)).to_pylist()
    assert len(rows) == 5
    assert all(r["source"] for r in rows)
    bad_demos = sst2 + ",num_demos=1,demos_pool_size=3,demos_taken_from=nosuch"
    with pytest.raises(unitxt_rs.MissingDemosSplitError) as e:
        uray.fuse([sst2, bad_demos], split="train", num_workers=1, batch_size=8)
    assert e.value.split == "nosuch"
    assert "train" in e.value.available
    assert not isinstance(e.value, unitxt_rs.MissingSplitError)


# ---- registered types -----------------------------------------------------------------------


def _typed_card(lib, texts):
    """A card built in code whose task types `text` with the registered NewType `RaySentence`
    (a str), with either library's classes."""
    prefix = "unitxt_rs" if lib == "ours" else "unitxt"
    card_mod, loaders, task_mod, templates = (
        _import(f"{prefix}.{m}") for m in ("card", "loaders", "task", "templates")
    )
    return card_mod.TaskCard(
        loader=loaders.LoadFromDictionary(data={"test": [{"text": t, "label": f"l{i % 3}"} for i, t in enumerate(texts)]}),
        task=task_mod.Task(input_fields={"text": RAY_SENTENCE}, reference_fields={"label": str}, prediction_type=str,
                           metrics=["metrics.accuracy"]),
        templates=[templates.InputOutputTemplate(input_format="Say: {text}", output_format="{label}")],
    )


from typing import NewType  # noqa: E402

RAY_SENTENCE = NewType("RaySentence", str)


def test_registered_types_reach_the_workers(cluster):
    """A task field typed with a type registered on the driver (`type_utils.register_type`) is
    checked in the workers as the type it stands for (a str here; an unknown name would be
    taken as a dict there and reject every instance): the rows are Unitxt's, and a value not of
    the type is rejected by a worker, as by Unitxt."""
    unitxt_rs = _import("unitxt_rs")
    uray = _import("unitxt_rs.ray")
    unitxt = _import("unitxt")
    from unitxt import type_utils as their_types
    from unitxt_rs import type_utils as our_types

    our_types.register_type(RAY_SENTENCE)
    their_types.register_type(RAY_SENTENCE)
    texts = [f"sentence {i}" for i in range(20)]
    got = _collect(cluster, uray.prepare(card=_typed_card("ours", texts), split="test", num_workers=2, batch_size=4))
    want = unitxt.load_dataset(card=_typed_card("theirs", texts), split="test")
    assert got.num_rows == len(want) == 20
    assert got.to_pylist() == unitxt_rs.load_dataset(card=_typed_card("ours", texts), split="test").data.table.to_pylist()
    keys = ["source", "target", "references", "task_data", "metrics", "postprocessors", "groups", "subset",
            "data_classification_policy"]
    for i, row in enumerate(got.to_pylist()):
        assert {k: row[k] for k in keys} == {k: want[i][k] for k in keys}, f"row {i} differs"
    assert '"text": "sentence 3"' in got.to_pylist()[3]["task_data"]
    # The fusion's workers too.
    fused = _collect(cluster, uray.fuse([{"card": _typed_card("ours", texts)}], split="test", num_workers=1, batch_size=4))
    assert fused.select(keys).to_pylist() == got.select(keys).to_pylist()

    # A list where the type says str: Unitxt refuses it, and so does a worker.
    bad = texts[:5] + [["not", "a", "sentence"]]
    with pytest.raises(Exception, match="RaySentence"):
        list(unitxt.load_dataset(card=_typed_card("theirs", bad), split="test"))
    with pytest.raises(Exception, match="RaySentence"):
        _collect(cluster, uray.prepare(card=_typed_card("ours", bad), split="test", num_workers=1, batch_size=4))
