"""Task field types (Unitxt's ``unitxt.type_utils``): registering a custom type, writing a
Python type as the type string a task's JSON holds, reading one back, and checking a value
against a type.

A custom type is a ``typing.NewType`` or ``typing.TypedDict`` (or a class with a
``__verify_type__`` class method). :func:`register_type` makes its name usable in type strings
(``Task(input_fields={"dialog": CustomDialog})`` is written ``{"dialog": "CustomDialog"}``),
and tells the engine what it stands for, so that the task checks instances against it as
Unitxt's does: a ``NewType`` as its supertype, a ``TypedDict`` as a dict, a
``__verify_type__`` class as anything.
"""

from __future__ import annotations

import ast
import typing
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

__all__ = [
    "register_type",
    "UnsupportedTypeError",
    "is_new_type",
    "is_typed_dict",
    "is_type",
    "strtype",
    "to_type_string",
    "to_type_dict",
    "parse_type_string",
    "parse_type_dict",
    "format_type_string",
    "isoftype",
    "to_float_or_default",
]

#: Name -> type, for the names a type string may use.
_registered_types: Dict[str, Any] = {
    "Any": typing.Any,
    "List": typing.List,
    "Dict": typing.Dict,
    "Tuple": typing.Tuple,
    "Union": typing.Union,
    "Optional": typing.Optional,
    "Literal": typing.Literal,
    "int": int,
    "str": str,
    "float": float,
    "bool": bool,
}


class UnsupportedTypeError(ValueError):
    """A value used as a type that is not one (Unitxt's ``UnsupportedTypeError``)."""

    def __init__(self, type_object: Any):
        super().__init__(
            f"Type: '{type_object!s}' is not supported type. Use one of {', '.join(_registered_types)}"
        )


def is_new_type(obj: Any) -> bool:
    """Whether ``obj`` was made by ``typing.NewType``."""
    return callable(obj) and hasattr(obj, "__supertype__")


def is_typed_dict(obj: Any) -> bool:
    """Whether ``obj`` is a ``typing.TypedDict`` class."""
    return typing.is_typeddict(obj)


def register_type(new_type: Any) -> None:
    """Makes ``new_type`` (a ``NewType``, a ``TypedDict`` or a class with ``__verify_type__``)
    usable by its name in task field types (Unitxt's ``register_type``), here and in the
    engine.

    Raises:
        AssertionError: ``new_type`` is none of those (as Unitxt).
    """
    assert is_new_type(new_type) or is_typed_dict(new_type) or hasattr(new_type, "__verify_type__"), (
        "Can register only typing.NewType or typing.TypedDict or object with __verify_type__ class function"
    )
    _registered_types[new_type.__name__] = new_type
    from . import _native

    if is_new_type(new_type):
        definition = strtype(new_type.__supertype__)
    elif is_typed_dict(new_type):
        definition = "Dict[str, Any]"
    else:
        definition = "Any"
    _native.register_type(new_type.__name__, definition)


def is_type(obj: Any) -> bool:
    """Whether ``obj`` is a type: a class, a ``typing`` construct (``List[int]``, ``Union``,
    ``Literal[...]``, ``Any``), a ``NewType`` or a ``TypedDict``."""
    if obj is typing.Type or obj is typing.Any:
        return True
    return isinstance(obj, type) or typing.get_origin(obj) is not None or is_new_type(obj) or is_typed_dict(obj)


