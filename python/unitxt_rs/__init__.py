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

Beyond those, Unitxt's API as Unitxt 1.26.10 has it: :func:`create_dataset`, :func:`produce`,
:func:`post_process`, :func:`add_to_catalog`, :func:`load_recipe`, :func:`fill_metadata`,
``settings`` and ``constants``, ``unitxt_rs.api``, and artifact classes with Unitxt's names in
Unitxt's modules (``unitxt_rs.templates.InputOutputTemplate``, ``unitxt_rs.card.TaskCard``...,
see :mod:`unitxt_rs.artifact`), so that a script written for ``unitxt`` runs with its imports
changed to ``unitxt_rs``.

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
    MissingDemosSplitError,
    MissingSplitError,
    NeedsError,
    NotInCatalogError,
    ReferenceCycleError,
    UnitxtIOError,
    UnitxtRsError,
    UnknownFieldError,
    UnknownTypeError,
    UnsupportedError,
)

__all__ = [
    "load_dataset",
    "evaluate",
    "infer",
    "create_dataset",
    "produce",
    "post_process",
    "load_recipe",
    "fill_metadata",
    "add_to_catalog",
    "fetch_artifact",
    "settings",
    "constants",
    "get_settings",
    "get_constants",
    "get_logger",
    "Artifact",
    "InstanceScores",
    "GroupsScores",
    "SubsetsScores",
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
    "UnknownTypeError",
    "UnknownFieldError",
    "NotInCatalogError",
    "MissingSplitError",
    "MissingDemosSplitError",
    "ReferenceCycleError",
    "NeedsError",
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


def _default_catalog_searched() -> None:
    """Puts the directory :func:`add_to_catalog` writes to by default among the searched
    catalogs, below every registered one (as Unitxt's own catalog is searched last)."""
    from .catalog import default_local_catalog

    p = os.path.abspath(default_local_catalog())
    if os.path.isdir(p) and p not in _local_catalogs:
        _local_catalogs.insert(0, p)


def get_local_catalogs() -> List[str]:
    """The directories given to :func:`register_local_catalog`, lowest precedence first."""
    return list(_local_catalogs)


def default_catalog_dir() -> str:
    """Where ``unitxt-rs catalog install`` puts Unitxt's catalog (``$UNITXT_RS_CATALOG`` or
    ``~/.cache/unitxt-rs/catalog-<version>``)."""
    return _native.default_catalog_dir()


def get_from_catalog(name: str, catalog_path: Optional[str] = None):
    """The artifact ``name`` (e.g. ``"templates.classification.multi_class.instruction"``) as an
    artifact object (Unitxt's ``get_from_catalog``): an instance of its class
    (``InputOutputTemplate``...), with ``__id__`` = ``name`` and ``to_dict()`` giving the JSON
    stored in the catalog.

    Args:
        name: The catalog name.
        catalog_path: A catalog directory to look in first (besides the registered ones).

    Raises:
        ArtifactNotFoundError: no catalog holds ``name`` (the message suggests close names), or
            its ``__type__`` is not one the engine knows.
        InvalidInputError: the artifact's file is not valid JSON.
    """
    from .artifact import from_dict

    dirs = list(_local_catalogs) + ([os.fspath(catalog_path)] if catalog_path is not None else [])
    return from_dict(json.loads(_native.get_from_catalog(name, dirs)), id=name)


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
    """A recipe argument as JSON-like data: artifact objects become their catalog name when
    they have one, else their dict (``to_dict``, as for Unitxt objects); lists and dicts of
    them likewise; paths become strings."""
    from .artifact import Artifact, _jsonable as artifact_json

    if isinstance(value, (Artifact, list, tuple, dict)):
        value = artifact_json(value)
    elif hasattr(value, "to_dict") and callable(value.to_dict):
        value = value.to_dict()
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError) as e:
        raise InvalidInputError(f"recipe argument {name!r} is not JSON-like data: {e}") from None
    return value


