"""A user's own Python components, run inside the Rust engine's pipeline.

Subclass one of these bases, as with Unitxt, and pass an instance wherever Unitxt takes the
component (a card's ``preprocess_steps``, a template's ``serializer``'s ``serializers`` list, a
recipe's ``metrics``):

- :class:`FieldOperator` (``unitxt_rs.operators``): implement ``process_value(self, value)``;
  the engine applies it to ``field`` (or each ``field_to_field`` pair) and writes ``to_field``,
  with Unitxt's ``process_every_value``, ``not_exist_ok``, ``get_default`` ... handling.
- :class:`InstanceOperator` (``unitxt_rs.operators``): implement
  ``process(self, instance, stream_name=None)`` returning the instance.
- :class:`SingleTypeSerializer` (``unitxt_rs.serializers``): set ``serialized_type`` and
  implement ``serialize(self, value, instance)``; used for values of that type.
- :class:`InstanceMetric` (``unitxt_rs.metrics``): set ``main_score`` and ``reduction_map``
  (``{"mean": [...]}`` or ``{"max": [...]}``), implement
  ``compute(self, references, prediction, task_data)`` returning a dict of scores; the engine
  reduces them and computes the bootstrap intervals of ``ci_scores``.
- :class:`GlobalMetric` (``unitxt_rs.metrics``): set ``main_score``, implement
  ``compute(self, references, predictions, task_data)`` over lists.

Each component reaches the engine as an inline object (``to_dict()``: ``__type__``
``python_callback`` with a handle to the Python object, valid in this process only: not in
Ray workers, nor in datasets saved and evaluated by another process); the
engine calls back into Python, holding the GIL only for the call. Prepared instances name a
component as Unitxt does, by its class (``{"__type__": "my_metric", <its arguments>}``, the
class name in snake case); evaluation makes the component again from that, in this process,
from the subclass of that name (:func:`resolve`). An exception raised in a
component becomes a :class:`unitxt_rs.UnitxtRsError` naming the component and, for operators,
the split and instance.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
import typing
from typing import Any, Dict, List, Optional

from .errors import InvalidInputError

__all__ = ["FieldOperator", "InstanceOperator", "SingleTypeSerializer", "InstanceMetric", "GlobalMetric", "isoftype"]

#: Handle -> component, for the components handed to the engine in this process.
_OBJECTS: Dict[int, Any] = {}

#: Type name (the class name in snake case, Unitxt's ``__type__``) -> the subclass, for every
#: component class defined in this process (a later class of the same name replaces it).
_CLASSES: Dict[str, type] = {}
_IDS = itertools.count(1)
_LOCK = threading.Lock()

# A field set to this is not given (the engine's default applies).
_UNSET: Any = object()


def _handle(obj: Any) -> int:
    with _LOCK:
        h = obj.__dict__.get("_unitxt_rs_handle")
        if h is None:
            h = next(_IDS)
            object.__setattr__(obj, "_unitxt_rs_handle", h)
            _OBJECTS[h] = obj
        return h


def _plain(v: Any) -> Any:
    """``v`` as JSON-able data: numpy scalars and arrays as Python values, tuples as lists,
    non-finite floats as ``None``."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        return _plain(v.tolist())
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def dispatch(handle: int, method: str, args_json: str) -> str:
    """Called by the engine: runs ``method`` of component ``handle`` on the JSON arguments
    and answers with JSON (see the engine's ``operators::callback::CallbackHost``)."""
    obj = _OBJECTS[handle]
    a = json.loads(args_json)
    if method == "process_value":
        out = obj.process_value(a["value"])
    elif method == "process":
        out = obj.process(a["instance"], a.get("stream_name"))
    elif method == "serialize":
        out = obj.serialize(a["value"], a["instance"]) if isoftype(a["value"], obj.serialized_type) else None
        if out is not None and not isinstance(out, str):
            out = str(out)
    elif method == "compute" and isinstance(obj, GlobalMetric):
        out = obj.compute(a["references"], a["predictions"], a["task_data"])
    elif method == "compute":
        out = obj.compute(references=a["references"], prediction=a["prediction"], task_data=a["task_data"])
    else:
        raise InvalidInputError(f"unknown component method {method!r}")
    return json.dumps(_plain(out), ensure_ascii=False)


def resolve(component_json: str) -> Optional[str]:
    """Called by the engine for a ``__type__`` it does not know: when a component class of
    that name (:data:`_CLASSES`) exists, an object of it made from the other keys (its
    arguments, as Unitxt makes an artifact from its JSON), as the engine's inline object
    (JSON text); ``None`` otherwise."""
    d = json.loads(component_json)
    cls = _CLASSES.get(d.get("__type__")) if isinstance(d, dict) else None
    if cls is None:
        return None
    obj = cls(**{k: v for k, v in d.items() if k != "__type__"})
    return json.dumps(obj.to_dict(), ensure_ascii=False)