def strtype(typing_type: Any) -> str:
    """``typing_type`` as a type string (Unitxt's ``strtype``): a ``NewType`` or ``TypedDict``
    by its name, ``Optional[...]`` for a union ending with ``None``, ``List``, ``Dict``,
    ``Tuple``, ``Union`` and ``Literal`` spelled as in ``typing``, a class by its name; a
    string is returned as it is.

    Raises:
        UnsupportedTypeError: ``typing_type`` is not a type.
    """
    if isinstance(typing_type, str):
        return typing_type
    if not is_type(typing_type):
        raise UnsupportedTypeError(typing_type)
    if is_new_type(typing_type) or is_typed_dict(typing_type):
        return typing_type.__name__
    if typing_type is typing.Any:
        return "Any"
    origin = typing.get_origin(typing_type)
    if origin is not None:
        args = typing.get_args(typing_type)
        inner = ", ".join
        if args and args[-1] is type(None):
            return f"Optional[{inner(strtype(a) for a in args[:-1])}]"
        if origin is Literal:
            return str(typing_type).replace("typing.", "")
        if origin is Union:
            return f"Union[{inner(strtype(a) for a in args)}]"
        if origin in (list, set):
            return f"List[{strtype(args[0])}]"
        if origin is dict:
            return f"Dict[{strtype(args[0])}, {strtype(args[1])}]"
        if origin is tuple:
            return f"Tuple[{inner(strtype(a) for a in args)}]"
    return typing_type.__name__


def to_type_string(typing_type: Any) -> str:
    """``typing_type`` as a type string (:func:`strtype`), checked to read back
    (:func:`parse_type_string`)."""
    s = strtype(typing_type)
    parse_type_string(s)
    return s


def to_type_dict(types: Dict[str, Any]) -> Dict[str, Any]:
    """A (nested) dict of types as the same dict of type strings."""
    return {k: to_type_dict(v) if isinstance(v, dict) else to_type_string(v) for k, v in types.items()}


def format_type_string(type_string: str) -> str:
    """A type string in ``typing``'s spelling: ``list``/``dict``/``tuple`` capitalized,
    ``typing.`` and spaces dropped, ``A | B`` written ``Union[A,B]`` (Unitxt's
    ``format_type_string``)."""
    for old, new in (("list", "List"), ("tuple", "Tuple"), ("dict", "Dict"), ("typing.", ""), (" ", "")):
        type_string = type_string.replace(old, new)
    return _unions(type_string)


def _unions(s: str) -> str:
    """``|`` unions of ``s`` (at every nesting level) as ``Union[...]``; the brackets of a
    ``Literal[...]`` are taken whole."""
    out, _ = _union_items(s, 0, top=True)
    return out


def _union_items(s: str, i: int, top: bool) -> Tuple[str, int]:
    """Reads type items separated by ``,`` from ``s[i:]`` up to the closing ``]`` (or the end
    when ``top``); returns them, each with its ``|`` alternatives made a ``Union``, joined by
    ``,``, and the position after them."""
    items: List[str] = []
    alts: List[str] = []
    word = ""
    while i < len(s):
        c = s[i]
        if c == "[":
            if word.strip() == "Literal":
                end = _literal_end(s, i)
                word += s[i:end]
                i = end
                continue
            inner, i = _union_items(s, i + 1, top=False)
            word += "[" + inner + "]"
            continue
        if c == "]":
            if top:
                raise ValueError(f"unbalanced ']' in type string {s!r}")
            i += 1
            break
        if c in ",|":
            alts.append(word)
            word = ""
            if c == ",":
                items.append(_union_of(alts))
                alts = []
            i += 1
            continue
        word += c
        i += 1
    alts.append(word)
    items.append(_union_of(alts))
    return ",".join(items), i


def _union_of(alts: List[str]) -> str:
    return alts[0] if len(alts) == 1 else "Union[" + ",".join(alts) + "]"


def _literal_end(s: str, i: int) -> int:
    """The position after the ``]`` closing the ``Literal[`` whose ``[`` is at ``i``: the first
    ``]`` at which the text is a Python literal."""
    end = s.find("]", i)
    while end != -1:
        try:
            ast.literal_eval(s[i:end + 1])
            return end + 1
        except (ValueError, SyntaxError):
            end = s.find("]", end + 1)
    raise ValueError("invalid Literal in input type_string")


def parse_type_string(type_string: str) -> Any:
    """The type a type string names (Unitxt's ``parse_type_string``): built from
    ``List``, ``Dict``, ``Tuple``, ``Union``, ``Optional``, ``Literal``, ``Any``, ``int``,
    ``str``, ``float``, ``bool`` and the registered types (:func:`register_type`); ``list[int |
    str]`` is read as ``List[Union[int, str]]``.

    Raises:
        ValueError: a name that is not registered, or a malformed string.
    """
    s = format_type_string(type_string)
    t, rest = _parse(s, 0, type_string)
    if rest != len(s):
        raise ValueError(f"The type string {type_string!r} has unexpected text after position {rest}")
    return t


