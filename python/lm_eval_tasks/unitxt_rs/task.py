"""An lm-evaluation-harness task that prepares a unitxt-rs recipe and scores with its metrics.

lm-eval 0.4.x builds it through its `class: !function ...` mechanism (as it builds its own
`lm_eval/tasks/unitxt` tasks), from a YAML such as::

    task: unitxt_rs_sst2
    class: !function task.UnitxtRsTask       # or `include: _template_yaml`, which sets it
    recipe: card=cards.sst2,template=templates.classification.multi_class.instruction,num_demos=2,demos_pool_size=20
    recipe_args: {max_test_instances: 100}   # optional: more recipe arguments
    split: test                              # optional (default test)

The prompt of each instance is its `source` as unitxt-rs rendered it (lm-eval adds nothing).
A chat `source` (a list of messages, from a chat format such as `formats.chat_api`) needs
`--apply_chat_template`: the model's chat template renders the messages.

Scoring follows lm-eval's Unitxt task: `process_results` passes `(prediction, instance)` to
each of the recipe's metrics, and each metric's aggregation runs `unitxt_rs.evaluate` on all of
them, that metric alone, and reports its global score (its main score). Results are named after
the metrics (`metrics.f1_micro` reports `f1_micro`), the recipe's first metric (its main score)
first. The recipe's postprocessors run on the raw generation, as in Unitxt.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Dict, List, Optional, Sequence, Tuple

from lm_eval.api.task import ConfigurableTask

# Keys of the task YAML this class reads itself; everything else goes to lm-eval's TaskConfig.
_OWN_KEYS = ("recipe", "recipe_args", "split", "class")

# The task's lm-eval settings unless the YAML gives others: the prompt is `source` verbatim
# (no description, no few-shot examples of lm-eval's, no delimiter), greedy generation that
# stops at a blank line.
_DEFAULTS: Dict[str, Any] = {
    "output_type": "generate_until",
    "doc_to_text": "source",
    "doc_to_target": "target",
    "description": "",
    "target_delimiter": "",
    "fewshot_delimiter": "",
    "num_fewshot": 0,
    "generation_kwargs": {"until": ["\n\n"], "do_sample": False},
}


def metric_key(metric: Any) -> str:
    """The name a recipe metric is reported under: a catalog name without its `metrics.`
    prefix (`metrics.rouge` -> `rouge`), an inline metric's `__type__`."""
    if isinstance(metric, dict):
        metric = metric.get("__type__", str(metric))
    metric = str(metric)
    return metric[len("metrics."):] if metric.startswith("metrics.") else metric


def score(items: Sequence[Tuple[Any, Dict[str, Any]]], metric: Any) -> float:
    """lm-eval's aggregation of one recipe metric: `unitxt_rs.evaluate` on every
    `(prediction, instance)` pair with `metric` as the instances' only metric, and its
    global `score` (the metric's main score). Confidence intervals are not computed."""
    import unitxt_rs

    predictions = [p for p, _ in items]
    data = []
    for _, doc in items:
        doc = dict(doc)
        doc["metrics"] = [metric]
        data.append(doc)
    results = unitxt_rs.evaluate(predictions=predictions, data=data, calc_confidence_intervals=False)
    return results.global_scores["score"]


class UnitxtRsTask(ConfigurableTask):
    """One split of a unitxt-rs recipe as an lm-eval `generate_until` task, scored by the
    recipe's metrics (see the module's docstring).

    Config keys (the task YAML): `task`, `recipe` (a recipe string or a `dataset_recipe`
    name), `recipe_args` (a dict of more recipe arguments), `split` (default `test`); the
    older form `dataset_kwargs: {recipe, recipe_args, split}` is read too. Other lm-eval keys
    (`generation_kwargs`, `metadata`, `tag`, ...) override the defaults.

    Raises:
        ValueError: no recipe is given.
    """

    VERSION = 2

    def __init__(self, config: Optional[Dict[str, Any]] = None) -> None:
        config = dict(config or {})
        legacy = dict(config.pop("dataset_kwargs", None) or {})
        recipe = config.pop("recipe", None) or legacy.pop("recipe", None)
        recipe_args = config.pop("recipe_args", None) or legacy.pop("recipe_args", None) or {}
        split = config.pop("split", None) or legacy.pop("split", None) or "test"
        config.pop("class", None)
        if not recipe and not recipe_args:
            raise ValueError(
                "unitxt-rs task: give the recipe in the task YAML, e.g. "
                "`recipe: card=cards.sst2,template=...`"
            )
        self.recipe: Optional[str] = recipe
        self.recipe_args: Dict[str, Any] = dict(recipe_args)
        self.split: str = split
        merged = {**_DEFAULTS, **config, "test_split": split}
        merged["metadata"] = {"version": self.VERSION, **(config.get("metadata") or {})}
        super().__init__(config=merged)
        first = self.dataset[split][0]
        #: The recipe's metrics (those of its first instance), main one first.
        self.recipe_metrics: List[Any] = list(first["metrics"] or [])
        if not self.recipe_metrics:
            raise ValueError(f"unitxt-rs task {self.config.task}: the recipe's instances name no metrics")

    def download(self, dataset_kwargs: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        """Prepares the split with `unitxt_rs.load_dataset` (lm-eval calls this once, when
        it builds the task)."""
        import datasets
        import unitxt_rs

        data = unitxt_rs.load_dataset(self.recipe, split=self.split, **self.recipe_args)
        self.dataset = datasets.DatasetDict({self.split: data})

    def fewshot_context(self, doc, num_fewshot, **kwargs):
        """The prompt: the instance's `source`. A chat `source` (a list of messages) is
        rendered by the model's chat template, which lm-eval gives with
        `--apply_chat_template`; without it, an error says to add it."""
        source = doc["source"]
        if isinstance(source, list):
            chat_template = kwargs.get("chat_template")
            if not kwargs.get("apply_chat_template") or chat_template is None:
                raise ValueError(
                    f"unitxt-rs task {self.config.task}: the recipe's format gives chat messages; "
                    "run lm_eval with --apply_chat_template (or use a text format in the recipe)"
                )
            return chat_template(source)
        return super().fewshot_context(doc, num_fewshot, **kwargs)

    def process_results(self, doc, results):
        """Each recipe metric gets the pair `(prediction, instance)`; the score is computed
        over all of them by :meth:`aggregation`."""
        prediction = results[0]
        return {metric_key(m): (prediction, doc) for m in self.recipe_metrics}

    def aggregation(self):
        """Per recipe metric, the function lm-eval calls on its pairs: :func:`score`."""
        return {metric_key(m): partial(score, metric=m) for m in self.recipe_metrics}

    def higher_is_better(self):
        """Every metric is reported as higher-is-better (as lm-eval's Unitxt task does)."""
        return {metric_key(m): True for m in self.recipe_metrics}
