"""Dataset hook that lets lm-evaluation-harness run a unitxt-rs recipe.

lm-eval 0.4.x calls a task's `custom_dataset` function as
`custom_dataset(**metadata, **dataset_kwargs)` when it builds the task, and then
reads `result[test_split]` from whatever it returns. The metadata always holds keys
of lm-eval's own (`version`, `config_source`, and anything given with `--metadata`),
so the hook takes what it needs by name and ignores the rest.
"""

from __future__ import annotations

from typing import Any


def load_recipe(
    recipe: str | None = None,
    split: str = "test",
    recipe_args: dict[str, Any] | None = None,
    **_lm_eval_metadata: Any,
):
    """Prepare one split of a unitxt-rs recipe as a `datasets.DatasetDict`.

    recipe:      a Unitxt recipe string, e.g. "card=cards.sst2,template=...,num_demos=2".
    split:       the recipe split to prepare; the task's `test_split` must name the same split.
    recipe_args: extra recipe arguments (e.g. {"max_test_instances": 50}), passed to
                 `unitxt_rs.load_dataset` as keyword arguments.

    Every row keeps the columns of `unitxt_rs.load_dataset` (`source`, `target`,
    `references`, ...); the task config reads `source` as the prompt and `target` as the gold answer.
    """
    if not recipe:
        raise ValueError(
            "unitxt-rs task: set the recipe in the task YAML, e.g. "
            "`dataset_kwargs: {recipe: 'card=...,template=...'}`"
        )
    # Imported here, not at module level: lm-eval imports this file while it parses the YAML.
    import datasets
    import unitxt_rs

    data = unitxt_rs.load_dataset(recipe, split=split, **(recipe_args or {}))
    if isinstance(data, datasets.DatasetDict):
        data = data[split]
    return datasets.DatasetDict({split: data})
