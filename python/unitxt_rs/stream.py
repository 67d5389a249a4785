"""Streams of instances and multi-streams (Unitxt's ``unitxt.stream``), for applying operators
and metrics to plain dicts, as Unitxt scripts do::

    from unitxt_rs.operator import SequentialOperator
    from unitxt_rs.stream import MultiStream

    ms = MultiStream.from_iterables({"test": [{"prediction": "a", "references": ["a"]}]}, copying=True)
    scored = SequentialOperator(steps=["metrics.accuracy"])(ms)["test"]
    print(list(scored)[0]["score"]["global"]["accuracy"])

A :class:`MultiStream` is a dict of split name to :class:`Stream`; a stream is iterable (again
and again) and gives instance dicts. Calling an operator or metric artifact on a multi-stream
(``op(ms)``, see :meth:`unitxt_rs.artifact.Artifact.__call__`) runs it in the Rust engine
(:func:`apply_steps`) and returns a new multi-stream.

Differences from Unitxt: an operator call runs at once on every stream (Unitxt runs it when a
stream is iterated, and again at each iteration), and never changes the dicts it was given
(Unitxt's metrics write ``score`` into them when the multi-stream was made with
``copying=False``).
"""

from __future__ import annotations

import copy
import json
import tempfile
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

from .errors import InvalidInputError

__all__ = ["Stream", "ListStream", "DynamicStream", "GeneratorStream", "MultiStream", "apply_steps"]