def _answer_cache_file() -> str:
    """The answer cache of inference engines with ``use_cache`` (Unitxt's default), for their
    ``infer`` and for LLM judges during ``evaluate``: ``unitxt_rs_answers.sqlite`` in
    ``settings.inference_engine_cache_path`` (the directory is made when first written)."""
    from .settings_utils import get_settings

    return os.path.join(get_settings().inference_engine_cache_path, "unitxt_rs_answers.sqlite")


def _args_json(recipe_args: Mapping[str, Any]) -> Optional[str]:
    if not recipe_args:
        return None
    return json.dumps({k: _jsonable(v, k) for k, v in recipe_args.items()})


def _features():
    """The ``datasets`` features of prepared splits (the engine's schema metadata): Unitxt's
    dataset schema, except that images are not decoded: rows give each as Unitxt's own rows
    do, ``{"bytes": <the file>, "path": None}``."""
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

    info = datasets.DatasetInfo(features=_features())
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
    dataset_query: Any = None,
    split: Optional[str] = None,
    streaming: bool = False,
    use_cache: Optional[bool] = None,
    **recipe_args: Any,
):
    """Prepares a Unitxt recipe and returns it as Hugging Face ``datasets`` (Unitxt's
    ``load_dataset``, same signature).

    Args:
        dataset_query: A Unitxt recipe string (``"card=cards.wnli,template=...,num_demos=3"``),
            the name of a ``dataset_recipe`` or ``benchmark`` in the catalog, or a
            ``DatasetRecipe`` / ``Benchmark`` object. Optional when ``recipe_args`` name the
            card. (``recipe=`` is accepted as another name for it.)
        split: The split to return (``"train"``, ``"validation"``, ``"test"``...). ``None``:
            every split of the recipe.
        streaming: Return iterable datasets that prepare instances as they are read, in
            bounded memory, instead of preparing whole splits.
        use_cache: Accepted for Unitxt compatibility; the engine prepares the recipe anew each
            time (it keeps no dataset cache), which gives the same rows.
        **recipe_args: Recipe arguments, as in Unitxt (``card=``, ``template=``, ``format=``,
            ``system_prompt=``, ``num_demos=``, ``demos_pool_size=``, ``max_test_instances=``,
            ``loader_limit=``, ...). They override the same arguments of ``dataset_query``. An
            artifact is a catalog name, an artifact object (``TaskCard(...)``,
            ``InputOutputTemplate(...)``) or a dict with ``__type__`` (for example a card whose
            loader is ``{"__type__": "load_from_dictionary", "data": {"test": [...]}}`` to
            prepare in-memory records; see also :func:`create_dataset`).

    Returns:
        ``datasets.Dataset`` when ``split`` is given, else ``datasets.DatasetDict`` (split name
        to Dataset); with ``streaming``, ``datasets.IterableDataset`` /
        ``datasets.IterableDatasetDict``. Columns: ``source`` (the prompt; for chat formats the
        list of messages), ``target``, ``references``, ``metrics``, ``groups``, ``subset``,
        ``media``, ``postprocessors``, ``task_data`` (JSON text) and
        ``data_classification_policy``, with the values Unitxt 1.26.10 gives. Each dataset's
        ``info.description`` is the call's metadata, as Unitxt's (:func:`fill_metadata`).

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
    metadata = {"dataset_query": dataset_query, "split": split, "streaming": streaming, "use_cache": bool(use_cache)}
    metadata.update(recipe_args)
    recipe = recipe_args.pop("recipe", None) if dataset_query is None else None
    if recipe is None:
        recipe = dataset_query
    from .api import _recipe_source

    recipe, extra_catalogs, base_args = _recipe_source(recipe)
    ds = _load(recipe, split, streaming, {**base_args, **recipe_args}, extra_catalogs)
    if not streaming:
        from .api import fill_metadata

        meta = fill_metadata(**metadata)
        for d in ds.values() if isinstance(ds, dict) else [ds]:
            d.info.description = dict(meta)
    return ds


def _load(recipe: Optional[str], split: Optional[str], streaming: bool, recipe_args: Dict[str, Any], extra_catalogs: List[str]):
    import datasets

    args_json = _args_json(recipe_args)
    catalogs = list(_local_catalogs) + list(extra_catalogs)
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
        """A Markdown table, one row per score (sorted by name, rounded to 2 decimals) with
        its interval, then the main score's name and the number of instances, as Unitxt's
        ``GlobalScores.summary`` prints (with pandas and tabulate installed; without them the
        engine's plain-text table)."""
        try:
            import pandas  # noqa: F401
            import tabulate  # noqa: F401
        except ImportError:
            return self._summary
        df = self.to_df().round(2).astype(object).fillna("").sort_index()
        df = df.drop("num_of_instances", axis=0, errors="ignore").reset_index()
        return df.to_markdown(index=False) + f"\nMain Score: {self['score_name']}\nNum Instances: {self['num_of_instances']}"

    def to_df(self):
        """A ``pandas.DataFrame`` indexed by ``score_name`` with the columns ``score``,
        ``ci_low`` and ``ci_high`` (None when a score has no interval), one row per numeric
        score, as Unitxt's ``GlobalScores.to_df``. Needs pandas."""
        import pandas as pd

        rows = [
            {"score_name": k, "score": v, "ci_low": self.get(f"{k}_ci_low"), "ci_high": self.get(f"{k}_ci_high")}
            for k, v in self.items()
            if not (k.endswith("_ci_low") or k.endswith("_ci_high")) and isinstance(v, (int, float))
        ]
        return pd.DataFrame(rows).set_index("score_name")

    def __repr__(self) -> str:
        return self._summary or super().__repr__()

    def __reduce__(self):
        return (GlobalScores, (dict(self),))


def _markdown(df, max_col_width: int = 30) -> str:
    """``df`` as a Markdown table whose cells are wrapped at ``max_col_width`` characters (as
    Unitxt prints instance scores). Needs pandas and tabulate."""
    import textwrap

    out = df.copy()
    for col in out.columns:
        out[col] = out[col].apply(lambda x: "\n".join(textwrap.fill(line, width=max_col_width) for line in str(x).splitlines()))
    return out.to_markdown()


class InstanceScores(list):
    """The instance scores (Unitxt's ``InstanceScores``): one dict per instance with its task
    data fields, its other fields and its instance scores (``score``, ``score_name`` and each
    metric's scores), flattened as Unitxt flattens them. ``original_instances`` holds the
    result rows they came from."""

    def __init__(self, rows: List[Dict[str, Any]]):
        self.original_instances = rows
        out = []
        for row in rows:
            row = dict(row)
            scores = row.pop("score")
            task_data = row.pop("task_data", {})
            if isinstance(task_data, str):
                task_data = json.loads(task_data)
            out.append({**task_data, **row, **scores["instance"]})
        super().__init__(out)

    def to_df(self, flatten: bool = True, columns: Optional[List[str]] = None):
        """A ``pandas.DataFrame`` of the flattened scores (``flatten=False``: of the original
        result rows), only ``columns`` when given (a missing one raises ``KeyError``). Needs
        pandas."""
        import pandas as pd

        df = pd.DataFrame(self if flatten else self.original_instances)
        return df[columns] if columns is not None else df

    def to_markdown(self, flatten: bool = True, columns: Optional[List[str]] = None, max_col_width: int = 30) -> str:
        """:meth:`to_df` as a Markdown table with wrapped cells. Needs pandas and tabulate."""
        return _markdown(self.to_df(flatten, columns), max_col_width)

    @property
    def summary(self) -> str:
        """The first five instances as a Markdown table: ``source``, ``prediction``, the
        processed prediction and references, the main ``score``, its ``score_name`` and all
        float scores (Unitxt's ``InstanceScores.summary``). Needs pandas and tabulate."""
        cols = ["source", "prediction", "processed_prediction", "references", "processed_references", "score"]
        df = self.to_df(flatten=False, columns=cols).head()
        df["score_name"] = df["score"].apply(lambda s: s["instance"]["score_name"])
        df["all_scores"] = df["score"].apply(
            lambda s: "\n".join(f"{k}: {v}" for k, v in s["instance"].items() if isinstance(v, float))
        )
        df["score"] = df["score"].apply(lambda s: s["instance"]["score"])
        return _markdown(df)


class GroupsScores(dict):
    """Scores per group (Unitxt's ``GroupsScores``): for each ``group_by`` key (a field name,
    or a tuple of them), each group's scores."""

    @property
    def summary(self) -> str:
        """One Markdown table per ``group_by`` key (titled ``# Group By: <key>``) with a row per
        group: the group's value(s), ``score``, ``score_name``, ``score_ci_low``,
        ``score_ci_high`` and ``num_of_instances`` (columns empty everywhere are left out).
        Needs pandas and tabulate."""
        import pandas as pd

        metric_cols = ["score", "score_name", "score_ci_low", "score_ci_high", "num_of_instances"]
        lines = []
        for key, groups in self.items():
            kinds = key if isinstance(key, tuple) else (key,)
            rows = []
            for gname, scores in groups.items():
                names = gname if isinstance(gname, tuple) else (gname,)
                row = {k: str(n) for k, n in zip(kinds, names)}
                row.update({c: scores.get(c, "") for c in metric_cols})
                rows.append(row)
            df = pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(kinds) + metric_cols)
            df = df.fillna("")
            df = df.drop(columns=[c for c in df.columns if df[c].eq("").all()])
            df = df[[c for c in kinds if c in df.columns] + [c for c in metric_cols if c in df.columns]]
            lines.append("# Group By: " + ", ".join(kinds))
            lines.append(df.to_markdown(index=False) if not df.empty else "_No matching rows_")
            lines.append("")
        return "\n".join(lines)


