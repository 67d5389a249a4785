"""Scoring with metrics on their own, without a recipe (Unitxt's ``unitxt.eval_utils``)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["evaluate"]


def _metric_ref(metric: Any) -> Any:
    """A metric as an instance's ``metrics`` entry: a catalog name as is, an artifact object or
    a user's metric as its JSON text."""
    if isinstance(metric, str):
        return metric
    if hasattr(metric, "__id__") and getattr(metric, "__id__", None) is not None:
        return metric.__id__
    if hasattr(metric, "to_dict"):
        return json.dumps(metric.to_dict(), indent=4, ensure_ascii=False)
    raise TypeError(f"a metric must be a catalog name or a metric object, got {type(metric).__name__}")


def _evaluate_records(
    dataset: List[Dict[str, Any]], metric_names: List[Any], compute_conf_intervals: Optional[bool]
) -> Tuple[List[Dict[str, Any]], Dict[Any, Dict[str, Any]]]:
    from . import _local_catalogs, _native

    global_scores: Dict[Any, Dict[str, Any]] = {}
    for metric in metric_names:
        if not dataset:
            continue
        ref = _metric_ref(metric)
        rows = [
            {
                "source": "",
                "references": list(entry["references"]),
                "metrics": [ref],
                "postprocessors": [],
                "task_data": entry.get("task_data", {}),
                "groups": [],
                "subset": [],
            }
            for entry in dataset
        ]
        predictions = [entry["prediction"] for entry in dataset]
        out = json.loads(
            _native.evaluate(
                json.dumps(predictions), None, json.dumps(rows, default=str), list(_local_catalogs),
                bool(compute_conf_intervals),
            )
        )
        for entry, scores in zip(dataset, out["instances"]):
            entry[metric] = scores["score"]
        global_scores[metric] = out["global"]
    return dataset, global_scores


def evaluate(dataset: Any, metric_names: List[Any], compute_conf_intervals: Optional[bool] = False):
    """Scores predictions with each metric of ``metric_names`` on its own (Unitxt's
    ``eval_utils.evaluate``).

    Args:
        dataset: A list of dicts, each with ``prediction`` and ``references`` (the list of
            correct answers; wrap a single one in a list), optionally ``task_data``; or a pandas
            ``DataFrame`` with those columns.
        metric_names: Metrics: catalog names (``"metrics.accuracy"``) or metric objects.
        compute_conf_intervals: Compute the ``*_ci_low`` / ``*_ci_high`` scores.

    Returns:
        For a list: ``(dataset, global_scores)``: the same list, each dict given one more key
        per metric (the metric as given) holding the instance's main score, and a dict of each
        metric's global scores. For a ``DataFrame``: both as ``DataFrame``s.

    Raises:
        KeyError: an entry without ``prediction`` or ``references``.
        ArtifactNotFoundError: a metric name no catalog holds. And as
        :func:`unitxt_rs.evaluate`.
    """
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(dataset, pd.DataFrame):
        records, global_scores = _evaluate_records(dataset.to_dict("records"), metric_names, compute_conf_intervals)
        return pd.DataFrame(records), pd.DataFrame(global_scores)
    return _evaluate_records(dataset, metric_names, compute_conf_intervals)
