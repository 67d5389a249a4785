"""Artifact classes: Python objects for the catalog's JSON artifacts (Unitxt's ``Artifact``).

One class is made, at import, for every artifact ``__type__`` the engine builds, from the list
the engine gives (``_native.known_types()``: each type with the keyword arguments its Rust
structs read, when they can be read from them). The class carries Unitxt's name for it
(``InputOutputTemplate`` for ``input_output_template``), accepts Unitxt's keyword arguments
for it and is placed in the ``unitxt_rs`` modules named as Unitxt's (``unitxt_rs.templates``,
``unitxt_rs.card``, ...), by the table in ``_unitxt_names`` (derived from Unitxt once;
python/tests/test_parity.py checks it, and that the engine's arguments are among Unitxt's).

An artifact object is thin: it keeps its keyword arguments as given, checks their names
(an unknown one is an error that names the nearest known), and serializes to the catalog JSON
(:meth:`Artifact.to_dict`, ``__type__`` first, as Unitxt writes it). The engine builds it when
it is used: anywhere a catalog name or a dict with ``__type__`` is accepted
(``load_dataset(card=TaskCard(...))``, ``add_to_catalog(template, "templates.x")``).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import sys
import types as _types
import weakref
from typing import Any, Dict, List, Optional, Tuple

from . import _native
from ._unitxt_names import NAMES
from .errors import ArtifactNotFoundError, InvalidInputError

__all__ = ["Artifact", "fetch_artifact", "from_dict", "artifact_classes"]

#: Keyword arguments every Unitxt artifact accepts (documentation and policy fields); the
#: engine reads none of them but keeps them in the JSON.
COMMON_FIELDS = ("__description__", "__tags__", "__title__", "__deprecated_msg__", "data_classification_policy")


def _type_string(t: Any) -> str:
    """A Python type as Unitxt writes it in JSON (``str``, ``List[str]``, ``Dict[str, Any]``, a
    ``NewType`` or ``TypedDict`` by its name; see :func:`unitxt_rs.type_utils.strtype`)."""
    from .type_utils import strtype

    return strtype(t)


def _is_type(v: Any) -> bool:
    from .type_utils import is_type

    return is_type(v)


def _is_pil_image(v: Any) -> bool:
    """Whether ``v`` is a PIL image (told without importing PIL)."""
    return any(c.__module__ == "PIL.Image" and c.__name__ == "Image" for c in type(v).__mro__)


def _pil_data_url(img: Any) -> str:
    """A PIL image as the engine carries images: a ``data:`` URL of its file bytes, encoded as
    Hugging Face ``datasets`` stores an in-memory image in Unitxt's ``media`` column (its own
    format when PIL can write it, else PNG, or TIFF for modes PNG cannot hold), so that the
    rows' image bytes are those of Unitxt's dataset."""
    import base64

    from datasets.features.image import encode_pil_image

    enc = encode_pil_image(img)
    data = enc.get("bytes")
    if data is None:  # an image opened from a file: datasets keeps the path; the file's bytes
        with open(enc["path"], "rb") as f:
            data = f.read()
    kind = {b"\x89PNG": "png", b"\xff\xd8\xff": "jpeg", b"GIF8": "gif", b"BM": "bmp"}
    sub = next((k for magic, k in kind.items() if data.startswith(magic)), None)
    if sub is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        sub = "webp"
    if sub is None:
        raise InvalidInputError(
            f"a PIL image of mode {img.mode!r} is stored by datasets in a format unitxt-rs does not read "
            "(PNG, JPEG, GIF, WebP, BMP); convert it first, e.g. image.convert('RGB')"
        )
    _ORIGINAL_IMAGES[hashlib.sha256(data).digest()] = img
    return f"data:image/{sub};base64," + base64.b64encode(data).decode("ascii")


#: The PIL images :func:`_pil_data_url` encoded, by the SHA-256 of the bytes they became, while
#: the user's program holds them: a chat format embeds the image itself (see
#: :func:`_chat_image_data_url`), not the bytes datasets made of it (a JPEG's are re-encoded).
_ORIGINAL_IMAGES: "weakref.WeakValueDictionary[bytes, Any]" = weakref.WeakValueDictionary()


def _chat_image_data_url(image_json: str) -> str:
    """Called by the engine's chat formats for an image tag of the instance's media: the image
    (Unitxt's image value ``{"image": <data URL>, "format": ...}`` as JSON text) as Unitxt's
    ``image_to_data_url`` makes it: converted to RGB and saved by Pillow in the value's format
    (JPEG when it has none), as a ``data:image/<format in lower case>;base64,...`` URL. The image
    is the PIL image the data URL was made from when it is still alive, else the data URL's bytes
    opened by Pillow (what Unitxt holds for an image read from a dataset)."""
    import base64
    import io

    from PIL import Image

    value = json.loads(image_json)
    if not isinstance(value, dict) or not isinstance(value.get("image"), str):
        raise InvalidInputError(f"an image in the instance's media must be {{'image': ..., 'format': ...}}, got {image_json[:80]}")
    url = value["image"]
    if not url.startswith("data:") or ";base64," not in url:
        raise InvalidInputError(f"an image in the instance's media must be a data URL, got {url[:40]!r}")
    data = base64.b64decode(url.split(",", 1)[1])
    img = _ORIGINAL_IMAGES.get(hashlib.sha256(data).digest())
    if img is None:
        img = Image.open(io.BytesIO(data))
    fmt = value.get("format") or "JPEG"
    with io.BytesIO() as buf:
        img.convert("RGB").save(buf, format=fmt.upper())
        encoded = base64.b64encode(buf.getvalue()).decode("utf-8")
    return f"data:image/{fmt.lower()};base64,{encoded}"


def _jsonable(v: Any) -> Any:
    """Nested artifacts as their JSON (a catalog name when they came from the catalog), types
    as their names, tuples as lists, PIL images as ``data:`` URLs (see :func:`_pil_data_url`)."""
    if _is_pil_image(v):
        return _pil_data_url(v)
    if isinstance(v, Artifact):
        return v.__id__ if v.__id__ is not None else v.to_dict()
    if getattr(v, "_unitxt_rs_callback", False):
        return v.to_dict()
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if _is_type(v):
        return _type_string(v)
    return v


class Artifact:
    """Base class of the artifact classes (Unitxt's ``unitxt.artifact.Artifact``).

    Create one with the artifact's keyword arguments, as in Unitxt::

        InputOutputTemplate(input_format="Q: {q}", output_format="{a}")

    Attributes:
        __type__: The catalog type (``"input_output_template"``).
        __id__: The catalog name the artifact was read by (:func:`get_from_catalog`) or saved
            under (:func:`add_to_catalog`); ``None`` for an artifact made in code.

    Raises:
        InvalidInputError: a keyword argument the type does not have (the message names the
            nearest known one), or more positional arguments than Unitxt takes.
    """

    __type__: str = ""
    #: The keyword arguments the engine reads for this type (from its structs); ``None`` when
    #: they cannot be read from them (hand-written or flattened deserialization).
    _fields: Optional[Tuple[str, ...]] = None
    #: Every keyword argument accepted: the engine's, Unitxt's for the class and the common
    #: artifact ones; ``None``: any.
    _accepted: Optional[Tuple[str, ...]] = None

    #: The arguments that may also be given by position, in order (as Unitxt's).
    _positional: Tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(self._positional):
            raise InvalidInputError(
                f"{type(self).__name__} takes at most {len(self._positional)} positional arguments, got {len(args)}"
            )
        for name, value in zip(self._positional, args):
            if name in kwargs:
                raise InvalidInputError(f"{type(self).__name__} got multiple values for argument {name!r}")
            # After the keyword arguments, as Unitxt keeps them (it shows in `to_dict`'s order).
            kwargs[name] = value
        if self._accepted is not None:
            for k in kwargs:
                if k not in self._accepted:
                    near = difflib.get_close_matches(k, self._accepted, n=1)
                    hint = f"; did you mean {near[0]!r}?" if near else ""
                    raise InvalidInputError(
                        f"{type(self).__name__} ({self.__type__}) has no argument {k!r}{hint} "
                        f"Its arguments: {', '.join(a for a in self._accepted if not a.startswith('__'))}"
                    )
        object.__setattr__(self, "_args", dict(kwargs))
        object.__setattr__(self, "__id__", None)

    def __getattr__(self, name: str) -> Any:
        args = self.__dict__.get("_args", {})
        if name in args:
            return args[name]
        if self._accepted is not None and name in self._accepted:
            return None
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "__id__":
            object.__setattr__(self, name, value)
        elif self._accepted is None or name in self._accepted:
            self._args[name] = value
            # Changed, it is no longer the catalog's artifact of that name: it is passed on as
            # its JSON from now on.
            object.__setattr__(self, "__id__", None)
        else:
            raise InvalidInputError(f"{type(self).__name__} has no argument {name!r}")

    def __call__(self, multi_stream: Any = None, **instance: Any) -> Any:
        """Runs this operator or metric on every stream of ``multi_stream`` (a
        :class:`unitxt_rs.stream.MultiStream`, or a dict of split name to instance dicts) and
        returns the resulting ``MultiStream``, as Unitxt's ``StreamingOperator.__call__``. A
        ``SequentialOperator`` runs its steps in order; a metric writes each instance's
        ``score``. See :func:`unitxt_rs.stream.apply_steps`.

        Raises:
            InvalidInputError: no multi-stream given (single instances as keyword arguments are
                not supported), or an artifact that is neither an operator nor a metric. And as
                :func:`unitxt_rs.stream.apply_steps`.
        """
        if instance or not isinstance(multi_stream, dict):
            raise InvalidInputError(
                f"{type(self).__name__} is applied to a MultiStream (unitxt_rs.stream.MultiStream); got "
                + (f"keyword arguments {sorted(instance)}" if instance else type(multi_stream).__name__)
            )
        from .stream import apply_steps

        return apply_steps([self], multi_stream)

    def to_dict(self) -> Dict[str, Any]:
        """The artifact's catalog JSON: ``__type__`` first, then the arguments as given (nested
        artifacts as their JSON, or their catalog name when they have one; Python types as
        their names), as Unitxt's ``to_dict``."""
        return {"__type__": self.__type__, **{k: _jsonable(v) for k, v in self._args.items()}}

    def to_json(self) -> str:
        """:meth:`to_dict` as the JSON text Unitxt writes in catalog files (4-space indent)."""
        return json.dumps(self.to_dict(), indent=4, ensure_ascii=False)

    def to_yaml(self) -> str:
        """:meth:`to_dict` as YAML (PyYAML's ``yaml.dump``: keys sorted, block style), as
        Unitxt's ``to_yaml``. Read it back with ``Artifact.from_dict(yaml.safe_load(text))``."""
        import yaml

        return yaml.dump(self.to_dict())

    @classmethod
    def from_dict(cls, d: Dict[str, Any], overwrite_args: Optional[Dict[str, Any]] = None) -> "Artifact":
        """The artifact object of catalog JSON ``d`` (Unitxt's ``Artifact.from_dict``), with
        ``overwrite_args`` set over its arguments. See :func:`from_dict`."""
        if overwrite_args:
            d = {**d, **overwrite_args}
        return from_dict(d)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Artifact) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True, default=str))

    def __repr__(self) -> str:
        if self.__id__ is not None:
            return self.__id__
        args = ", ".join(f"{k}={v!r}" for k, v in self._args.items())
        return f"{type(self).__name__}({args})"


