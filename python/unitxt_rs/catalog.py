"""Writing and reading catalog artifacts (Unitxt's ``unitxt.catalog``): :func:`add_to_catalog`,
:func:`get_from_catalog`, :func:`register_local_catalog`."""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any, Optional

from .artifact import Artifact, from_dict
from .errors import InvalidInputError

__all__ = ["add_to_catalog", "get_from_catalog", "register_local_catalog", "get_local_catalogs", "default_local_catalog"]

logger = logging.getLogger("unitxt_rs")

_LEGAL_NAME = re.compile(r"^[\w\-]+(\.[\w\-]+)*$")


def default_local_catalog() -> str:
    """Where :func:`add_to_catalog` writes when given no ``catalog_path`` (Unitxt writes into
    its package's catalog; unitxt_rs into ``$UNITXT_RS_LOCAL_CATALOG`` or
    ``~/.cache/unitxt-rs/local-catalog``). It is searched after the registered catalogs."""
    from . import default_catalog_dir

    return os.environ.get("UNITXT_RS_LOCAL_CATALOG") or os.path.join(
        os.path.dirname(default_catalog_dir()), "local-catalog"
    )


def add_to_catalog(
    artifact: Any,
    name: str,
    catalog: Any = None,
    overwrite: bool = False,
    catalog_path: Optional[str] = None,
    verbose: bool = True,
) -> None:
    """Saves ``artifact`` in a catalog directory as ``name`` (Unitxt's ``add_to_catalog``):
    ``templates.my.t`` is written to ``<catalog_path>/templates/my/t.json`` as Unitxt writes it
    (its ``to_dict()`` with ``__type__`` first, 4-space indent, non-ASCII kept, a final
    newline), so that Unitxt and unitxt_rs both read it.

    Args:
        artifact: An artifact object (``InputOutputTemplate(...)``...) or a dict with
            ``__type__``.
        name: The catalog name (letters, digits, ``_`` and ``-``, ``.`` for nesting).
        catalog: Unitxt's catalog object; a directory path string is accepted here too.
        overwrite: Replace an existing artifact of that name.
        catalog_path: The catalog directory (default: :func:`default_local_catalog`, which
            is then searched by this process, as Unitxt's default catalog is). Another
            directory must be registered with :func:`register_local_catalog` (or be in
            ``UNITXT_CATALOGS``) for recipes to find the artifact, as in Unitxt.
        verbose: Log where the artifact was saved.

    Raises:
        InvalidInputError: ``artifact`` is not an artifact, ``name`` is not a legal catalog
            name, or the artifact exists and ``overwrite`` is False.
    """
    from . import _default_catalog_searched

    if isinstance(artifact, dict):
        artifact = from_dict(artifact)
    if not isinstance(artifact, Artifact):
        raise InvalidInputError(f"Input artifact must be an artifact object or a dict with __type__, got {type(artifact)}")
    if not isinstance(name, str) or not _LEGAL_NAME.match(name):
        raise InvalidInputError(
            f'Artifact name ("{name}") should be alphanumeric. Use "." for nesting (e.g. myfolder.my_artifact)'
        )
    if catalog_path is None and isinstance(catalog, (str, os.PathLike)):
        catalog_path = os.fspath(catalog)
    elif catalog_path is None and catalog is not None and hasattr(catalog, "location"):
        catalog_path = catalog.location
    default = catalog_path is None
    if default:
        catalog_path = default_local_catalog()
    parts = name.split(".")
    path = os.path.join(os.fspath(catalog_path), *parts[:-1], parts[-1] + ".json")
    if not overwrite and os.path.isfile(path):
        raise InvalidInputError(f"Artifact with name {name} already exists in catalog {catalog_path}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(artifact.to_dict(), indent=4, ensure_ascii=False))
        f.write("\n")
    if default:
        _default_catalog_searched()
    if verbose:
        logger.info(f"Artifact {name} saved to {path}")


def get_from_catalog(name: str, catalog: Any = None, catalog_path: Optional[str] = None) -> Artifact:
    """See :func:`unitxt_rs.get_from_catalog`."""
    from . import get_from_catalog as f

    if catalog_path is None and isinstance(catalog, (str, os.PathLike)):
        catalog_path = os.fspath(catalog)
    return f(name, catalog_path=catalog_path)


def register_local_catalog(path: str) -> None:
    """See :func:`unitxt_rs.register_local_catalog`."""
    from . import register_local_catalog as f

    f(path)


def get_local_catalogs():
    """See :func:`unitxt_rs.get_local_catalogs`."""
    from . import get_local_catalogs as f

    return f()