def _parse(s: str, i: int, whole: str) -> Tuple[Any, int]:
    j = i
    while j < len(s) and s[j] not in "[],":
        j += 1
    name = s[i:j]
    if name not in _registered_types:
        raise ValueError(
            f"The expression '{whole}' can not be evaluated because it contains tokens outside the allowed list of "
            f"{list(_registered_types) + ['[', ']', ',', ' ']}."
        )
    base = _registered_types[name]
    if j >= len(s) or s[j] != "[":
        return base, j
    if name == "Literal":
        end = _literal_end(s, j)
        values = ast.literal_eval(s[j:end])
        values = values if isinstance(values, list) else [values]
        return Literal[tuple(values)], end
    args = []
    j += 1
    while True:
        t, j = _parse(s, j, whole)
        args.append(t)
        if j < len(s) and s[j] == ",":
            j += 1
            continue
        if j < len(s) and s[j] == "]":
            j += 1
            break
        raise ValueError(f"The type string {whole!r} is malformed")
    return base[tuple(args) if len(args) > 1 else args[0]], j


def parse_type_dict(type_dict: Dict[str, Any]) -> Dict[str, Any]:
    """A (nested) dict of type strings as the same dict of types.

    Raises:
        ValueError: a value that is neither a type string nor a dict.
    """
    out = {}
    for k, v in type_dict.items():
        if isinstance(v, str):
            out[k] = parse_type_string(v)
        elif isinstance(v, dict):
            out[k] = parse_type_dict(v)
        else:
            raise ValueError(f"Can parse only nested dictionary with type strings, got {type(v)}")
    return out


def isoftype(obj: Any, typing_type: Any) -> bool:
    """Whether ``obj`` is of ``typing_type`` (Unitxt's ``isoftype``): nested ``List``,
    ``Dict``, ``Tuple``, ``Union``/``Optional`` and ``Literal``; a ``NewType`` as its supertype;
    a ``TypedDict`` as a dict whose declared keys are present (unless ``Optional``) and of their
    types; a class with ``__verify_type__`` by that method; ``Any`` always.

    Raises:
        UnsupportedTypeError: ``typing_type`` is not a type.
    """
    if not is_type(typing_type):
        raise UnsupportedTypeError(typing_type)
    if hasattr(typing_type, "__verify_type__"):
        return typing_type.__verify_type__(obj)
    if typing_type is typing.Type:
        return is_type(obj)
    while is_new_type(typing_type):
        typing_type = typing_type.__supertype__
    if is_typed_dict(typing_type):
        if not isinstance(obj, dict):
            return False
        for key, t in typing_type.__annotations__.items():
            if key in obj:
                if not isoftype(obj[key], t):
                    return False
            elif not (typing.get_origin(t) is Union and type(None) in typing.get_args(t)):
                return False
        return True
    if typing_type is typing.Any:
        return True
    origin = typing.get_origin(typing_type)
    if origin is not None:
        args = typing.get_args(typing_type)
        if origin is Literal:
            return obj in args
        if origin is Union:
            return any(isoftype(obj, a) for a in args)
        if not isinstance(obj, origin):
            return False
        if not args:
            return True
        if origin in (list, set):
            return all(isoftype(x, args[0]) for x in obj)
        if origin is dict:
            return all(isoftype(k, args[0]) and isoftype(v, args[1]) for k, v in obj.items())
        if origin is tuple:
            return all(isoftype(x, t) for x, t in zip(obj, args))
        return True
    return isinstance(obj, typing_type)


def to_float_or_default(v: Any, failure_default: Optional[float] = 0) -> float:
    """``float(v)``, or ``failure_default`` when that fails (the error is raised when
    ``failure_default`` is None)."""
    try:
        return float(v)
    except Exception:
        if failure_default is None:
            raise
        return failure_default