@dataclasses.dataclass
class TextGenerationInferenceOutput:
    """One answer with its metadata (Unitxt's ``unitxt.inference.TextGenerationInferenceOutput``,
    same fields in the same order), returned by ``infer(..., return_meta_data=True)``.

    Attributes:
        prediction: The prediction: a string, or with ``infer_log_probs`` a list of
            ``{"text", "logprob", "top_tokens": [{"text", "logprob"}, ...]}``, one per token.
        generated_text: The answer's text (``choices[0].message.content``).
        input_tokens: Tokens of the request (the answer's ``usage.prompt_tokens``).
        output_tokens: Tokens generated (``usage.completion_tokens``).
        stop_reason: Why the generation stopped (``None`` for API engines, as in Unitxt).
        seed: The generation's seed (``None`` for API engines).
        input_text: The input (``None`` for API engines).
        model_name: The engine's model.
        inference_type: The engine's label (``openai``, ``litellm``, ``rits``, ...).
    """

    prediction: Any
    generated_text: Any
    input_tokens: Optional[int] = None
    output_tokens: Optional[int] = None
    stop_reason: Optional[str] = None
    seed: Optional[int] = None
    input_text: Optional[str] = None
    model_name: Optional[str] = None
    inference_type: Optional[str] = None


def _redacted(args: Dict[str, Any]) -> Dict[str, Any]:
    """An engine's arguments with the secrets of its ``credentials`` (keys, tokens, passwords)
    replaced by ``[redacted]``: unlike Unitxt's, ``init_dict`` never holds an API key."""
    out = dict(args)
    creds = out.get("credentials")
    if isinstance(creds, dict):
        secret = ("key", "token", "password", "secret")
        out["credentials"] = {k: "[redacted]" if any(w in k.lower() for w in secret) else v for k, v in creds.items()}
    return out


