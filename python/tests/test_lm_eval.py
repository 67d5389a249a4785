"""lm-evaluation-harness runs unitxt-rs recipes with unitxt-rs's prompts, unchanged.

The task configs live in python/lm_eval_tasks. These tests load them the way
`lm_eval --include_path python/lm_eval_tasks --tasks ...` does, build the requests lm-eval
would send to a model, and compare each context with the `source` column of
`unitxt_rs.load_dataset`. No model runs.

Needs `lm_eval` (0.4.x) and `unitxt_rs` importable; a missing one fails the tests, it does
not skip them. The SST-2 data is read from the Hugging Face cache (HF_HUB_CACHE, offline).
"""

import importlib
import os
from pathlib import Path

import pytest
import yaml

PYTHON_DIR = Path(__file__).resolve().parents[1]
TASKS_DIR = PYTHON_DIR / "lm_eval_tasks"
TEMPLATE = TASKS_DIR / "unitxt_rs" / "_template_yaml"
SST2_YAML = TASKS_DIR / "unitxt_rs" / "unitxt_rs_sst2.yaml"

# The same defaults as scripts/test.sh: the shared offline Hugging Face cache next to the repo.
os.environ.setdefault("HF_HUB_CACHE", str(PYTHON_DIR.parent.parent / "shared" / "hf-hub"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

N_COMPARED = 5


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.fail(f"cannot import {name} ({err}); install it in the test venv", pytrace=False)


def _load_task(task_name, include_path):
    tasks = _import("lm_eval.tasks")
    # Only our own configs are indexed: indexing lm-eval's ~200 built-in task folders too
    # (what the `lm_eval` command does) adds seconds and changes nothing here.
    manager = tasks.TaskManager(include_path=str(include_path), include_defaults=False)
    assert task_name in manager.all_tasks
    task_dict = tasks.get_task_dict([task_name], manager)
    assert list(task_dict) == [task_name]
    return task_dict[task_name]


def _contexts_sent_to_model(task, limit):
    """The prompts of the first `limit` test docs, as lm-eval's evaluator builds them."""
    task.build_all_requests(limit=limit, cache_requests=False)
    instances = sorted(task.instances, key=lambda inst: inst.doc_id)
    assert [inst.request_type for inst in instances] == ["generate_until"] * limit
    return instances, [inst.arguments[0] for inst in instances]


def _assert_prompts_are_sources(task, expected):
    docs = list(task.test_docs())
    assert len(docs) == len(expected)
    assert len(docs) >= N_COMPARED
    sources = list(expected["source"])[:N_COMPARED]

    # The context of a zero-shot prompt, asked of the task directly...
    contexts = [task.fewshot_context(doc, num_fewshot=0) for doc in docs[:N_COMPARED]]
    assert contexts == sources
    # ...and the one inside the requests the evaluator would send.
    instances, sent = _contexts_sent_to_model(task, N_COMPARED)
    assert sent == sources
    assert [task.doc_to_target(doc) for doc in docs[:N_COMPARED]] == list(expected["target"])[:N_COMPARED]
    return instances


def _score(task, instances, responses):
    """exact_match of each instance, computed the way the evaluator does it."""
    for inst, response in zip(instances, responses):
        inst.resps = [response]
        inst.filtered_resps = {}
    task.apply_filters()
    return [
        task.process_results(inst.doc, [inst.filtered_resps["first_line"]])["exact_match"]
        for inst in instances
    ]


def test_sst2_task_prompts_are_unitxt_rs_sources():
    unitxt_rs = _import("unitxt_rs")
    recipe = yaml.safe_load(SST2_YAML.read_text())["dataset_kwargs"]["recipe"]
    assert "max_test_instances=" in recipe

    task = _load_task("unitxt_rs_sst2", TASKS_DIR)
    assert task.config.num_fewshot == 0
    expected = unitxt_rs.load_dataset(recipe, split="test")
    instances = _assert_prompts_are_sources(task, expected)

    # The gold answer, generated with surrounding whitespace and a following line, scores 1;
    # a wrong one scores 0.
    targets = list(expected["target"])[:N_COMPARED]
    assert _score(task, instances, [f"\n {t} \nmore" for t in targets]) == [1.0] * N_COMPARED
    assert _score(task, instances, [f"not {t}" for t in targets]) == [0.0] * N_COMPARED


def test_task_from_any_recipe(tmp_path):
    """The documented way to add a task: a YAML anywhere that includes the shared template."""
    unitxt_rs = _import("unitxt_rs")
    recipe = (
        "card=cards.sst2,template=templates.classification.multi_class.instruction,"
        "num_demos=1,demos_pool_size=10"
    )
    recipe_args = {"max_test_instances": 7}
    (tmp_path / "my_task.yaml").write_text(
        yaml.safe_dump(
            {
                "include": str(TEMPLATE),
                "task": "unitxt_rs_my_task",
                "dataset_kwargs": {"recipe": recipe, "recipe_args": recipe_args},
            }
        )
    )

    task = _load_task("unitxt_rs_my_task", tmp_path)
    expected = unitxt_rs.load_dataset(recipe, split="test", **recipe_args)
    assert len(expected) == 7
    _assert_prompts_are_sources(task, expected)
