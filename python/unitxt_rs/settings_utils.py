"""Unitxt's ``settings`` and ``constants`` objects (``unitxt.settings_utils``), for what the
engine honours."""

from __future__ import annotations

import contextlib
import difflib
import os
import sys
from typing import Any, Dict, Iterator

from . import _native

__all__ = ["get_settings", "get_constants", "Settings", "Constants"]


class Settings:
    """The settings the engine honours, under Unitxt's names (``unitxt.settings``):

    - ``seed`` (int, 42): the global seed of every random choice (see ``set_seed``).
    - ``global_loader_limit`` (int or None): the most instances any loader reads
      (``UNITXT_GLOBAL_LOADER_LIMIT``).
    - ``catalogs`` (str or None): extra catalog directories, ``:``-separated
      (``UNITXT_CATALOGS``).
    - ``dataset_cache_default`` (bool, False): accepted; the engine keeps no dataset cache.
    - ``inference_engine_cache_path`` (str, ``./inference_engine_cache/``): the directory of
      the answer cache of inference engines whose ``use_cache`` is true (one SQLite file,
      ``unitxt_rs_answers.sqlite``; ``UNITXT_INFERENCE_ENGINE_CACHE_PATH``).

    Setting another name raises ``AttributeError`` naming the nearest known one.
    ``with settings.context(seed=7): ...`` sets values for a block and restores them.
    """

    _names = ("seed", "global_loader_limit", "catalogs", "dataset_cache_default", "inference_engine_cache_path")

    def __init__(self) -> None:
        object.__setattr__(self, "_cache_default", False)

    def __getattr__(self, name: str) -> Any:
        if name == "seed":
            return _native.get_seed()
        if name == "global_loader_limit":
            v = os.environ.get("UNITXT_GLOBAL_LOADER_LIMIT")
            return int(v) if v else None
        if name == "catalogs":
            return os.environ.get("UNITXT_CATALOGS")
        if name == "dataset_cache_default":
            return self._cache_default
        if name == "inference_engine_cache_path":
            return os.environ.get("UNITXT_INFERENCE_ENGINE_CACHE_PATH", "./inference_engine_cache/")
        raise AttributeError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        near = difflib.get_close_matches(name, self._names, n=1)
        return f"unknown setting {name!r}" + (f"; did you mean {near[0]!r}?" if near else "") + f" (known: {', '.join(self._names)})"

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "seed":
            from . import set_seed

            set_seed(int(value))
        elif name == "global_loader_limit":
            if value is None:
                os.environ.pop("UNITXT_GLOBAL_LOADER_LIMIT", None)
            else:
                os.environ["UNITXT_GLOBAL_LOADER_LIMIT"] = str(int(value))
        elif name == "catalogs":
            if value is None:
                os.environ.pop("UNITXT_CATALOGS", None)
            else:
                os.environ["UNITXT_CATALOGS"] = str(value)
        elif name == "dataset_cache_default":
            object.__setattr__(self, "_cache_default", bool(value))
        elif name == "inference_engine_cache_path":
            os.environ["UNITXT_INFERENCE_ENGINE_CACHE_PATH"] = str(value)
        else:
            raise AttributeError(self._unknown(name))

    def __contains__(self, name: str) -> bool:
        return name in self._names

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._names) + ")"

    @contextlib.contextmanager
    def context(self, **kwargs: Any) -> Iterator["Settings"]:
        """Sets ``kwargs`` for the ``with`` block and restores the old values after it."""
        old = {k: getattr(self, k) for k in kwargs}
        try:
            for k, v in kwargs.items():
                setattr(self, k, v)
            yield self
        finally:
            for k, v in old.items():
                setattr(self, k, v)


class Constants:
    """Unitxt's constants (``unitxt.constants``) that concern a user of unitxt_rs: ``version``
    (the Unitxt version followed), ``catalog_dir`` / ``default_catalog_path`` (the installed
    catalog / where ``add_to_catalog`` writes by default), ``catalog_hierarchy_sep``,
    ``env_local_catalogs_paths_sep``, ``inference_stream``, ``instance_stream``, ``python``,
    ``dataset_url``, ``metric_url``, ``demos_field``, ``instruction_field``,
    ``system_prompt_field``, ``demos_pool_field``."""

    def __init__(self) -> None:
        from .catalog import default_local_catalog

        values: Dict[str, Any] = {
            "version": _native.unitxt_version(),
            "catalog_dir": _native.default_catalog_dir(),
            "local_catalog_path": _native.default_catalog_dir(),
            "default_catalog_path": default_local_catalog(),
            "catalog_hierarchy_sep": ".",
            "env_local_catalogs_paths_sep": ":",
            "inference_stream": "__INFERENCE_STREAM__",
            "instance_stream": "__INSTANCE_STREAM__",
            "python": sys.version.split()[0],
            "dataset_url": "unitxt/data",
            "metric_url": "unitxt/metric",
            "demos_pool_field": "_demos_pool_",
            "demos_field": "demos",
            "instruction_field": "instruction",
            "system_prompt_field": "system_prompt",
            "image_tag": "unitxt-img",
        }
        self.__dict__.update(values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("constants are read-only")

    def __repr__(self) -> str:
        return "Constants(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


_SETTINGS = Settings()
_CONSTANTS = None


def get_settings() -> Settings:
    """The settings object (Unitxt's ``get_settings()``; also ``unitxt_rs.settings``)."""
    return _SETTINGS


def get_constants() -> Constants:
    """The constants object (Unitxt's ``get_constants()``; also ``unitxt_rs.constants``)."""
    global _CONSTANTS
    if _CONSTANTS is None:
        _CONSTANTS = Constants()
    return _CONSTANTS