class SubsetsScores(dict):
    """Scores per subset (Unitxt's ``SubsetsScores``): subset name to its scores (nested for
    benchmarks of benchmarks), with ``subsets_mean``."""

    @property
    def summary(self) -> str:
        """A Markdown table with a row per (sub)subset: its path, ``score``, ``score_name``,
        ``score_ci_low``, ``score_ci_high``, ``num_of_instances``. Needs pandas and tabulate."""
        import pandas as pd

        rows: List[Dict[str, Any]] = []
        group_kinds: List[str] = []
        cols = ("score", "score_name", "score_ci_low", "score_ci_high", "num_of_instances")

        def walk(node: Dict[str, Any], path: List[str]) -> None:
            if "score" in node and "score_name" in node:
                base = {"subset": ".".join(path) if path else "ALL", **{c: node.get(c, "") for c in cols}}
                groups = node.get("groups") or {}
                for kind, by_name in groups.items():
                    if kind not in group_kinds:
                        group_kinds.append(kind)
                    for gname, scores in by_name.items():
                        rows.append({**base, **{c: scores.get(c, base[c]) for c in cols}, kind: str(gname)})
                if not groups:
                    rows.append(base)
            for k, v in node.items():
                if isinstance(v, dict) and k != "groups":
                    walk(v, path + [k])

        walk(self, [])
        df = pd.DataFrame(rows)
        for kind in group_kinds:
            if kind not in df.columns:
                df[kind] = ""
        df = df.fillna("")
        df = df.drop(columns=[c for c in df.columns if df[c].eq("").all()])
        kinds = [c for c in df.columns if c not in cols and c != "subset"]
        df = df[[c for c in ["subset", *kinds, *cols] if c in df.columns]]
        return df.to_markdown(index=False)


