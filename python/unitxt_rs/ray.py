"""Recipes prepared on a Ray cluster, as Ray Data datasets (``pip install unitxt_rs[ray]``).

:func:`prepare` splits a recipe run in two halves (the engine's ``Recipe::stage`` and
``Recipe::split_work``):

- **On the driver, once**: the card's loader, then every card step up to and including the
  last one that needs the whole split, the demos pool and ``max_*_instances``. The steps that
  need the whole split are the stream-level operators: ``split_random_mix``, ``rename_splits``,
  ``slice_split``, ``separate_split``, ``delete_splits``, ``duplicate_split``,
  ``merge_streams``, ``join_streams``, ``shuffle``, ``filter_by_condition`` (and
  ``..._based_on_fields``), ``filter_by_expression``, ``deduplicate``, ``stream_refiner``,
  ``deterministic_balancer``, ``length_balancer``, ``minimum_one_example_per_label_refiner``,
  ``add_incremental_id``, ``duplicate_instances``, a ``sequential_operator``, and ``add_id``
  (a per-instance operator that needs the stream's order). Per-instance steps *before* the
  last of them run on the driver too. The demos pool is taken from ``demos_taken_from`` after
  that split ran its per-instance steps (on the driver): preparing that very split (say
  ``train`` with the default ``demos_taken_from``) leaves the workers only the verbalization;
  take the pool from another split for a training mix. The driver sends the staged instances
  (JSON text in Arrow batches) to the object store, and the pool (JSON text) to every worker.
- **On the workers, in ``map_batches``**: the card's trailing per-instance steps, the task,
  the augmentors, demo sampling, template, system prompt, format and finalization. Each worker
  is a Ray actor that builds the recipe once (no data read) and prepares Arrow batches in the
  Rust engine with the GIL released; out come Arrow batches with ``load_dataset``'s columns.

Most cards' preprocessing is per instance (``rename``, ``map_instance_values``, ``set``,
``copy``, ...), so the workers do most of the work. Loading is not distributed: the driver
reads the source data (through the card's loader and the Hugging Face cache, as ``load_dataset``).
Every node needs the catalog (``unitxt-rs catalog install``, or the same ``UNITXT_CATALOGS``)
because workers build the recipe from its arguments; the task field types registered on the
driver (``unitxt_rs.type_utils.register_type``) are registered in each worker. Benchmarks run whole on the driver (their
rows are then spread over the cluster).

Rows come out in ``load_dataset``'s order: :func:`prepare` turns on Ray Data's
``preserve_order`` in the current ``DataContext``.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import pyarrow as pa

import unitxt_rs as _api

from . import _native
from .errors import InvalidInputError, MissingSplitError, UnsupportedError

__all__ = ["prepare", "fuse"]

#: Instances per batch sent to a worker.
DEFAULT_BATCH_SIZE = 1024


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("unitxt_rs.ray needs Ray Data: pip install 'unitxt_rs[ray]'") from e
    return ray


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _worker_setup(seed: int, types: Sequence[Sequence[str]]) -> None:
    """What a worker process takes from the driver's process before it builds a recipe: the
    global seed and the registered task field types."""
    _native.set_seed(seed)
    for name, definition in types:
        _native.register_type(name, definition)


class PrepareBatches:
    """The per-instance half of a recipe, as a Ray Data callable class: one instance per
    actor builds the recipe's per-instance stages for the split once (``__init__``), then each
    call prepares a batch of staged instances (an Arrow table with ``index`` and ``instance``
    columns) into an Arrow table with ``load_dataset``'s columns, in the Rust engine, with the
    GIL released.

    Args:
        recipe, args_json, split, catalog_dirs: the recipe, as :func:`prepare` staged it.
        demos_pool_json: the demos pool the driver took (JSON text), or None.
        seed: the driver's global seed (:func:`unitxt_rs.get_seed`), set in the worker process.
        types: the task field types the driver registered
            (:func:`unitxt_rs.type_utils.register_type`), as ``(name, definition)`` pairs,
            registered in the worker process before the recipe is built.
    """

    def __init__(
        self,
        recipe: Optional[str],
        args_json: Optional[str],
        split: str,
        catalog_dirs: List[str],
        demos_pool_json: Optional[str],
        seed: int,
        types: Sequence[Sequence[str]] = (),
    ) -> None:
        _worker_setup(seed, types)
        self._worker = _native.InstanceWorker(recipe, args_json, split, catalog_dirs, demos_pool_json)

    def __call__(self, batch: pa.Table) -> pa.Table:
        out = self._worker.process(_ipc(batch))
        return pa.ipc.open_stream(out).read_all()


def _check_run_options(num_workers: Any, batch_size: Any) -> None:
    if not isinstance(num_workers, int) or num_workers < 1:
        raise InvalidInputError(f"num_workers must be a positive int, got {num_workers!r}")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive int, got {batch_size!r}")


def _init_ray():
    ray = _ray()
    if not ray.is_initialized():
        ray.init()
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    return ray


def _read_staged(staged, batch_size: int) -> List[pa.Table]:
    blocks = []
    while True:
        chunk = staged.next_batch(batch_size)
        if chunk is None:
            return blocks
        blocks.append(pa.ipc.open_stream(chunk).read_all())


def prepare(
    recipe: Optional[str] = None,
    split: Optional[str] = None,
    *,
    num_workers: int = 2,
    batch_size: int = DEFAULT_BATCH_SIZE,
    **recipe_args: Any,
):
    """Prepares one split of a recipe on Ray: a ``ray.data.Dataset`` whose rows, in order,
    are those of ``unitxt_rs.load_dataset(recipe, split=split, **recipe_args)`` (the same
    columns and values, as Arrow stores them: a chat ``source`` stays JSON text, which
    ``load_dataset``'s datasets decode on access).

    Args:
        recipe: A recipe string or a ``dataset_recipe`` name, as for ``load_dataset``.
        split: The split to prepare (required).
        num_workers: Ray actors running the per-instance stages (each takes one CPU).
        batch_size: Instances per batch handed to a worker (and per block of the result).
        **recipe_args: Recipe arguments, as for ``load_dataset``.

    Returns:
        A lazy ``ray.data.Dataset``; the workers run when it is consumed (``take_all``,
        ``write_parquet``, ``iter_batches``, ...). Ray is initialized first if it is not.

    Raises:
        InvalidInputError: no split, a bad ``num_workers`` or ``batch_size``, or any error of
            ``load_dataset`` that shows before the data is read. Errors met while preparing
            instances are raised by Ray when the dataset is consumed
            (``ray.exceptions.RayTaskError`` wrapping the ``unitxt_rs`` error).
    """
    if not split:
        raise InvalidInputError("give the split to prepare (split=...)")
    _check_run_options(num_workers, batch_size)
    ray = _init_ray()

    args_json = _api._args_json(recipe_args)
    catalogs = _api.get_local_catalogs()
    try:
        staged = _native.stage(recipe, args_json, split, catalogs)
    except UnsupportedError:
        # A benchmark: prepared whole here, then spread over the cluster.
        table = _api.load_dataset(recipe, split=split, **recipe_args).data.table
        return ray.data.from_arrow([table.slice(i, batch_size) for i in range(0, max(len(table), 1), batch_size)])

    blocks = _read_staged(staged, batch_size)
    if not blocks:
        return ray.data.from_arrow(_api._empty_schema().empty_table())
    return ray.data.from_arrow(blocks).map_batches(
        PrepareBatches,
        fn_constructor_kwargs={
            "recipe": recipe,
            "args_json": args_json,
            "split": split,
            "catalog_dirs": catalogs,
            "demos_pool_json": staged.demos_pool_json(),
            "seed": _api.get_seed(),
            "types": _native.registered_types(),
        },
        batch_size=None,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=num_workers),
        num_cpus=1,
        udf_modifying_row_count=False,
    )


# ---- fusion -----------------------------------------------------------------------------


def _prefix_subset(table: pa.Table, name: str) -> pa.Table:
    """`table` with `name` put first in every row's `subset` list (as Unitxt's fusions do for
    named subsets)."""
    i = table.schema.get_field_index("subset")
    field = table.schema.field(i)
    values = [[name] + list(v or []) for v in table.column(i).to_pylist()]
    return table.set_column(i, field, pa.array(values, type=field.type))


class FuseBatches:
    """The per-instance half of several recipes, as a Ray Data callable class (see
    :class:`PrepareBatches`): each row of a batch names its recipe (`subset_index`), runs of
    rows of one recipe go to that recipe's stages, and rows of a named subset get its name
    first in their `subset`.

    Args:
        subsets: per recipe, the keyword arguments of ``_native.InstanceWorker``.
        names: per recipe, its name (a named fusion) or None.
        seed: the driver's global seed.
        types: the driver's registered task field types (see :class:`PrepareBatches`).
    """

    def __init__(
        self,
        subsets: List[Dict[str, Any]],
        names: List[Optional[str]],
        seed: int,
        types: Sequence[Sequence[str]] = (),
    ) -> None:
        _worker_setup(seed, types)
        self._workers = [_native.InstanceWorker(**s) for s in subsets]
        self._names = names

    def __call__(self, batch: pa.Table) -> pa.Table:
        which = batch.column("subset_index").to_pylist()
        staged = batch.select(["index", "instance"])
        out = []
        start = 0
        while start < len(which):
            k = which[start]
            end = start + 1
            while end < len(which) and which[end] == k:
                end += 1
            part = self._workers[k].process(_ipc(staged.slice(start, end - start)))
            table = pa.ipc.open_stream(part).read_all()
            if self._names[k] is not None:
                table = _prefix_subset(table, self._names[k])
            out.append(table)
            start = end
        return pa.concat_tables(out)


def _recipe_and_args(r: Any) -> tuple:
    """A fusion subset: a recipe string, or a dict of recipe arguments."""
    if isinstance(r, str):
        return r, None
    if isinstance(r, Mapping):
        return None, _api._args_json(dict(r))
    raise InvalidInputError(f"a recipe to fuse is a recipe string or a dict of recipe arguments, got {r!r}")


def fuse(
    recipes: Union[Sequence[Any], Mapping[str, Any]],
    weights: Union[Sequence[float], Mapping[str, float], None] = None,
    max_instances: Optional[int] = None,
    split: str = "train",
    *,
    num_workers: int = 2,
    batch_size: int = DEFAULT_BATCH_SIZE,
):
    """A training mix of several recipes' `split`, with the semantics of Unitxt's fusions, on
    Ray (rows prepared by workers as in :func:`prepare`).

    - Without ``weights``, Unitxt's ``FixedFusion``: each recipe's rows in turn, at most
      ``max_instances`` from each (``max_instances_per_subset``).
    - With ``weights``, Unitxt's ``WeightedFusion``: each row is drawn from a recipe chosen at
      random in proportion to its weight among the recipes with rows left (``random.choices``
      seeded with ``"<seed>/weighted_fusion_<split>"``, as Unitxt seeds it), at most
      ``max_instances`` rows in all (``max_total_samples``).

    ``recipes`` is a list, or a dict from subset name to recipe; with a dict each row's
    ``subset`` gets the name first, as Unitxt does. A recipe is a recipe string (or
    ``dataset_recipe`` name) or a dict of recipe arguments. A recipe without ``split`` is left
    out, as in Unitxt.

    Returns:
        A lazy ``ray.data.Dataset`` with ``load_dataset``'s columns.

    Raises:
        InvalidInputError: weights that do not match the recipes (count, names, list vs dict),
            negative counts, and the errors of :func:`prepare`.
    """
    _check_run_options(num_workers, batch_size)
    if max_instances is not None and (not isinstance(max_instances, int) or max_instances < 0):
        raise InvalidInputError(f"max_instances must be a non-negative int, got {max_instances!r}")
    if isinstance(recipes, Mapping):
        names: List[Optional[str]] = [str(k) for k in recipes]
        items = list(recipes.values())
    else:
        items = list(recipes)
        names = [None] * len(items)
    if not items:
        raise InvalidInputError("give at least one recipe to fuse")
    named_weights: Optional[List[float]] = None
    if weights is not None:
        if isinstance(weights, Mapping) != isinstance(recipes, Mapping) or len(weights) != len(items):
            raise InvalidInputError("weights must match the recipes: a list of the same length, or a dict with the same names")
        if isinstance(weights, Mapping):
            missing = [n for n in names if n not in weights]
            if missing:
                raise InvalidInputError(f"no weight for subsets {missing}")
            named_weights = [float(weights[n]) for n in names]
        else:
            named_weights = [float(w) for w in weights]
    ray = _init_ray()
    catalogs = _api.get_local_catalogs()

    specs, tables, keep = [], [], []
    for k, item in enumerate(items):
        recipe, args_json = _recipe_and_args(item)
        try:
            staged = _native.stage(recipe, args_json, split, catalogs)
        except MissingSplitError:
            continue  # Unitxt's fusions skip a subset without the split.
        blocks = _read_staged(staged, batch_size)
        table = pa.concat_tables(blocks) if blocks else None
        specs.append(
            {"recipe": recipe, "args_json": args_json, "split": split, "catalog_dirs": catalogs,
             "demos_pool_json": staged.demos_pool_json()}
        )
        tables.append(table)
        keep.append(k)
    sizes = [0 if t is None else t.num_rows for t in tables]

    # The fused order: (subset, row) pairs.
    order: List[tuple] = []
    if named_weights is None:
        for s, n in enumerate(sizes):
            take = n if max_instances is None else min(n, max_instances)
            order.extend((s, j) for j in range(take))
    else:
        rng = random.Random(f"{_api.get_seed()}/weighted_fusion_{split}")
        active = list(range(len(sizes)))
        taken = [0] * len(sizes)
        while (max_instances is None or len(order) < max_instances) and active:
            s = rng.choices(population=active, weights=[named_weights[keep[a]] for a in active])[0]
            if taken[s] < sizes[s]:
                order.append((s, taken[s]))
                taken[s] += 1
            else:
                active.remove(s)
    if not order:
        return ray.data.from_arrow(_api._empty_schema().empty_table())

    parts = [
        t.append_column("subset_index", pa.array([s] * t.num_rows, pa.int32()))
        for s, t in enumerate(tables)
        if t is not None
    ]
    offsets, at = {}, 0
    for s, t in enumerate(tables):
        offsets[s] = at
        at += 0 if t is None else t.num_rows
    fused = pa.concat_tables(parts).take(pa.array([offsets[s] + j for s, j in order], pa.int64()))
    blocks = [fused.slice(i, batch_size) for i in range(0, fused.num_rows, batch_size)]
    return ray.data.from_arrow(blocks).map_batches(
        FuseBatches,
        fn_constructor_kwargs={
            "subsets": specs,
            "names": [names[k] for k in keep],
            "seed": _api.get_seed(),
            "types": _native.registered_types(),
        },
        batch_size=None,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=num_workers),
        num_cpus=1,
        udf_modifying_row_count=False,
    )
