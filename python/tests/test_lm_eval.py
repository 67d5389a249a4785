"""lm-evaluation-harness runs unitxt-rs recipes with unitxt-rs's prompts and scores them with
the recipes' own metrics.

The task configs live in python/lm_eval_tasks. These tests load them the way
`lm_eval --include_path python/lm_eval_tasks --tasks ...` does. The prompt tests build the
requests lm-eval would send and compare each context with the `source` column of
`unitxt_rs.load_dataset`. The scoring tests run lm-eval's evaluator with a scripted model (an
`lm_eval.api.model.LM` whose answers are partly right) on a classification, a multiple-choice
(with a chat format and `--apply_chat_template`) and a generation recipe, and check that the
scores lm-eval reports are `unitxt_rs.evaluate`'s on the same predictions, and Unitxt 1.26.10's
(`unitxt.evaluate` on `unitxt.load_dataset`'s data, run in a subprocess) to 1e-9.

Needs `lm_eval` (0.4.x), `unitxt_rs` and `unitxt` importable; a missing one fails the tests, it
does not skip them. The data is read from the Hugging Face cache (HF_HUB_CACHE, offline).
"""

import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO = PYTHON_DIR.parent
TASKS_DIR = PYTHON_DIR / "lm_eval_tasks"
TEMPLATE = TASKS_DIR / "unitxt_rs" / "_template_yaml"
SST2_YAML = TASKS_DIR / "unitxt_rs" / "unitxt_rs_sst2.yaml"

# The same defaults as scripts/test.sh: the shared offline Hugging Face cache next to the repo.
os.environ.setdefault("HF_HUB_CACHE", str(REPO.parent / "shared" / "hf-hub"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NLTK_DATA", str(REPO.parent / "shared" / "nltk_data"))

N_COMPARED = 5


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.fail(f"cannot import {name} ({err}); install it in the test venv", pytrace=False)


def _task_manager(include_path):
    tasks = _import("lm_eval.tasks")
    # Only our own configs are indexed: indexing lm-eval's ~200 built-in task folders too
    # (what the `lm_eval` command does) adds seconds and changes nothing here.
    return tasks.TaskManager(include_path=str(include_path), include_defaults=False)


def _load_task(task_name, include_path):
    manager = _task_manager(include_path)
    assert task_name in manager.all_tasks
    loaded = manager.load([task_name])["tasks"]
    assert list(loaded) == [task_name]
    return loaded[task_name]


def _write_task(folder, name, recipe, **extra):
    """A task YAML in `folder` that includes the shared template (the documented way)."""
    cfg = {"include": str(TEMPLATE), "task": name, "recipe": recipe, **extra}
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(cfg))


def _assert_prompts_are_sources(task, expected):
    docs = list(task.test_docs())
    assert len(docs) == len(expected)
    assert len(docs) >= N_COMPARED
    sources = list(expected["source"])[:N_COMPARED]

    # The context of a zero-shot prompt, asked of the task directly...
    contexts = [task.fewshot_context(doc, num_fewshot=0) for doc in docs[:N_COMPARED]]
    assert contexts == sources
    # ...and the one inside the requests the evaluator would send.
    task.build_all_requests(limit=N_COMPARED, cache_requests=False)
    instances = sorted(task.instances, key=lambda inst: inst.doc_id)
    assert [inst.request_type for inst in instances] == ["generate_until"] * N_COMPARED
    assert [inst.arguments[0] for inst in instances] == sources
    assert [task.doc_to_target(doc) for doc in docs[:N_COMPARED]] == list(expected["target"])[:N_COMPARED]


def test_sst2_task_prompts_are_unitxt_rs_sources():
    unitxt_rs = _import("unitxt_rs")
    recipe = yaml.safe_load(SST2_YAML.read_text())["recipe"]
    assert "max_test_instances=" in recipe

    task = _load_task("unitxt_rs_sst2", TASKS_DIR)
    assert task.config.num_fewshot == 0
    expected = unitxt_rs.load_dataset(recipe, split="test")
    _assert_prompts_are_sources(task, expected)
    # Scored by the card's metrics, main one first, named after the metrics.
    assert list(task.aggregation()) == ["f1_micro", "accuracy", "f1_macro"]


def test_task_from_any_recipe(tmp_path):
    """The documented way to add a task: a YAML anywhere that includes the shared template;
    the earlier form with `dataset_kwargs` works too."""
    unitxt_rs = _import("unitxt_rs")
    recipe = (
        "card=cards.sst2,template=templates.classification.multi_class.instruction,"
        "num_demos=1,demos_pool_size=10"
    )
    recipe_args = {"max_test_instances": 7}
    _write_task(tmp_path, "unitxt_rs_my_task", recipe, recipe_args=recipe_args)
    (tmp_path / "legacy.yaml").write_text(
        yaml.safe_dump(
            {
                "include": str(TEMPLATE),
                "task": "unitxt_rs_legacy",
                "dataset_kwargs": {"recipe": recipe, "recipe_args": recipe_args},
            }
        )
    )
    expected = unitxt_rs.load_dataset(recipe, split="test", **recipe_args)
    assert len(expected) == 7
    for name in ("unitxt_rs_my_task", "unitxt_rs_legacy"):
        _assert_prompts_are_sources(_load_task(name, tmp_path), expected)


def test_a_task_without_recipe_is_an_error(tmp_path):
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"include": str(TEMPLATE), "task": "unitxt_rs_bad"}))
    with pytest.raises(Exception, match="give the recipe"):
        _load_task("unitxt_rs_bad", tmp_path)


