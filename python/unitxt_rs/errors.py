"""Exceptions raised by unitxt_rs.

Every error of the engine arrives as a subclass of :class:`UnitxtRsError` that is also a
standard exception class, so that ``except KeyError`` or ``except ValueError`` work as they do
with other libraries. The message is the engine's: what failed, then where (artifact, field,
split and instance index), one line each.
"""


class UnitxtRsError(Exception):
    """Base class of the errors of unitxt_rs.

    Errors raised by the engine also say where they happened as attributes, each ``None``
    when unknown: ``artifact`` (the catalog name of the innermost artifact being built),
    ``field``, ``split`` and ``instance`` (the 0-based position in the split's stream).
    """

    artifact = None
    field = None
    split = None
    instance = None

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0]) if self.args else ""


class ArtifactNotFoundError(UnitxtRsError, KeyError):
    """A catalog artifact, split, config or field that does not exist."""


class DataFileNotFoundError(UnitxtRsError, FileNotFoundError):
    """A data file or dataset that is not on disk or in the local Hugging Face hub cache."""


class InvalidInputError(UnitxtRsError, ValueError):
    """Malformed input: a recipe string, an artifact, a value of the wrong type, a failing
    expression, predictions that do not match the data."""


class UnsupportedError(UnitxtRsError, ValueError):
    """Something the engine does not do, such as a metric that needs a model."""


class UnknownTypeError(ArtifactNotFoundError):
    """An artifact's ``__type__`` that no artifact type has. Attributes: ``type`` (the name
    given) and ``suggestion`` (the nearest known type, or ``None``)."""

    type = None
    suggestion = None


class NotInCatalogError(ArtifactNotFoundError):
    """A catalog name that no catalog has. Attribute: ``name`` (the name looked up; the
    ``artifact`` attribute, as on every error, is where the lookup happened)."""

    name = None


class MissingSplitError(ArtifactNotFoundError):
    """A split of the data that does not exist. Attributes: ``split`` (the split asked for)
    and ``available`` (the splits there are, in order)."""

    available = None


class MissingDemosSplitError(ArtifactNotFoundError):
    """The split a recipe takes its demos pool from (``demos_taken_from``) does not exist.
    Attributes: ``split`` and ``available``, as :class:`MissingSplitError`'s. Not a
    :class:`MissingSplitError`: the split being prepared exists."""

    available = None


class UnknownFieldError(InvalidInputError):
    """A key of an artifact that is not a field of its type (Unitxt's
    ``UnexpectedArgumentError``). Attributes: ``type``, ``field`` (the key given) and
    ``suggestion`` (the nearest field, or ``None``)."""

    type = None
    suggestion = None


class ReferenceCycleError(InvalidInputError):
    """Artifacts that refer to each other in a cycle. Attribute: ``path`` (the names on the
    cycle, the first repeated last)."""

    path = None


class NeedsError(UnsupportedError):
    """A well-formed artifact that needs what this engine does not have here. Attributes:
    ``need`` (``"model"``, ``"network"`` or ``"endpoint"``) and ``reason`` (one line)."""

    need = None
    reason = None


class UnitxtIOError(UnitxtRsError, OSError):
    """Reading or writing files failed."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