class ListWithMetadata(list):
    """A list with a ``metadata`` dict (Unitxt's ``unitxt.inference.ListWithMetadata``), as
    ``infer`` returns its predictions: ``metadata`` holds ``init_dict`` (the engine's
    arguments, credentials redacted), ``inference_engine_type`` (its class name) and
    ``creation_time``."""

    def __init__(self, *args: Any, metadata: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.metadata = metadata if metadata is not None else {}

    def __repr__(self) -> str:
        return f"ListWithMetadata(data={super().__repr__()}, metadata={self.metadata})"


class InferenceEngineMixin:
    """What the inference engine classes (``unitxt_rs.inference``) add to :class:`Artifact`:
    :meth:`infer` and :meth:`infer_log_probs`, as Unitxt's ``InferenceEngine``."""

    def infer(self, dataset: Any, return_meta_data: bool = False) -> List[Any]:
        """Runs this engine on prepared instances (Unitxt's ``InferenceEngine.infer``): the
        Rust engine builds the requests from the object's :meth:`Artifact.to_dict` and sends
        them (retries, rate limit), with the GIL released.

        Args:
            dataset: The prepared instances: a ``Dataset`` from ``load_dataset`` or a list of
                instance dicts.
            return_meta_data: Return :class:`TextGenerationInferenceOutput` objects rather
                than the predictions.

        Returns:
            One raw prediction per instance (usually a string), in order; not post-processed
            (see ``unitxt_rs.api.infer``). With ``return_meta_data``, one
            :class:`TextGenerationInferenceOutput` per instance.

        Raises:
            UnsupportedError: an engine the Rust engine cannot run.
            UnitxtIOError: instances that got no prediction (each named with its failure).
        """
        from datetime import datetime

        from .api import _infer_raw

        result = _infer_raw(self, dataset, return_meta_data=return_meta_data)
        return ListWithMetadata(
            result,
            metadata={
                "init_dict": _redacted(self._args),
                "inference_engine_type": type(self).__name__,
                "creation_time": datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
            },
        )

    def __call__(self, dataset: Any, return_meta_data: bool = False) -> List[Any]:
        """:meth:`infer` (Unitxt's ``InferenceEngine.__call__``)."""
        return self.infer(dataset, return_meta_data=return_meta_data)

    def infer_log_probs(self, dataset: Any, return_meta_data: bool = False) -> List[Any]:
        """Runs this engine for the log probabilities of its generated tokens (Unitxt's
        ``LogProbInferenceEngine.infer_log_probs``).

        Args:
            dataset: The prepared instances, as for :meth:`infer`.
            return_meta_data: Return :class:`TextGenerationInferenceOutput` objects.

        Returns:
            Per instance, a list of ``{"text", "logprob", "top_tokens": [{"text", "logprob"},
            ...]}`` (one per generated token), or its :class:`TextGenerationInferenceOutput`.

        Raises:
            UnsupportedError: an engine that is not a log-probability engine in Unitxt.
            UnitxtIOError: instances that got no answer, or answers without log probabilities.
        """
        from .api import _infer_raw

        return _infer_raw(self, dataset, log_probs=True, return_meta_data=return_meta_data)


def _is_engine_type(t: str) -> bool:
    """Whether ``__type__`` ``t`` is an inference engine (``*_inference_engine*``)."""
    return "inference_engine" in t


def _make_classes() -> Dict[str, type]:
    """One class per engine type, named as Unitxt's."""
    classes: Dict[str, type] = {}
    for t, fields in _native.known_types():
        name, _, unitxt_fields, positional = NAMES.get(t, ("".join(p.capitalize() for p in t.split("_")), [], None, []))
        accepted = None
        if fields is not None or unitxt_fields is not None:
            accepted = tuple(dict.fromkeys(list(fields or []) + list(unitxt_fields or []) + list(COMMON_FIELDS)))
        read = f"The engine reads: {', '.join(fields)}." if fields else "The engine reads the arguments it supports."
        doc = (
            f"Unitxt's ``{name}`` (catalog ``__type__``: ``{t}``), built by the Rust engine when used.\n\n"
            f"{read}\nAccepted (as in Unitxt): {', '.join(a for a in accepted or () if not a.startswith('__')) or 'any'}."
        )
        attrs = {
            "__type__": t,
            "_fields": tuple(fields) if fields else None,
            "_accepted": accepted,
            "_positional": tuple(positional),
            "__doc__": doc,
        }
        bases = (InferenceEngineMixin, Artifact) if _is_engine_type(t) else (Artifact,)
        classes[t] = type(name, bases, attrs)
    return classes


#: ``__type__`` -> class, for every type the engine knows.
artifact_classes: Dict[str, type] = _make_classes()

def _criteria_constructors() -> None:
    """``Criteria.from_obj`` / ``from_jsons`` and ``CriteriaWithOptions.from_obj`` /
    ``from_jsons``, as Unitxt's ``llm_as_judge_constants`` defines them: the same keyword
    arguments in the same order (absent optional fields as ``None``, options as
    ``CriteriaOption`` objects)."""
    crit, with_opts, option = (artifact_classes.get(t) for t in ("criteria", "criteria_with_options", "criteria_option"))

    def base(d: Dict[str, Any]) -> Dict[str, Any]:
        return dict(
            name=d["name"],
            description=d["description"],
            prediction_field=d.get("prediction_field", None),
            context_fields=d.get("context_fields", None),
        )

    if crit is not None:
        crit.from_obj = staticmethod(lambda d: crit(**base(d)))
        crit.from_jsons = staticmethod(lambda s: crit.from_obj(json.loads(s)))
    if with_opts is not None and option is not None:

        def with_options(d: Dict[str, Any]) -> Artifact:
            options = [option(name=o["name"], description=o["description"]) for o in d["options"]]
            return with_opts(**base(d), options=options, option_map=d.get("option_map", None))

        with_opts.from_obj = staticmethod(with_options)
        with_opts.from_jsons = staticmethod(lambda s: with_opts.from_obj(json.loads(s)))


_criteria_constructors()

#: Module name (as Unitxt's, without the package) -> the classes it holds.
MODULE_CLASSES: Dict[str, List[type]] = {}
for _t, _cls in artifact_classes.items():
    for _m in NAMES.get(_t, ("", [], None, []))[1]:
        MODULE_CLASSES.setdefault(_m, []).append(_cls)
for _cls in artifact_classes.values():
    _cls.__module__ = "unitxt_rs." + (NAMES.get(_cls.__type__, ("", [], None, []))[1] or ["artifact"])[0]


def from_dict(d: Dict[str, Any], id: Optional[str] = None) -> Artifact:
    """The artifact object of catalog JSON ``d`` (a dict with ``__type__``; nested artifacts
    become objects too), as Unitxt's ``Artifact.from_dict``.

    Raises:
        InvalidInputError: ``d`` has no ``__type__``.
        ArtifactNotFoundError: a ``__type__`` the engine does not know.
    """
    if not isinstance(d, dict) or "__type__" not in d:
        raise InvalidInputError(f"not an artifact (no __type__): {str(d)[:120]}")
    cls = artifact_classes.get(d["__type__"])
    if cls is None:
        near = difflib.get_close_matches(d["__type__"], list(artifact_classes), n=1)
        raise ArtifactNotFoundError(
            f"unknown artifact type {d['__type__']!r}" + (f"; did you mean {near[0]!r}?" if near else "")
        )

    def nested(v: Any) -> Any:
        if isinstance(v, dict):
            if "__type__" in v and v["__type__"] in artifact_classes:
                return from_dict(v)
            return {k: nested(x) for k, x in v.items()}
        if isinstance(v, list):
            return [nested(x) for x in v]
        return v

    obj = cls.__new__(cls)
    object.__setattr__(obj, "_args", {k: nested(v) for k, v in d.items() if k != "__type__"})
    object.__setattr__(obj, "__id__", id)
    return obj


def fetch_artifact(artifact: Any) -> Tuple[Artifact, None]:
    """Unitxt's ``fetch_artifact``: an artifact object stays as it is; a catalog name or a dict
    with ``__type__`` becomes its object. Returns ``(artifact, None)`` as Unitxt does (the
    second item is Unitxt's catalog, unused here)."""
    if isinstance(artifact, Artifact):
        return artifact, None
    if isinstance(artifact, dict):
        return from_dict(artifact), None
    if isinstance(artifact, str):
        from . import get_from_catalog

        return get_from_catalog(artifact), None
    raise InvalidInputError(f"not an artifact: {artifact!r}")


def _install_modules() -> None:
    """Registers ``unitxt_rs.<module>`` for each Unitxt module that holds artifact classes, so
    that ``from unitxt_rs.templates import InputOutputTemplate`` works as with Unitxt: a module
    made here when it has no file of its own, else its file imported; either way given the
    classes it does not define."""
    import importlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for m, classes in MODULE_CLASSES.items():
        full = f"unitxt_rs.{m}"
        mod = sys.modules.get(full)
        if mod is None and os.path.exists(os.path.join(here, m + ".py")):
            # A module with a file of its own (more than artifact classes): imported, then
            # given the classes it does not define.
            mod = importlib.import_module(full)
        if mod is None:
            mod = _types.ModuleType(full, f"Unitxt's ``unitxt.{m}`` artifact classes, built by the Rust engine.")
            sys.modules[full] = mod
            setattr(sys.modules["unitxt_rs"], m, mod)
        for cls in classes:
            if not hasattr(mod, cls.__name__):
                setattr(mod, cls.__name__, cls)
        if m == "inference":
            mod.TextGenerationInferenceOutput = TextGenerationInferenceOutput
            mod.ListWithMetadata = ListWithMetadata
        if m == "llm_as_judge":
            _forward_judge_constants(mod)


def _forward_judge_constants(mod: _types.ModuleType) -> None:
    """Gives ``unitxt_rs.llm_as_judge`` the names Unitxt's ``unitxt.llm_as_judge`` imports from
    ``llm_as_judge_constants`` (the enums, ``EVALUATORS_METADATA``, the predefined criteria...),
    looked up there when first asked for, so the predefined criteria stay unread until used."""
    from . import llm_as_judge_constants as constants

    def forward(name: str) -> Any:
        if name in constants.__all__:
            return getattr(constants, name)
        raise AttributeError(f"module {mod.__name__!r} has no attribute {name!r}")

    mod.__getattr__ = forward
