"""unitxt_rs: Unitxt recipes prepared and evaluated by a Rust engine.

The functions mirror Unitxt's Python API (``unitxt.load_dataset``, ``unitxt.evaluate``,
``register_local_catalog``, ``get_from_catalog``) and return the same Hugging Face ``datasets``
objects with the same columns and values as Unitxt 1.26.10. Instances cross from Rust as Arrow
record batches; ``datasets`` builds its tables from them directly.

Quick start::

    import unitxt_rs
    ds = unitxt_rs.load_dataset(
        "card=cards.sst2,template=templates.classification.multi_class.instruction,"
        "num_demos=2,demos_pool_size=20",
        split="test",
    )
    print(ds[0]["source"])
    results = unitxt_rs.evaluate(predictions=["positive"] * len(ds), data=ds)
    print(results.global_scores.summary)

Catalogs: Unitxt's catalog is read from where ``unitxt-rs catalog install`` put it (see
:func:`default_catalog_dir`), directories in ``UNITXT_CATALOGS``, and directories given to
:func:`register_local_catalog` (the last registered wins).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa

from . import _native
from .errors import (
    ArtifactNotFoundError,
    DataFileNotFoundError,
    InvalidInputError,
    UnitxtIOError,
    UnitxtRsError,
    UnsupportedError,
)

__all__ = [
    "load_dataset",
    "evaluate",
    "register_local_catalog",
    "get_from_catalog",
    "get_local_catalogs",
    "set_seed",
    "get_seed",
    "default_catalog_dir",
    "EvaluationResults",
    "GlobalScores",
    "UnitxtRsError",
    "ArtifactNotFoundError",
    "DataFileNotFoundError",
    "InvalidInputError",
    "UnsupportedError",
    "UnitxtIOError",
]

__version__ = "0.1.0"

#: Unitxt version whose behaviour and catalog this build follows.
UNITXT_VERSION: str = _native.unitxt_version()

_local_catalogs: List[str] = []


def register_local_catalog(path: Union[str, os.PathLike]) -> None:
    """Adds a catalog directory (Unitxt's ``register_local_catalog``).

    Artifact ``cards.my.card`` is read from ``<path>/cards/my/card.json``. Directories registered
    later take precedence over earlier ones, and all of them over ``UNITXT_CATALOGS`` and the
    installed Unitxt catalog.

    Raises:
        DataFileNotFoundError: ``path`` is not a directory.
    """
    p = os.fspath(path)
    if not os.path.isdir(p):
        raise DataFileNotFoundError(f"catalog directory {p!r} does not exist")
    p = os.path.abspath(p)
    if p in _local_catalogs:
        _local_catalogs.remove(p)
    _local_catalogs.append(p)


def get_local_catalogs() -> List[str]:
    """The directories given to :func:`register_local_catalog`, lowest precedence first."""
    return list(_local_catalogs)


def default_catalog_dir() -> str:
    """Where ``unitxt-rs catalog install`` puts Unitxt's catalog (``$UNITXT_RS_CATALOG`` or
    ``~/.cache/unitxt-rs/catalog-<version>``)."""
    return _native.default_catalog_dir()


def get_from_catalog(name: str) -> Dict[str, Any]:
    """The artifact ``name`` (e.g. ``"templates.classification.multi_class.instruction"``) as
    stored in the catalog: a dict with ``__type__`` and the artifact's arguments.

    Raises:
        ArtifactNotFoundError: no catalog holds ``name`` (the message suggests close names).
        InvalidInputError: the artifact's file is not valid JSON.
    """
    return json.loads(_native.get_from_catalog(name, _local_catalogs))


def set_seed(seed: int) -> None:
    """Sets the global seed (Unitxt's ``settings.seed``, 42 by default) used for every random
    choice of a recipe (demos, template choice, shuffles) and for confidence intervals."""
    if not isinstance(seed, int) or seed < 0:
        raise InvalidInputError(f"the seed must be a non-negative int, got {seed!r}")
    _native.set_seed(seed)


def get_seed() -> int:
    """The global seed in use (see :func:`set_seed`)."""
    return _native.get_seed()


# ---- preparing datasets ---------------------------------------------------------------------


def _jsonable(value: Any, name: str) -> Any:
    """A recipe argument as JSON-like data: artifacts with ``to_dict`` (Unitxt objects) become
    their dicts; paths become strings."""
    if hasattr(value, "to_dict") and callable(value.to_dict):
        value = value.to_dict()
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError) as e:
        raise InvalidInputError(f"recipe argument {name!r} is not JSON-like data: {e}") from None
    return value


def _args_json(recipe_args: Mapping[str, Any]) -> Optional[str]:
    if not recipe_args:
        return None
    return json.dumps({k: _jsonable(v, k) for k, v in recipe_args.items()})


def _features():
    import datasets

    return datasets.Features.from_arrow_schema(_empty_schema())


_SCHEMA: Optional[pa.Schema] = None


def _empty_schema() -> pa.Schema:
    """Arrow schema of prepared splits (read once from an empty batch made by the engine)."""
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = pa.ipc.open_stream(_native.dataset_schema_ipc()).schema
    return _SCHEMA


def _is_chat(text: Any) -> bool:
    return isinstance(text, str) and (text.startswith('[{"role":') or text.startswith('[{"content":'))


def _decode_batch(batch: Dict[str, List[Any]]) -> Dict[str, List[Any]]:
    """What Unitxt's datasets do on access: a chat ``source`` (stored as JSON text) becomes the
    list of messages again."""
    src = batch.get("source")
    if src and _is_chat(src[0]):
        batch["source"] = [json.loads(s) for s in src]
    return batch


def _decode_row(row: Dict[str, Any]) -> Dict[str, Any]:
    if _is_chat(row.get("source")):
        row["source"] = json.loads(row["source"])
    return row


def _read_split(stream) -> Tuple[pa.Table, str]:
    """The split's rows as one table, and a fingerprint of them: the xxh64 digest of the Arrow
    IPC bytes, which ``datasets`` would otherwise compute by pickling the whole table (a
    content hash all the same, some thirty times slower)."""
    import xxhash

    digest = xxhash.xxh64()
    batches = []
    while True:
        chunk = stream.next_batch()
        if chunk is None:
            break
        digest.update(chunk)
        batches.extend(pa.ipc.open_stream(chunk).read_all().to_batches())
    if not batches:
        table = _empty_schema().empty_table()
    else:
        table = pa.Table.from_batches(batches)
    return table, digest.hexdigest()


def _to_dataset(table: pa.Table, fingerprint: str, split: str):
    import datasets
    from datasets.table import InMemoryTable

    info = datasets.DatasetInfo(features=datasets.Features.from_arrow_schema(table.schema))
    ds = datasets.Dataset(InMemoryTable(table), info=info, split=datasets.NamedSplit(split), fingerprint=fingerprint)
    return ds.with_transform(_decode_batch)


def _iter_rows(recipe: Optional[str], args_json: Optional[str], split: str, catalogs: List[str]) -> Iterator[Dict[str, Any]]:
    (stream,) = _native.prepare(recipe, args_json, split, catalogs)
    while True:
        chunk = stream.next_batch()
        if chunk is None:
            return
        for batch in pa.ipc.open_stream(chunk):
            for row in batch.to_pylist():
                yield _decode_row(row)


def _iterable_dataset(recipe: Optional[str], args_json: Optional[str], split: str, catalogs: List[str]):
    import datasets

    def generate(**_):
        # A fresh run of the recipe per iteration, so the dataset can be iterated again.
        yield from _iter_rows(recipe, args_json, split, catalogs)

    ds = datasets.IterableDataset.from_generator(generate, features=_features())
    ds.info.split = datasets.NamedSplit(split)
    return ds


def load_dataset(
    recipe: Optional[str] = None,
    split: Optional[str] = None,
    streaming: bool = False,
    **recipe_args: Any,
):
    """Prepares a Unitxt recipe and returns it as Hugging Face ``datasets`` (Unitxt's
    ``load_dataset``).

    Args:
        recipe: A Unitxt recipe string (``"card=cards.wnli,template=...,num_demos=3"``) or the
            name of a ``dataset_recipe`` in the catalog. Optional when ``recipe_args`` name the
            card.
        split: The split to return (``"train"``, ``"validation"``, ``"test"``...). ``None``:
            every split of the recipe.
        streaming: Return iterable datasets that prepare instances as they are read, in
            bounded memory, instead of preparing whole splits.
        **recipe_args: Recipe arguments, as in Unitxt (``card=``, ``template=``, ``format=``,
            ``system_prompt=``, ``num_demos=``, ``demos_pool_size=``, ``max_test_instances=``,
            ``loader_limit=``, ...). They override the same arguments of ``recipe``. An
            artifact is a catalog name or a dict with ``__type__`` (for example a card whose
            loader is ``{"__type__": "load_from_dictionary", "data": {"test": [...]}}`` to
            prepare in-memory records).

    Returns:
        ``datasets.Dataset`` when ``split`` is given, else ``datasets.DatasetDict`` (split name
        to Dataset); with ``streaming``, ``datasets.IterableDataset`` /
        ``datasets.IterableDatasetDict``. Columns: ``source`` (the prompt; for chat formats the
        list of messages), ``target``, ``references``, ``metrics``, ``groups``, ``subset``,
        ``media``, ``postprocessors``, ``task_data`` (JSON text) and
        ``data_classification_policy``, with the values Unitxt 1.26.10 gives.

    Raises:
        ArtifactNotFoundError: an artifact name that no catalog holds, or a split the recipe
            does not have (the message lists the available ones).
        DataFileNotFoundError: a dataset that is neither on disk nor in the local Hugging Face
            hub cache (with ``HF_HUB_OFFLINE=1`` nothing is downloaded).
        InvalidInputError: a malformed recipe or artifact, an unknown recipe argument, a value
            of the wrong type, a failing expression; the message names the artifact, the field,
            the split and the instance index.
        UnsupportedError: a recipe using something the engine does not support.
    """
    import datasets

    args_json = _args_json(recipe_args)
    catalogs = list(_local_catalogs)
    if streaming:
        if split is not None:
            # Check the recipe and the split now, so that errors surface here.
            _native.prepare(recipe, args_json, split, catalogs)
            return _iterable_dataset(recipe, args_json, split, catalogs)
        names = [s.name for s in _native.prepare(recipe, args_json, None, catalogs)]
        return datasets.IterableDatasetDict(
            {name: _iterable_dataset(recipe, args_json, name, catalogs) for name in names}
        )
    streams = _native.prepare(recipe, args_json, split, catalogs)
    tables = {s.name: _read_split(s) for s in streams}
    if split is not None:
        return _to_dataset(*tables[split], split)
    return datasets.DatasetDict({name: _to_dataset(*t, name) for name, t in tables.items()})


# ---- evaluation -----------------------------------------------------------------------------


class GlobalScores(dict):
    """The global scores (Unitxt's ``GlobalScores``): score name to value, including
    ``score``, ``score_name``, ``score_ci_low``, ``score_ci_high``, ``num_of_instances`` and
    every metric's scores with their ``_ci_low``/``_ci_high``."""

    _summary: str = ""

    @property
    def score(self) -> float:
        """The main score."""
        return self["score"]

    @property
    def score_name(self) -> str:
        """The main score's name."""
        return self["score_name"]

    @property
    def summary(self) -> str:
        """A readable table: one row per score with its interval, then the main score's name
        and the number of instances."""
        return self._summary

    def __repr__(self) -> str:
        return self._summary or super().__repr__()


class EvaluationResults(list):
    """What :func:`evaluate` returns (shaped like Unitxt's ``EvaluationResults``): a list with
    one dict per instance (its fields, ``prediction``, ``processed_prediction``,
    ``processed_references`` and ``score`` = ``{"global", "instance"}``), with the properties
    ``global_scores``, ``instance_scores``, ``subsets_scores`` and ``groups_scores``."""

    def __init__(self, rows: List[Dict[str, Any]], global_scores: GlobalScores, subsets: Any, groups: Any):
        super().__init__(rows)
        self._global = global_scores
        self._subsets = subsets
        self._groups = groups

    @property
    def global_scores(self) -> GlobalScores:
        """The global scores (see :class:`GlobalScores`)."""
        return self._global

    @property
    def instance_scores(self) -> List[Dict[str, Any]]:
        """One dict per instance: its task data fields, its other fields and its instance
        scores (``score``, ``score_name`` and each metric's scores), as Unitxt flattens them."""
        out = []
        for row in self:
            row = dict(row)
            scores = row.pop("score")
            task_data = row.pop("task_data", {})
            if isinstance(task_data, str):
                task_data = json.loads(task_data)
            out.append({**task_data, **row, **scores["instance"]})
        return out

    @property
    def subsets_scores(self) -> Dict[str, Any]:
        """Scores per subset (instances with a ``subset``), with ``subsets_mean``.

        Raises:
            InvalidInputError: the data has no subsets.
        """
        if self._subsets is None:
            raise InvalidInputError("the data has no subsets (instances carry no `subset`)")
        return self._subsets

    @property
    def groups_scores(self) -> Dict[str, Any]:
        """Scores per group (recipes with ``group_by``).

        Raises:
            InvalidInputError: the data has no groups (use ``group_by`` in the recipe).
        """
        if self._groups is None:
            raise InvalidInputError("the data has no group scores; use group_by in the recipe")
        return self._groups


def _nan(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _nan(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_nan(x) for x in v]
    return float("nan") if v is None else v


def _data_as_arrow(data) -> Optional[bytes]:
    """Arrow IPC bytes of a ``datasets.Dataset`` (the stored table, row order and selection
    kept), or None when ``data`` is something else."""
    try:
        import datasets
    except ImportError:  # pragma: no cover
        return None
    if not isinstance(data, datasets.Dataset):
        return None
    table = data.with_format("arrow")[:]
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def evaluate(
    predictions: Sequence[Any] = None,
    data: Any = None,
    calc_confidence_intervals: bool = True,
    dataset: Any = None,
) -> EvaluationResults:
    """Scores predictions as Unitxt's ``evaluate(predictions, data)`` does: each instance's
    postprocessors run on its prediction and references, then the metrics it names, with
    bootstrap confidence intervals (1,000 resamples, Unitxt's seeding) unless
    ``calc_confidence_intervals`` is False.

    Args:
        predictions: One prediction per instance (usually strings), in order.
        data: The prepared instances: a ``datasets.Dataset`` from :func:`load_dataset` (or
            from Unitxt), an ``IterableDataset``, or a list of instance dicts.
        calc_confidence_intervals: Compute ``*_ci_low`` / ``*_ci_high`` scores.
        dataset: Another name for ``data`` (Unitxt accepts both).

    Returns:
        :class:`EvaluationResults`: ``.global_scores`` (a dict with ``.summary``),
        ``.instance_scores``, ``.subsets_scores``, ``.groups_scores``. Scores that Unitxt gives
        as NaN are NaN.

    Raises:
        InvalidInputError: a prediction count that does not match the data (both counts are
            named), data without ``metrics``, no instances, unreadable data.
        ArtifactNotFoundError: a metric or postprocessor name that no catalog holds.
        UnsupportedError: a metric that needs a model (bert_score, LLM judges, ...).
    """
    if data is None:
        data = dataset
    if data is None:
        raise InvalidInputError("give the data to evaluate (data=...)")
    if predictions is None:
        raise InvalidInputError("give the predictions (predictions=...)")
    predictions = list(predictions)
    ipc = _data_as_arrow(data)
    rows_json = None
    if ipc is None:
        rows = [dict(r) for r in data]
        rows_json = json.dumps(rows, default=str)
    try:
        preds_json = json.dumps(predictions)
    except (TypeError, ValueError) as e:
        raise InvalidInputError(f"predictions are not JSON-like data: {e}") from None
    out = json.loads(
        _native.evaluate(preds_json, ipc, rows_json, list(_local_catalogs), bool(calc_confidence_intervals))
    )
    g = GlobalScores(_nan(out["global"]))
    g._summary = out.get("summary", "")
    processed = out.get("processed") or []
    if ipc is not None:
        instances = data.with_format(None)
        instances = [instances[i] for i in range(len(instances))]
    else:
        instances = rows
    rows_out = []
    for i, (inst, pred, scores) in enumerate(zip(instances, predictions, out["instances"])):
        row = dict(inst)
        row["prediction"] = pred
        if i < len(processed):
            row["processed_prediction"], row["processed_references"] = processed[i]
        row["score"] = {"global": g, "instance": _nan(scores)}
        rows_out.append(row)
    return EvaluationResults(rows_out, g, out.get("subsets"), out.get("groups"))
