"""Text helpers of Unitxt's ``unitxt.text_utils`` that its documentation examples use:
:func:`print_dict` (log a dict, e.g. a prepared instance, as an indented outline),
:func:`to_pretty_string` (the same as a string) and the name-case helpers.
"""

from __future__ import annotations

import re
import shutil
from typing import Any, List, Optional

from .logging_utils import get_logger

__all__ = [
    "split_words",
    "is_camel_case",
    "is_snake_case",
    "camel_to_snake_case",
    "to_pretty_string",
    "print_dict",
    "nested_tuple_to_string",
    "is_made_of_sub_strings",
]

logger = get_logger()


def split_words(s: str) -> List[str]:
    """The words of ``s``, split at case changes (``PascalCase``, ``camelCase``), at ``_`` and
    ``-``, and between letters and digits (Unitxt's ``split_words``)."""
    # An uppercase run starts a word, and so does a capital followed by lowercase letters.
    s = re.sub(r"([A-Z]+)", r" \1", s)
    s = re.sub(r"([A-Z][a-z]+)", r" \1", s).strip()
    s = s.replace("_", " ").replace("-", " ")
    s = re.sub(r"(?<=[a-zA-Z])(?=\d)|(?<=\d)(?=[a-zA-Z])", " ", s)
    return s.split()


def is_camel_case(s: str) -> bool:
    """Whether ``s`` is a class-style name: it starts with a capital and holds only letters
    and digits (Unitxt's ``is_camel_case``)."""
    return re.fullmatch(r"[A-Z]+[A-Za-z0-9]*", s) is not None


def is_snake_case(s: str) -> bool:
    """Whether ``s`` is lowercase letters and digits in words joined by single ``_``."""
    return re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+)*", s) is not None


def camel_to_snake_case(s: str) -> str:
    """A class name as an artifact type name (Unitxt's ``camel_to_snake_case``):
    ``InputOutputTemplate`` -> ``input_output_template``, ``HFLoader`` -> ``hf_loader``."""
    # `_` before a capital that follows anything but a capital, `_` or `-` ...
    s = re.sub(r"(?<=[^A-Z_-])([A-Z])", r"_\1", s)
    # ... and before the last capital of a run when a lowercase letter or digit follows it.
    s = re.sub(r"([A-Z]+)([A-Z][a-z0-9])", r"\1_\2", s)
    return s.lower()


def _lines(text: str, indent: int, max_chars: int) -> str:
    """``text`` line by line, indented by ``indent`` spaces; a line longer than the room left
    (``max_chars - indent``) is cut into pieces of that length. Trailing spaces are dropped."""
    pad = " " * indent
    width = max_chars - indent
    out = []
    for line in text.split("\n"):
        if len(line) + indent > width:
            out.extend(f"{pad}{line[i:i + width].rstrip()}\n" for i in range(0, len(line), width))
        else:
            out.append(f"{pad}{line.rstrip()}\n")
    return "".join(out)


def to_pretty_string(
    value: Any,
    indent: int = 0,
    indent_delta: int = 4,
    max_chars: Optional[int] = None,
    keys: Optional[List[str]] = None,
    item_label: Optional[str] = None,
    float_format: Optional[str] = None,
) -> str:
    """``value`` as an indented outline (Unitxt's ``to_pretty_string``): a dict gives a
    ``key (type):`` line per key (only ``keys``, in that order, when given) with the value
    below it, ``indent_delta`` spaces further in; a list gives ``[i] (type):`` lines, a tuple
    ``(i) (type):``; a pandas ``DataFrame`` its full ``repr``; anything else its ``str`` (floats
    with ``float_format`` when given). Lines wider than ``max_chars`` (default: the terminal's
    width less 10) are wrapped.

    Raises:
        ValueError: a key of ``keys`` that the dict does not have (the message lists its keys).
    """
    max_chars = max_chars or shutil.get_terminal_size()[0] - 10
    pad = " " * indent

    def nested(v: Any) -> str:
        return to_pretty_string(v, indent=indent + indent_delta, indent_delta=indent_delta, max_chars=max_chars,
                                float_format=float_format)

    if isinstance(value, dict):
        chosen = list(value) if keys is None else list(keys)
        missing = [k for k in chosen if k not in value]
        if missing:
            raise ValueError(
                f"Dictionary does not contain field '{missing[0]}' specified in 'keys' argument. "
                f"The available keys are {list(value)}"
            )
        return "".join(f"{pad}{k} ({type(value[k]).__name__}):\n" + nested(value[k]) for k in chosen)
    if isinstance(value, (list, tuple)):
        brackets = "[{}]" if isinstance(value, list) else "({})"
        return "".join(f"{pad}{brackets.format(i)} ({type(v).__name__}):\n" + nested(v) for i, v in enumerate(value))
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(value, pd.DataFrame):
        options: List[Any] = ["display.max_rows", None, "display.max_columns", None, "display.max_colwidth", None,
                              "display.width", max_chars - indent]
        if float_format is not None:
            options += ["display.float_format", ("{:," + float_format + "}").format]
        with pd.option_context(*options):
            return _lines(repr(value), indent, max_chars)
    text = f"{value:{float_format}}" if isinstance(value, float) and float_format else str(value)
    return _lines(text, indent, max_chars)


def print_dict(
    d: Any,
    indent: int = 0,
    indent_delta: int = 4,
    max_chars: Optional[int] = None,
    keys_to_print: Optional[List[str]] = None,
    log_level: str = "info",
) -> None:
    """Logs :func:`to_pretty_string` of ``d`` (only ``keys_to_print`` when given), after a
    line break, on the ``unitxt_rs`` logger at ``log_level`` (Unitxt's ``print_dict``; the
    logger writes to stdout, see :mod:`unitxt_rs.logging_utils`)."""
    text = to_pretty_string(d, indent, indent_delta, max_chars, keys_to_print)
    getattr(logger, log_level)("\n" + text)


def nested_tuple_to_string(nested_tuple: tuple) -> str:
    """The items of a (nested) tuple joined by ``_``, inner tuples likewise."""
    return "_".join(nested_tuple_to_string(x) if isinstance(x, tuple) else str(x) for x in nested_tuple)


def is_made_of_sub_strings(string: str, sub_strings: List[str]) -> bool:
    """Whether ``string`` is one or more of ``sub_strings`` concatenated."""
    return re.fullmatch("(?:" + "|".join(map(re.escape, sub_strings)) + ")+", string) is not None