def test_chat_source_needs_apply_chat_template(tmp_path):
    recipe = (
        "card=cards.sst2,template=templates.classification.multi_class.title,"
        "format=formats.chat_api,max_test_instances=3"
    )
    _write_task(tmp_path, "unitxt_rs_chat", recipe)
    task = _load_task("unitxt_rs_chat", tmp_path)
    doc = next(iter(task.test_docs()))
    assert isinstance(doc["source"], list)
    with pytest.raises(ValueError, match="--apply_chat_template"):
        task.fewshot_context(doc, num_fewshot=0)


# ---- scoring with a scripted model -------------------------------------------------------


def _scripted_answer(i, doc):
    """The model's answer to instance `i`: right, right with noise the recipe's
    postprocessors remove, or wrong, chosen by `i % 5`."""
    target = doc["target"]
    kind = i % 5
    if kind == 0:
        return target
    if kind == 1:
        return " " + target + "\nand some more text."
    if kind == 2:
        task_data = json.loads(doc["task_data"])
        for field in ("classes", "options", "choices"):
            opts = task_data.get(field)
            if isinstance(opts, list) and len(opts) > 1:
                others = [str(o) for o in opts if str(o) != target]
                return others[i % len(others)]
        return target[::-1]
    if kind == 3:
        return target[: max(1, len(target) // 2)]
    return "I do not know."


def _scripted_lm_class():
    LM = _import("lm_eval.api.model").LM

    class ScriptedLM(LM):
        """An lm-eval model that answers from the instance itself (see `_scripted_answer`)
        and remembers each prompt and answer by doc id. Its chat template writes each message
        as `<|role|>content` lines and ends with `<|assistant|>`."""

        def __init__(self):
            super().__init__()
            self.prompts = {}
            self.answers = {}

        def generate_until(self, requests, disable_tqdm=False):
            out = []
            for req in requests:
                answer = _scripted_answer(req.doc_id, req.doc)
                self.prompts[req.doc_id] = req.arguments[0]
                self.answers[req.doc_id] = answer
                out.append(answer)
            return out

        def loglikelihood(self, requests, disable_tqdm=False):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            raise NotImplementedError

        @staticmethod
        def render_chat(messages, add_generation_prompt=True):
            text = "".join(f"<|{m['role']}|>{m['content']}\n" for m in messages)
            return text + ("<|assistant|>" if add_generation_prompt else "")

        def apply_chat_template(self, chat_history, add_generation_prompt=True):
            return self.render_chat(chat_history, add_generation_prompt)

        @property
        def tokenizer_name(self):
            return "scripted"

        def chat_template(self, chat_template=False):
            return "scripted"

    return ScriptedLM


_ORACLE = r"""
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
from oracle import offline_tree, skip_offline_retry_sleeps
offline_tree(os.environ["HF_HUB_CACHE"], sys.argv[2])
os.environ["UNITXT_HF_OFFLINE_DATASETS_PATH"] = sys.argv[2]
from unitxt import evaluate, load_dataset
skip_offline_retry_sleeps()
job = json.load(sys.stdin)
data = load_dataset(job["recipe"], split="test", use_cache=False)
rows = [dict(r) for r in data]
out = {}
for metric in job["metrics"]:
    for r in rows:
        r["metrics"] = [metric]
    res = evaluate(predictions=job["predictions"], data=rows)
    out[metric] = float(res[0]["score"]["global"]["score"])
print(json.dumps(out))
"""


def _unitxt_scores(recipe, predictions, metrics, tmp_path):
    """Unitxt 1.26.10's global score of each metric alone on `predictions` over
    `unitxt.load_dataset(recipe, split="test")`, as lm-eval's own Unitxt task computes it."""
    _import("unitxt")
    job = json.dumps({"recipe": recipe, "predictions": predictions, "metrics": metrics})
    env = {**os.environ, "UNITXT_CATALOGS": str(REPO / "tests" / "catalog"), "UNITXT_ALLOW_UNVERIFIED_CODE": "True"}
    proc = subprocess.run(
        [sys.executable, "-c", _ORACLE, str(REPO), str(tmp_path / "hf-offline")],
        input=job, capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


SCORED = {
    # Classification, the bundled task: f1_micro, accuracy, f1_macro.
    "classification": (
        "card=cards.sst2,template=templates.classification.multi_class.instruction,num_demos=2,"
        "demos_pool_size=20,max_test_instances=20",
        ["f1_micro", "accuracy", "f1_macro"],
        False,
    ),
    # Multiple choice, chat messages rendered by the model's chat template.
    "multiple_choice_chat": (
        "card=cards.mmlu.anatomy,template=templates.qa.multiple_choice.with_topic.helm,"
        "format=formats.chat_api,num_demos=3,demos_pool_size=5,max_test_instances=30",
        ["accuracy"],
        True,
    ),
    # Generation scored by rouge (reported as `rouge`: its main score, rougeL) and token overlap.
    "generation": (
        "card=cards.squad,template=templates.qa.with_context.simple,max_test_instances=25,"
        "metrics=[metrics.rouge,metrics.token_overlap]",
        ["rouge", "token_overlap"],
        False,
    ),
}


@pytest.mark.parametrize("kind", list(SCORED))
def test_lm_eval_scores_are_the_recipe_metrics(kind, tmp_path):
    unitxt_rs = _import("unitxt_rs")
    evaluator = _import("lm_eval.evaluator")
    recipe, names, chat = SCORED[kind]
    task_name = f"unitxt_rs_{kind}"
    if kind == "classification":
        task_name, include = "unitxt_rs_sst2", TASKS_DIR
        assert yaml.safe_load(SST2_YAML.read_text())["recipe"] == recipe
    else:
        include = tmp_path / "tasks"
        include.mkdir()
        _write_task(include, task_name, recipe)

    lm = _scripted_lm_class()()
    out = evaluator.simple_evaluate(
        model=lm,
        tasks=[task_name],
        task_manager=_task_manager(include),
        apply_chat_template=chat,
        bootstrap_iters=0,
    )
    reported = out["results"][task_name]
    # Keys are "<metric>,<filter>" (lm-eval's default filter is "none"), each with a
    # "<metric>_stderr,<filter>" (N/A: lm-eval bootstraps only its own aggregations).
    scores = {k.split(",")[0]: v for k, v in reported.items() if k.endswith(",none") and "_stderr," not in k}
    # The recipe's metrics, main one first, under their own names.
    assert list(scores) == names

    data = unitxt_rs.load_dataset(recipe, split="test")
    n = len(data)
    assert sorted(lm.answers) == list(range(n))
    predictions = [lm.answers[i] for i in range(n)]
    # What the model was asked: the sources, through its chat template for a chat format.
    sources = list(data["source"])
    if chat:
        assert all(isinstance(s, list) for s in sources)
        sources = [lm.render_chat(s) for s in sources]
    assert [lm.prompts[i] for i in range(n)] == sources

    # unitxt_rs.evaluate on the same predictions: each metric alone, and all of them at once
    # (the metric's main score under its score name).
    together = unitxt_rs.evaluate(predictions=predictions, data=data, calc_confidence_intervals=False).global_scores
    metrics = list(data[0]["metrics"])
    assert [m.replace("metrics.", "") for m in metrics] == names
    for name, metric in zip(names, metrics):
        rows = []
        for r in data:
            r = dict(r)
            r["metrics"] = [metric]
            rows.append(r)
        alone = unitxt_rs.evaluate(predictions=predictions, data=rows, calc_confidence_intervals=False).global_scores
        assert scores[name] == alone["score"], name
        assert scores[name] == together[alone["score_name"]], name
    # Partly right: the main score is strictly between its worst and best values.
    assert 0 < scores[names[0]] < 1

    # And Unitxt's scores on its own data and the same predictions.
    oracle = _unitxt_scores(recipe, predictions, metrics, tmp_path)
    for name, metric in zip(names, metrics):
        assert math.isclose(scores[name], oracle[metric], rel_tol=0, abs_tol=1e-9), (name, scores[name], oracle[metric])