class EvaluationResults(list):
    """What :func:`evaluate` returns (shaped like Unitxt's ``EvaluationResults``): a list with
    one dict per instance (its fields, ``prediction``, ``processed_prediction``,
    ``processed_references`` and ``score`` = ``{"global", "instance"}``), with the properties
    ``global_scores``, ``instance_scores``, ``subsets_scores`` and ``groups_scores``, and
    ``metadata`` (the data's metadata and the time of the evaluation)."""

    def __init__(self, rows: List[Dict[str, Any]], global_scores: GlobalScores, subsets: Any, groups: Any):
        super().__init__(rows)
        self._global = global_scores
        self._subsets = subsets
        self._groups = groups
        self.metadata: Dict[str, Any] = {}

    @property
    def global_scores(self) -> GlobalScores:
        """The global scores (see :class:`GlobalScores`)."""
        return self._global

    @property
    def instance_scores(self) -> InstanceScores:
        """The instance scores (see :class:`InstanceScores`: a list with ``.summary`` and
        ``.to_df()``)."""
        return InstanceScores(list(self))

    @property
    def subsets_scores(self) -> SubsetsScores:
        """Scores per subset (instances with a ``subset``), with ``subsets_mean``.

        Raises:
            InvalidInputError: the data has no subsets.
        """
        if self._subsets is None:
            raise InvalidInputError("the data has no subsets (instances carry no `subset`)")
        return SubsetsScores(self._subsets)

    @property
    def groups_scores(self) -> GroupsScores:
        """Scores per group (recipes with ``group_by``), with ``.summary``.

        Raises:
            InvalidInputError: the data has no groups (use ``group_by`` in the recipe).
        """
        if self._groups is None:
            raise InvalidInputError("the data has no group scores; use group_by in the recipe")
        return GroupsScores(self._groups)


