"""The package's logger, set up as Unitxt's ``unitxt.logging_utils`` sets up its own: the
``unitxt_rs`` logger writes to stdout (message only, cut after ``UNITXT_MAX_LOG_MESSAGE_SIZE``
characters, 100,000 by default), at the level of ``UNITXT_DEFAULT_VERBOSITY`` (``debug``,
``info`` (default), ``warning``, ``error`` or ``critical``), and does not pass its records on
to the root logger.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Optional

__all__ = ["get_logger", "set_verbosity", "enable_explicit_format", "log_levels", "SizeLimitedFormatter"]

#: Level names accepted by :func:`set_verbosity` and ``UNITXT_DEFAULT_VERBOSITY``.
log_levels = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}

_ROOT = __name__.split(".")[0]
_lock = threading.Lock()
_handler: Optional[logging.Handler] = None


def _default_level() -> int:
    name = os.environ.get("UNITXT_DEFAULT_VERBOSITY", "info")
    if name not in log_levels:
        raise ValueError(
            f"UNITXT_DEFAULT_VERBOSITY has to be one of: {', '.join(log_levels)}. Got {name}."
        )
    return log_levels[name]


def _max_message_size() -> int:
    return int(os.environ.get("UNITXT_MAX_LOG_MESSAGE_SIZE", "100000"))


class SizeLimitedFormatter(logging.Formatter):
    """A formatter that cuts a message longer than ``UNITXT_MAX_LOG_MESSAGE_SIZE`` characters
    and says so."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        limit = _max_message_size()
        if len(text) <= limit:
            return text
        return text[:limit] + (
            f"...\n(Message is too long > {limit}. Can be set through the UNITXT_MAX_LOG_MESSAGE_SIZE "
            "environment variable.)"
        )


def _configure() -> None:
    """Gives the package's root logger its stdout handler and level, once."""
    global _handler
    with _lock:
        if _handler is not None:
            return
        _handler = logging.StreamHandler(sys.stdout)
        _handler.setFormatter(SizeLimitedFormatter())
        root = logging.getLogger(_ROOT)
        root.addHandler(_handler)
        root.setLevel(_default_level())
        root.propagate = False


def get_logger(name: Optional[str] = None) -> logging.Logger:
    """The logger ``name`` (default: the package's, ``unitxt_rs``), after setting up the
    package's root logger (Unitxt's ``get_logger``). A name outside the package gives a logger
    that is not under it, as with Unitxt."""
    _configure()
    return logging.getLogger(name or _ROOT)


def set_verbosity(level: str) -> None:
    """Sets the package's log level by name (``"debug"`` ... ``"critical"``)."""
    _configure()
    logging.getLogger(_ROOT).setLevel(log_levels.get(level))


def enable_explicit_format() -> None:
    """Prefixes each message with the package, level, file, line and time, as Unitxt's
    ``enable_explicit_format`` does."""
    fmt = "[Unitxt|%(levelname)s|%(filename)s:%(lineno)s] %(asctime)s >> %(message)s"
    for handler in logging.getLogger(_ROOT).handlers:
        handler.setFormatter(SizeLimitedFormatter(fmt))