class Stream:
    """A re-iterable stream of instance dicts (Unitxt's ``Stream``)."""

    def __iter__(self) -> Iterator[Dict[str, Any]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def peek(self) -> Dict[str, Any]:
        """The first instance. Raises ``StopIteration`` on an empty stream."""
        return next(iter(self))

    def take(self, n: int) -> Iterator[Dict[str, Any]]:
        """The first ``n`` instances (a generator)."""
        for i, instance in enumerate(self):
            if i >= n:
                break
            yield instance

    def set_copying(self, copying: bool) -> None:
        """Whether each iteration gives copies of the instances (Unitxt's ``copying``)."""
        self.copying = copying

    def to_dataset(self, disable_cache: bool = False, cache_dir: Optional[str] = None, features: Any = None):
        """The stream as a ``datasets.Dataset`` (Unitxt's ``Stream.to_dataset``)."""
        import datasets

        with tempfile.TemporaryDirectory() as scratch:
            return datasets.Dataset.from_generator(
                self.__iter__,
                keep_in_memory=disable_cache,
                cache_dir=scratch if disable_cache else cache_dir,
                features=features,
            )

    def to_iterable_dataset(self, features: Any = None):
        """The stream as a ``datasets.IterableDataset``."""
        import datasets

        return datasets.IterableDataset.from_generator(self.__iter__, features=features)


class ListStream(Stream):
    """A stream over a list of instances (Unitxt's ``ListStream``); with ``copying``, each
    iteration gives deep copies."""

    def __init__(self, instances_list: List[Dict[str, Any]], copying: bool = False) -> None:
        self.instances_list = instances_list
        self.copying = copying

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        if self.copying:
            return iter(copy.deepcopy(self.instances_list))
        return iter(self.instances_list)

    def __repr__(self) -> str:
        return f"ListStream({len(self.instances_list)} instances)"


class DynamicStream(Stream):
    """A stream that calls ``generator(**gen_kwargs)`` at each iteration (Unitxt's
    ``DynamicStream``); with ``copying``, each instance is given as a deep copy. ``caching`` is
    accepted for Unitxt compatibility."""

    def __init__(
        self,
        generator: Callable[..., Iterable[Dict[str, Any]]],
        gen_kwargs: Optional[Dict[str, Any]] = None,
        caching: bool = False,
        copying: bool = False,
    ) -> None:
        self.generator = generator
        self.gen_kwargs = dict(gen_kwargs or {})
        self.caching = caching
        self.copying = copying

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        for instance in self.generator(**self.gen_kwargs):
            yield copy.deepcopy(instance) if self.copying else instance


#: Unitxt's other name for a generator-backed stream.
GeneratorStream = DynamicStream


class MultiStream(dict):
    """Named streams: a dict of split name (``str``) to :class:`Stream` (Unitxt's
    ``MultiStream``). Index it by split name to get a stream; call an operator or a metric on it
    to get a new one.

    Raises:
        InvalidInputError: a key that is not a string, a value that is not a stream.
    """

    def __init__(self, data: Optional[Dict[str, Stream]] = None) -> None:
        super().__init__()
        for key, value in (data or {}).items():
            self[key] = value

    def __setitem__(self, key: str, value: Stream) -> None:
        if not isinstance(key, str):
            raise InvalidInputError(f"MultiStream keys must be split names (str), got {key!r}")
        if not isinstance(value, Stream):
            raise InvalidInputError(f"MultiStream values must be streams, got {type(value).__name__} for {key!r}")
        super().__setitem__(key, value)

    def get_generator(self, key: str) -> Iterator[Dict[str, Any]]:
        """The instances of stream ``key``, as a generator."""
        yield from self[key]

    def set_caching(self, caching: bool) -> None:
        """Accepted for Unitxt compatibility (streams here are not cached as datasets)."""
        for stream in self.values():
            if hasattr(stream, "caching"):
                stream.caching = caching

    def set_copying(self, copying: bool) -> None:
        """Sets ``copying`` on every stream."""
        for stream in self.values():
            stream.set_copying(copying)

    def to_dataset(self, disable_cache: bool = True, cache_dir: Optional[str] = None, features: Any = None):
        """The streams as a ``datasets.DatasetDict``."""
        import datasets

        return datasets.DatasetDict(
            {k: v.to_dataset(disable_cache=disable_cache, cache_dir=cache_dir, features=features) for k, v in self.items()}
        )

    def to_iterable_dataset(self, features: Any = None):
        """The streams as a ``datasets.IterableDatasetDict``."""
        import datasets

        return datasets.IterableDatasetDict({k: v.to_iterable_dataset(features=features) for k, v in self.items()})

    @classmethod
    def from_iterables(
        cls, iterables: Dict[str, Iterable[Dict[str, Any]]], caching: bool = False, copying: bool = False
    ) -> "MultiStream":
        """A multi-stream over iterables of instance dicts, one per split name (Unitxt's
        ``MultiStream.from_iterables``). Each stream iterates its iterable anew each time (a
        list can be read many times, a generator once); with ``copying``, it gives copies."""
        return cls({k: DynamicStream(it.__iter__, caching=caching, copying=copying) for k, it in iterables.items()})

    @classmethod
    def from_generators(cls, generators: Dict[str, Any], caching: bool = False, copying: bool = False) -> "MultiStream":
        """A multi-stream over reusable generators (objects with ``generator`` and
        ``gen_kwargs``, as Unitxt's ``ReusableGenerator``), one per split name."""
        return cls(
            {
                k: DynamicStream(g.generator, gen_kwargs=getattr(g, "gen_kwargs", None), caching=caching, copying=copying)
                for k, g in generators.items()
            }
        )


def _plain(value: Any, where: str) -> Any:
    """``json.dumps``'s ``default``: NumPy scalars and arrays as numbers and lists; anything
    else that JSON cannot hold is an error naming where it is."""
    for attr in ("tolist", "item"):
        f = getattr(value, attr, None)
        if callable(f) and type(value).__module__ == "numpy":
            return f()
    raise InvalidInputError(f"{where}: a value of type {type(value).__name__} cannot be given to the engine (JSON-like data only)")


def apply_steps(steps: List[Any], multi_stream: Dict[str, Iterable[Dict[str, Any]]]) -> MultiStream:
    """Runs ``steps`` (operators and metrics: artifact objects, catalog names with optional
    ``[overwrites]``, or dicts with ``__type__``) in order on every stream of ``multi_stream``
    in the Rust engine, as Unitxt's ``SequentialOperator(steps)(multi_stream)``.

    A metric reads each instance's ``prediction``, ``references`` and ``task_data`` and writes
    ``score`` (``{"global": ..., "instance": ...}``) into every instance of the stream, over the
    scores earlier metrics left; ``TaskBasedLLMasJudge`` judges (``metrics.rag.external_rag.*``)
    take an instance without ``task_data`` as its own task data, as Unitxt's do. LLM judges call
    their engines' endpoints. Other operators (``Rename``, ``Set``, ...) transform the streams.

    Returns:
        A new :class:`MultiStream` of the resulting instances (the input is not changed).

    Raises:
        InvalidInputError: an instance that is not a dict or holds values JSON cannot, a metric
            on instances without ``prediction`` or ``references``, a step that is neither an
            operator nor a metric.
        UnsupportedError: a metrics list as a step.
        ArtifactNotFoundError: a catalog name no catalog holds. And as
            :func:`unitxt_rs.evaluate` for judges (``UnitxtIOError`` when a request fails).
    """
    from . import _local_catalogs, _native
    from .artifact import _jsonable

    refs = [_jsonable(s) for s in steps]
    try:
        steps_json = json.dumps(refs)
    except (TypeError, ValueError) as e:
        raise InvalidInputError(f"the steps are not artifacts: {e}") from None
    parts = []
    for name, stream in multi_stream.items():
        instances = []
        for i, instance in enumerate(stream):
            if not isinstance(instance, dict):
                raise InvalidInputError(f"stream {name!r}: instance {i} is a {type(instance).__name__}, not a dict")
            where = f"stream {name!r}, instance {i}"
            try:
                instances.append(json.dumps(instance, ensure_ascii=False, default=lambda v, w=where: _plain(v, w)))
            except ValueError as e:  # a circular reference
                raise InvalidInputError(f"{where}: {e}") from None
        parts.append(f"{json.dumps(name)}: [{', '.join(instances)}]")
    out = json.loads(
        _native.run_steps(steps_json, "{" + ", ".join(parts) + "}", list(_local_catalogs)),
    )
    return MultiStream({name: ListStream(instances) for name, instances in out.items()})