def isoftype(value: Any, t: Any) -> bool:
    """Whether ``value`` (JSON-like data) is of type ``t``: a class, ``Any``, ``List[...]``,
    ``Dict[..., ...]``, ``Tuple[...]``, ``Union``/``Optional``, ``Literal``, a ``NewType`` or a
    ``TypedDict`` (as Unitxt's ``isoftype``)."""
    if t is Any or t is object:
        return True
    if hasattr(t, "__supertype__"):
        return isoftype(value, t.__supertype__)
    if isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__required_keys__"):
        hints = typing.get_type_hints(t)
        return isinstance(value, dict) and all(k in value for k in t.__required_keys__) and all(
            isoftype(value[k], hints[k]) for k in value if k in hints
        )
    origin = typing.get_origin(t)
    args = typing.get_args(t)
    if origin is typing.Union:
        return any(isoftype(value, x) for x in args)
    if origin is typing.Literal:
        return value in args
    if origin in (list, List):
        return isinstance(value, list) and (not args or all(isoftype(x, args[0]) for x in value))
    if origin in (dict, Dict):
        return isinstance(value, dict) and (
            not args or all(isoftype(k, args[0]) and isoftype(x, args[1]) for k, x in value.items())
        )
    if origin is tuple:
        return isinstance(value, (list, tuple)) and (not args or len(args) == len(value)) and all(
            isoftype(x, y) for x, y in zip(value, args)
        )
    if t is float:
        return isinstance(value, float)
    if isinstance(t, type):
        return isinstance(value, t)
    return False


class _Component:
    """Common base: Unitxt-style construction (keyword arguments for the class's fields, an
    unknown one is an error), then ``prepare()`` and ``verify()`` when the subclass has them."""

    #: Settings of the base class the engine honours, with their default (``_UNSET``: omitted).
    _base_fields: Dict[str, Any] = {}
    _kind = ""
    _unitxt_rs_callback = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from .text_utils import camel_to_snake_case

        cls.__type__ = camel_to_snake_case(cls.__name__)
        _CLASSES[cls.__type__] = cls

    def __init__(self, **kwargs: Any) -> None:
        # The arguments as given: Unitxt's JSON of the component (see `_unitxt_dict`).
        object.__setattr__(self, "_init_args", dict(kwargs))
        fields = self._all_fields()
        for k, v in kwargs.items():
            if k not in fields:
                raise InvalidInputError(
                    f"{type(self).__name__} has no argument {k!r}; its arguments: {', '.join(sorted(fields))}"
                )
            setattr(self, k, v)
        for k, d in self._base_fields.items():
            if k not in self.__dict__ and not hasattr(type(self), k):
                setattr(self, k, d)
        self.prepare()
        self.verify()

    @classmethod
    def _all_fields(cls) -> set:
        out = set(cls._base_fields) | {"__description__", "__tags__", "__title__", "data_classification_policy"}
        for c in cls.__mro__:
            out |= {k for k in getattr(c, "__annotations__", {}) if not k.startswith("_")}
            if c is _Component:
                break
            out |= {k for k, v in vars(c).items() if not k.startswith("_") and not callable(v)}
        return out

    def prepare(self) -> None:
        """Called after construction (Unitxt's ``prepare``); override to set up."""

    def verify(self) -> None:
        """Called after :meth:`prepare` (Unitxt's ``verify``); override to check settings."""

    def __call__(self, multi_stream: Any = None, **instance: Any) -> Any:
        """Runs this component on every stream of a multi-stream (see
        :meth:`unitxt_rs.artifact.Artifact.__call__`)."""
        from .artifact import Artifact

        return Artifact.__call__(self, multi_stream, **instance)

    def _spec(self) -> Dict[str, Any]:
        out = {}
        for k, d in self._base_fields.items():
            v = getattr(self, k, d)
            if v is not _UNSET and v != d:
                out[k] = _plain(v)
        return out

    def _unitxt_dict(self) -> Dict[str, Any]:
        """The component as Unitxt writes it: its class's type name and the arguments it was
        made with."""
        from .artifact import _jsonable

        return {"__type__": type(self).__type__, **{k: _jsonable(v) for k, v in self.__dict__.get("_init_args", {}).items()}}

    def to_dict(self) -> Dict[str, Any]:
        """The engine's inline object for this component (valid in this process only), with
        the component as Unitxt writes it under ``as`` (what outputs show)."""
        return {
            "__type__": "python_callback",
            "kind": self._kind,
            "id": _handle(self),
            "name": type(self).__name__,
            "as": self._unitxt_dict(),
            **self._spec(),
        }


_SCOPE = {"apply_to_streams": None, "dont_apply_to_streams": None}