#: The order of the fields of Unitxt's result rows.
_ROW_ORDER = ("metrics", "data_classification_policy", "media", "postprocessors", "target", "references", "source",
              "task_data", "groups", "subset")


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
        UnsupportedError: a metric that needs a local model (bert_score, ...). LLM judges call
            their engine's endpoint.
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
        _native.evaluate(preds_json, ipc, rows_json, list(_local_catalogs), bool(calc_confidence_intervals), _answer_cache_file())
    )
    # NaN scores come as float('nan'), Python's None as None (Python's JSON).
    g = GlobalScores(out["global"])
    g._summary = out.get("summary", "")
    processed = out.get("processed") or []
    if ipc is not None:
        instances = data.with_format(None)
        instances = [instances[i] for i in range(len(instances))]
    else:
        instances = rows
    rows_out = []
    for i, (inst, pred, scores) in enumerate(zip(instances, predictions, out["instances"])):
        inst = _decode_row(dict(inst))
        # Unitxt's order of the fields (it shows in InstanceScores.to_df's columns).
        row = {k: inst[k] for k in _ROW_ORDER if k in inst}
        row.update((k, v) for k, v in inst.items() if k not in row)
        row["prediction"] = pred
        if i < len(processed):
            row["processed_prediction"], row["processed_references"] = processed[i]
        if isinstance(row.get("task_data"), str):
            row["task_data"] = json.loads(row["task_data"])
        if isinstance(row.get("task_data"), dict):
            # Unitxt's metrics see the prompt as part of the task data, and its rows keep it.
            row["task_data"]["source"] = row.get("source")
        row["score"] = {"global": g, "instance": scores}
        if out.get("groups") is not None:
            row["score"]["groups"] = out["groups"]
        if out.get("subsets") is not None:
            row["score"]["subsets"] = out["subsets"]
        rows_out.append(row)
    results = EvaluationResults(rows_out, g, out.get("subsets"), out.get("groups"))
    info = getattr(data, "info", None)
    if info is not None and getattr(info, "description", None):
        results.metadata["dataset"] = info.description
    from datetime import datetime

    results.metadata["creation_time"] = datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return results


def get_logger(name: Optional[str] = None):
    """The package's logger, or logger ``name`` (Unitxt's ``get_logger``; see
    :mod:`unitxt_rs.logging_utils`: it writes to stdout)."""
    from .logging_utils import get_logger as get

    return get(name)


# ---- Unitxt's API beyond load_dataset / evaluate ----------------------------------------------

from .artifact import Artifact, _install_modules, fetch_artifact  # noqa: E402
from . import _callbacks  # noqa: E402
from . import api  # noqa: E402
from .api import create_dataset, fill_metadata, infer, load_recipe, post_process, produce  # noqa: E402
from .catalog import add_to_catalog  # noqa: E402
from .settings_utils import get_constants, get_settings  # noqa: E402

settings = get_settings()
constants = get_constants()
_install_modules()
_callbacks.install()
_default_catalog_searched()
