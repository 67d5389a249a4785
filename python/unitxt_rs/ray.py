"""Recipes prepared on a Ray cluster, as Ray Data datasets (``pip install unitxt_rs[ray]``).

:func:`prepare` splits a recipe run in two halves (the engine's ``Recipe::stage`` and
``Recipe::split_work``):

- **On the driver, once**: the card's loader, then every card step up to and including the
  last one that needs the whole split, the demos pool and ``max_*_instances``. Steps that need
  the whole split are the stream-level operators: split mixing and splitting
  (``split_random_mix``, ``rename_splits``, ``split`` ...), ``shuffle``, filters and
  deduplication (``filter_by_condition``, ``filter_by_expression``, ``deduplicate``,
  ``stream_refiner`` ...), joins and anything that reads several instances; a per-instance
  operator that is stateful (one that needs the stream's order) counts too. The demos pool is
  taken from ``demos_taken_from`` after that split ran its per-instance steps. The driver sends
  the staged instances (JSON text in Arrow batches) to the object store, and the pool (JSON
  text, broadcast to every worker).
- **On the workers, in ``map_batches``**: the card's trailing per-instance steps, the task,
  the augmentors, demo sampling, template, system prompt, format and finalization. Each worker
  is a Ray actor that builds the recipe once (no data read) and prepares Arrow batches in the
  Rust engine with the GIL released; out come Arrow batches with ``load_dataset``'s columns.

Most cards' preprocessing is per instance (``rename``, ``map_instance_values``, ``set``,
``copy``, ...), so the workers do most of the work. Loading is not distributed: the driver
reads
the source data (through the card's loader and the Hugging Face cache, as ``load_dataset``).
Every node needs the catalog (``unitxt-rs catalog install``, or the same ``UNITXT_CATALOGS``)
because workers build the recipe from its arguments. Benchmarks run whole on the driver (their
rows are then spread over the cluster).

Rows come out in ``load_dataset``'s order: :func:`prepare` turns on Ray Data's
``preserve_order`` in the current ``DataContext``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pyarrow as pa

from . import _args_json, _local_catalogs, _native, get_seed, load_dataset
from .errors import InvalidInputError, UnsupportedError

__all__ = ["prepare"]

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
    """

    def __init__(
        self,
        recipe: Optional[str],
        args_json: Optional[str],
        split: str,
        catalog_dirs: List[str],
        demos_pool_json: Optional[str],
        seed: int,
    ) -> None:
        _native.set_seed(seed)
        self._worker = _native.InstanceWorker(recipe, args_json, split, catalog_dirs, demos_pool_json)

    def __call__(self, batch: pa.Table) -> pa.Table:
        out = self._worker.process(_ipc(batch))
        return pa.ipc.open_stream(out).read_all()


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
    if not isinstance(num_workers, int) or num_workers < 1:
        raise InvalidInputError(f"num_workers must be a positive int, got {num_workers!r}")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive int, got {batch_size!r}")
    ray = _ray()
    if not ray.is_initialized():
        ray.init()
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True

    args_json = _args_json(recipe_args)
    catalogs = list(_local_catalogs)
    try:
        staged = _native.stage(recipe, args_json, split, catalogs)
    except UnsupportedError:
        # A benchmark: prepared whole here, then spread over the cluster.
        table = load_dataset(recipe, split=split, **recipe_args).data.table
        return ray.data.from_arrow([table.slice(i, batch_size) for i in range(0, max(len(table), 1), batch_size)])

    blocks = []
    while True:
        chunk = staged.next_batch(batch_size)
        if chunk is None:
            break
        blocks.append(pa.ipc.open_stream(chunk).read_all())
    if not blocks:
        from . import _empty_schema

        return ray.data.from_arrow(_empty_schema().empty_table())
    return ray.data.from_arrow(blocks).map_batches(
        PrepareBatches,
        fn_constructor_kwargs={
            "recipe": recipe,
            "args_json": args_json,
            "split": split,
            "catalog_dirs": catalogs,
            "demos_pool_json": staged.demos_pool_json(),
            "seed": get_seed(),
        },
        batch_size=None,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=num_workers),
        num_cpus=1,
        udf_modifying_row_count=False,
    )