class InstanceOperator(_Component):
    """Unitxt's ``InstanceOperator``: override ``process(self, instance, stream_name=None)``
    to return the (modified) instance dict. ``apply_to_streams`` / ``dont_apply_to_streams``
    limit the splits it runs on."""

    _base_fields = dict(_SCOPE)
    _kind = "instance_operator"

    def process(self, instance: Dict[str, Any], stream_name: Optional[str] = None) -> Dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement process(instance, stream_name)")


class FieldOperator(_Component):
    """Unitxt's ``FieldOperator``: override ``process_value(self, value)``. The engine reads
    ``field`` (and writes ``to_field``, default ``field``) or each ``field_to_field`` pair, with
    ``process_every_value``, ``get_default``, ``not_exist_ok``, ``not_exist_do_nothing`` and
    ``set_every_value`` as Unitxt's ``InstanceFieldOperator``."""

    _base_fields = {
        **_SCOPE,
        "field": None,
        "to_field": None,
        "field_to_field": None,
        "process_every_value": False,
        "get_default": None,
        "not_exist_ok": False,
        "not_exist_do_nothing": False,
        "set_every_value": False,
    }
    _kind = "field_operator"

    def process_value(self, value: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement process_value(value)")


class SingleTypeSerializer(_Component):
    """Unitxt's ``SingleTypeSerializer``: set ``serialized_type`` and override
    ``serialize(self, value, instance)`` returning text. Give it in a template's
    ``serializer=MultiTypeSerializer(serializers=[...])``; values of other types go to the next
    serializer."""

    serialized_type: Any = None
    _kind = "serializer"

    def serialize(self, value: Any, instance: Dict[str, Any]) -> str:
        raise NotImplementedError(f"{type(self).__name__} must implement serialize(value, instance)")


class _Metric(_Component):
    main_score: str = None  # type: ignore[assignment]
    ci_scores: Optional[List[str]] = None
    n_resamples: Optional[int] = None
    score_prefix: str = ""

    def _spec(self) -> Dict[str, Any]:
        if not isinstance(self.main_score, str):
            raise InvalidInputError(f"{type(self).__name__} must set main_score")
        out: Dict[str, Any] = {"main_score": self.main_score}
        if self.ci_scores is not None:
            out["ci_scores"] = list(self.ci_scores)
        if self.n_resamples is not None:
            out["n_resamples"] = int(self.n_resamples)
        if self.score_prefix:
            out["score_prefix"] = self.score_prefix
        return out


class InstanceMetric(_Metric):
    """Unitxt's ``InstanceMetric``: set ``main_score`` and ``reduction_map`` (``{"mean": [score
    names]}`` or ``{"max": [...]}``) and override ``compute(self, references, prediction,
    task_data)`` returning the instance's scores. Global scores are the reductions; bootstrap
    intervals (``n_resamples``, default 1,000) for ``ci_scores``, as Unitxt's."""

    reduction_map: Dict[str, List[str]] = None  # type: ignore[assignment]
    _kind = "instance_metric"

    def _spec(self) -> Dict[str, Any]:
        out = super()._spec()
        rm = self.reduction_map or {}
        for k, v in rm.items():
            if k not in ("mean", "max"):
                raise InvalidInputError(f"{type(self).__name__}: reduction {k!r} is not supported (mean, max)")
            out[k] = list(dict.fromkeys(v))
        return out

    def compute(self, references: List[Any], prediction: Any, task_data: Dict[str, Any]) -> Dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement compute(references, prediction, task_data)")


class GlobalMetric(_Metric):
    """Unitxt's ``GlobalMetric``: set ``main_score`` and override ``compute(self, references,
    predictions, task_data)`` over lists. Instance scores are one-instance computes, global
    scores the compute over all instances, each its whole dict (text, lists and integers kept as
    returned) with ``score`` and ``score_name``; bootstrap intervals (``n_resamples``, default
    100) for ``ci_scores`` (default: the main score)."""

    _kind = "global_metric"

    def compute(self, references: List[List[Any]], predictions: List[Any], task_data: List[Any]) -> Dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement compute(references, predictions, task_data)")


def install() -> None:
    """Places the bases in ``unitxt_rs.operators``, ``.serializers`` and ``.metrics``."""
    import sys
    import types as _types

    pkg = sys.modules["unitxt_rs"]
    for mod_name, classes in (
        ("operators", [FieldOperator, InstanceOperator]),
        ("serializers", [SingleTypeSerializer]),
        ("metrics", [InstanceMetric, GlobalMetric]),
    ):
        full = f"unitxt_rs.{mod_name}"
        mod = sys.modules.get(full)
        if mod is None:
            mod = _types.ModuleType(full)
            sys.modules[full] = mod
            setattr(pkg, mod_name, mod)
        for c in classes:
            setattr(mod, c.__name__, c)
