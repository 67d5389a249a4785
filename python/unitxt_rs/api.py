"""Unitxt's ``unitxt.api`` functions, run by the Rust engine: :func:`load_dataset`,
:func:`evaluate`, :func:`infer`, :func:`create_dataset`, :func:`produce`, :func:`post_process`,
:func:`load_recipe`, :func:`fill_metadata`, with Unitxt 1.26.10's signatures and results.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _native, evaluate, load_dataset
from .artifact import Artifact, fetch_artifact, from_dict
from .errors import InvalidInputError

__all__ = [
    "load_dataset",
    "evaluate",
    "infer",
    "create_dataset",
    "produce",
    "post_process",
    "load_recipe",
    "fill_metadata",
]

_TMP_CATALOG: Optional[str] = None


def _tmp_catalog() -> str:
    """A catalog directory of this process for artifacts given as objects that the engine
    reads by name (benchmarks); removed at exit."""
    global _TMP_CATALOG
    if _TMP_CATALOG is None:
        _TMP_CATALOG = tempfile.mkdtemp(prefix="unitxt-rs-objects-")
        atexit.register(shutil.rmtree, _TMP_CATALOG, True)
    return _TMP_CATALOG


def _recipe_source(recipe: Any) -> Tuple[Optional[str], List[str], Dict[str, Any]]:
    """What the engine runs for ``load_dataset``'s ``dataset_query``: ``(recipe string or
    name, extra catalog directories, recipe arguments)``. A ``DatasetRecipe`` object becomes
    its arguments; a ``Benchmark`` object is saved in a catalog of this process and named."""
    if recipe is None or isinstance(recipe, str):
        return recipe, [], {}
    if isinstance(recipe, dict):
        recipe = from_dict(recipe)
    if isinstance(recipe, Artifact):
        if recipe.__id__ is not None:
            return recipe.__id__, [], {}
        if recipe.__type__ == "dataset_recipe":
            return None, [], dict(recipe._args)
        if recipe.__type__ == "benchmark":
            text = recipe.to_json()
            name = "benchmarks.unitxt_rs_object_" + hashlib.sha1(text.encode()).hexdigest()[:16]
            path = os.path.join(_tmp_catalog(), *name.split(".")) + ".json"
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            return name, [_tmp_catalog()], {}
    raise InvalidInputError(
        f"dataset_query must be a recipe string, a catalog name, a DatasetRecipe or a Benchmark, got {type(recipe).__name__}"
    )


def load_recipe(dataset_query: Any = None, **kwargs: Any) -> Artifact:
    """The recipe ``load_dataset`` would run, as an artifact object (Unitxt's ``load_recipe``):
    a ``DatasetRecipe`` or ``Benchmark`` object is returned as is; a catalog name gives that
    artifact (with ``kwargs`` set on it); a recipe string and/or keyword arguments give a
    ``DatasetRecipe`` with those arguments.

    Raises:
        InvalidInputError: neither a query nor arguments, or an argument that is not one of
            ``DatasetRecipe``'s.
    """
    from .artifact import artifact_classes

    if isinstance(dataset_query, Artifact) and dataset_query.__type__ in ("dataset_recipe", "benchmark"):
        return dataset_query
    recipe_cls = artifact_classes["dataset_recipe"]
    if dataset_query:
        if not isinstance(dataset_query, str):
            raise InvalidInputError(f"dataset_query must be a string, got {type(dataset_query).__name__}")
        if "=" not in dataset_query:
            art = fetch_artifact(dataset_query)[0]
            for k, v in kwargs.items():
                setattr(art, k, v)
            return art
        args = _parse_query(dataset_query)
        args.update(kwargs)
        return recipe_cls(**args)
    if kwargs:
        return recipe_cls(**kwargs)
    raise InvalidInputError("Specify either dataset recipe string artifact name or recipe args.")


def _parse_query(query: str) -> Dict[str, Any]:
    """``key=value,...`` of a recipe string into a dict (values as the engine parses them:
    numbers, lists, names)."""
    out: Dict[str, Any] = {}
    depth, cur, parts = 0, "", []
    for ch in query:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    for p in parts:
        if "=" not in p:
            raise InvalidInputError(f"recipe argument {p!r} has no '=' (expected key=value)")
        k, v = p.split("=", 1)
        v = v.strip()
        try:
            out[k.strip()] = int(v)
        except ValueError:
            try:
                out[k.strip()] = float(v)
            except ValueError:
                out[k.strip()] = v
    return out


def fill_metadata(**kwargs: Any) -> Dict[str, Any]:
    """``kwargs`` with ``unitxt_version`` and ``creation_time`` added (Unitxt's
    ``fill_metadata``, what ``load_dataset`` puts in ``info.description``)."""
    from . import UNITXT_VERSION

    metadata = dict(kwargs)
    metadata["unitxt_version"] = UNITXT_VERSION
    metadata["creation_time"] = datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return metadata


def create_dataset(
    task: Union[str, Artifact, Dict[str, Any]],
    test_set: List[Dict[Any, Any]],
    train_set: Optional[List[Dict[Any, Any]]] = None,
    validation_set: Optional[List[Dict[Any, Any]]] = None,
    split: Optional[str] = None,
    data_classification_policy: Optional[List[str]] = None,
    **kwargs: Any,
):
    """Prepares in-memory records for ``task`` (Unitxt's ``create_dataset``): a card with a
    ``LoadFromDictionary`` loader holding ``test_set`` (and ``train_set``,
    ``validation_set``) and the task, prepared by :func:`load_dataset` with ``kwargs``
    (``template=``, ``format=``, ``num_demos=``, ``metrics=``, ``postprocessors=``...).

    Args:
        task: A task catalog name (``"tasks.qa.open"``), a ``Task`` object or a task dict.
        test_set: The test records (dicts with the task's fields).
        train_set: Optional train records (the demos pool is taken from them).
        validation_set: Optional validation records.
        split: Return only this split.
        data_classification_policy: The loader's data classification policy.
        **kwargs: Recipe arguments, as for :func:`load_dataset`.

    Returns:
        As :func:`load_dataset`: a ``DatasetDict``, or the ``Dataset`` of ``split``.

    Raises:
        InvalidInputError: no ``template`` given and the task has no ``default_template``.
        And as :func:`load_dataset`.
    """
    from . import load_dataset
    from .artifact import artifact_classes

    data: Dict[str, Any] = {"test": test_set}
    if train_set is not None:
        data["train"] = train_set
    if validation_set is not None:
        data["validation"] = validation_set
    task_obj = fetch_artifact(task)[0]
    if "template" not in kwargs and task_obj.to_dict().get("default_template") is None:
        raise InvalidInputError(
            f"No 'template' was passed to the create_dataset() and the given task ('{task_obj.__id__}') has no "
            "'default_template' field."
        )
    loader_args: Dict[str, Any] = {"data": data}
    if data_classification_policy is not None:
        loader_args["data_classification_policy"] = data_classification_policy
    card = artifact_classes["task_card"](loader=artifact_classes["load_from_dictionary"](**loader_args), task=task_obj)
    return load_dataset(card=card, split=split, **kwargs)


def _data_for_native(data: Any) -> Tuple[Optional[bytes], Optional[str]]:
    from . import _data_as_arrow

    ipc = _data_as_arrow(data)
    if ipc is not None:
        return ipc, None
    rows = []
    for r in data:
        r = dict(r)
        if isinstance(r.get("source"), list):
            r["source"] = json.dumps(r["source"], ensure_ascii=False)
        rows.append(r)
    return None, json.dumps(rows, default=str)


def post_process(predictions: List[Any], data: Any) -> List[Any]:
    """Each prediction after its instance's template postprocessors (Unitxt's
    ``post_process``): the target prefix cut, then the instance's ``postprocessors`` run, as
    ``evaluate`` does before scoring.

    Args:
        predictions: One prediction per instance.
        data: The prepared instances (a ``Dataset`` from :func:`load_dataset` or
            :func:`produce`, or a list of instance dicts).

    Returns:
        The processed predictions, in order.

    Raises:
        InvalidInputError: a prediction count that does not match the data.
        ArtifactNotFoundError: a postprocessor name no catalog holds.
    """
    from . import _local_catalogs

    ipc, rows_json = _data_for_native(data)
    try:
        preds_json = json.dumps(list(predictions))
    except (TypeError, ValueError) as e:
        raise InvalidInputError(f"predictions are not JSON-like data: {e}") from None
    return json.loads(_native.post_process(preds_json, ipc, rows_json, list(_local_catalogs)))


def produce(instance_or_instances: Any, dataset_query: Optional[str] = None, **kwargs: Any):
    """Verbalizes task instances with a recipe's template, format and system prompt (Unitxt's
    ``produce``), as prompts for a model.

    Args:
        instance_or_instances: One task instance (a dict of the task's input fields) or a list.
        dataset_query: A recipe string or name (its card gives the task and templates).
        **kwargs: Recipe arguments, as for :func:`load_dataset`.

    Returns:
        For a list, a ``datasets.Dataset`` with Unitxt's produce columns (``source`` as the
        list of messages for chat formats); for one dict, that one instance as a dict.

    With demos (``num_demos``), the demos pool is made from the card's data as Unitxt's
    ``produce`` makes it (``demos_pool_size`` instances of ``demos_taken_from``).

    Raises:
        As :func:`load_dataset`.
    """

    is_list = isinstance(instance_or_instances, list)
    instances = instance_or_instances if is_list else [instance_or_instances]
    args = dict(_parse_query(dataset_query)) if dataset_query and "=" in dataset_query else {}
    args.update(kwargs)
    if dataset_query and "=" not in dataset_query:
        args = {**fetch_artifact(dataset_query)[0].to_dict(), **args}
        args.pop("__type__", None)
    card = args.get("card")
    if card is None or not args.get("num_demos"):
        # Without demos (a card's or a task's recipe), the engine verbalizes the instances as
        # Unitxt's inference stream does (the card's loader and preprocess steps do not run).
        from . import _args_json

        try:
            instances_json = json.dumps(instances)
        except (TypeError, ValueError) as e:
            raise InvalidInputError(f"the instances are not JSON-like data: {e}") from None
        rows = json.loads(_native.produce(None, _args_json(args), instances_json, _catalogs()))
        # Unitxt's produce gives each instance its fields in this order, a chat source as the
        # JSON text its finalization writes (read back as messages by the dataset's transform).
        order = ("metrics", "data_classification_policy", "media", "postprocessors", "source", "task_data", "groups", "subset")
        for i, row in enumerate(rows):
            if isinstance(row.get("source"), list):
                row["source"] = json.dumps(row["source"])
            rows[i] = {**{k: row[k] for k in order if k in row}, **{k: v for k, v in row.items() if k not in order}}
        if not is_list:
            return rows[0]
        import datasets

        from . import _decode_batch

        return datasets.Dataset.from_list(rows).with_transform(_decode_batch)
    # With demos, the pool comes from the card's data: the instances go through the recipe
    # beside it (see below).
    card = fetch_artifact(card)[0].to_dict()
    task = fetch_artifact(card["task"])[0].to_dict()
    refs = task.get("reference_fields", task.get("outputs")) or {}
    ref_types = refs if isinstance(refs, dict) else {r: "str" for r in refs}
    # The engine prepares complete task instances: reference fields the instances lack are
    # given placeholder values, and everything they feed (target, references, their
    # task_data entries) is left out of the result, as Unitxt's inference stream has none.
    missing = [r for r in ref_types if any(r not in inst for inst in instances)]
    filled = [{**{r: _placeholder(ref_types[r]) for r in missing}, **inst} for inst in instances]
    data = {"test": filled}
    loader: Dict[str, Any] = {"__type__": "load_from_dictionary", "data": data, "data_classification_policy": []}
    if args.get("num_demos"):
        # Demos come from the card's own data, as in Unitxt's produce: the card's demos split
        # (after its steps and the task) is read until it holds enough distinct instances for
        # the pool, and given, as task instances, beside the instances to verbalize; the
        # engine then builds the pool and samples the demos as for load_dataset.
        pool = _demos_source(args, task)
        # The demos keep the policy of the card's data; the instances given have none.
        policy = (pool[0].pop("data_classification_policy", None) if pool else None) or []
        for p in pool:
            p.pop("data_classification_policy", None)
        source = {"__type__": "load_from_dictionary", "data": {args.get("demos_taken_from") or "train": pool},
                  "data_classification_policy": policy}
        loader = {"__type__": "multiple_source_loader", "sources": [loader, source]}
        args.pop("demos_taken_from", None)
    inference_card = {
        "__type__": "task_card",
        "loader": loader,
        "task": card["task"],
    }
    for k in ("templates", "sampler"):
        if card.get(k) is not None:
            inference_card[k] = card[k]
    args["card"] = inference_card
    for k in ("loader_limit", "max_test_instances", "max_train_instances", "max_validation_instances"):
        args.pop(k, None)
    ds = load_dataset(split="test", **args).with_format(None)
    rows = []
    for i in range(len(ds)):
        row = dict(ds[i])
        td = json.loads(row["task_data"])
        for r in missing:
            td.pop(r, None)
        row["task_data"] = json.dumps(td)  # as Unitxt writes it (non-ASCII escaped)
        if missing:
            row.pop("target", None)
            row.pop("references", None)
        rows.append(row)
    if not is_list:
        return rows[0]
    import datasets

    from . import _decode_batch

    return datasets.Dataset.from_list(rows).with_transform(_decode_batch)


def _demos_source(args: Dict[str, Any], task: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The task instances of the recipe's demos split (``demos_taken_from``, default
    ``train``), in order, up to the first ``demos_pool_size`` distinct ones (by their input
    fields, as Unitxt's ``CreateDemosPool`` counts them); all of them for a pool size of -1."""
    size = args.get("demos_pool_size")
    size = None if size is None or int(size) < 0 else int(size)
    keep = {k: v for k, v in args.items() if k in ("card", "template", "template_card_index", "loader_limit", "format")}
    inputs = task.get("input_fields", task.get("inputs")) or {}
    inputs = list(inputs) if isinstance(inputs, (dict, list)) else []
    out: List[Dict[str, Any]] = []
    seen = set()
    for row in load_dataset(split=args.get("demos_taken_from") or "train", streaming=True, **keep):
        td = row["task_data"]
        td = json.loads(td) if isinstance(td, str) else dict(td)
        td.pop("metadata", None)
        if row.get("data_classification_policy") is not None:
            td["data_classification_policy"] = list(row["data_classification_policy"])
        out.append(td)
        seen.add(json.dumps({k: td.get(k) for k in inputs}, sort_keys=True, default=str))
        if size is not None and len(seen) > size:
            break
    return out


def _placeholder(type_name: Any) -> Any:
    """A value of Unitxt type ``type_name`` (``"str"``, ``"int"``, ``"List[str]"``...)."""
    t = str(type_name)
    if t.startswith(("List", "list", "Tuple", "tuple")):
        return []
    if t.startswith(("Dict", "dict")):
        return {}
    return {"int": 0, "float": 0.0, "bool": False}.get(t, "")


def _jsonable(v: Any) -> Any:
    from . import _jsonable as j

    return j(v, "argument")


def _catalogs() -> List[str]:
    from . import _local_catalogs

    return list(_local_catalogs)




def _engine_json(engine: Any) -> str:
    """The JSON the engine builds an inference engine from: a catalog name (with optional
    ``[overwrites]``) as a JSON string, a dict with ``__type__`` as is, an artifact object as
    its :meth:`~unitxt_rs.artifact.Artifact.to_dict`."""
    if isinstance(engine, str):
        return json.dumps(engine)
    if isinstance(engine, dict):
        return json.dumps(engine, default=str)
    if isinstance(engine, Artifact):
        return json.dumps(engine.to_dict(), default=str)
    raise InvalidInputError(
        f"engine must be an inference engine object, a catalog name or a dict, got {type(engine).__name__}"
    )


def _answer_cache(engine: Any) -> Optional[str]:
    """The answer cache file of ``engine``: ``unitxt_rs_answers.sqlite`` in
    ``settings.inference_engine_cache_path`` when the engine's ``use_cache`` is true (its
    default, as in Unitxt), else ``None``. Each answer is written there as it arrives; the key is
    the endpoint and the request body, never the API key."""
    from .artifact import fetch_artifact
    from .errors import UnitxtRsError

    try:
        use_cache = fetch_artifact(engine)[0].to_dict().get("use_cache", True)
    except UnitxtRsError:  # an engine that does not build is reported when it is built
        use_cache = True
    if not use_cache:
        return None
    from . import _answer_cache_file

    return _answer_cache_file()


def _infer_raw(engine: Any, data: Any, log_probs: bool = False, return_meta_data: bool = False) -> List[Any]:
    """The raw predictions of ``engine`` on the prepared instances ``data`` (a ``Dataset`` or a
    list of instance dicts), one per instance, in order (Unitxt's ``InferenceEngine.infer``, or
    ``infer_log_probs`` with ``log_probs``); with ``return_meta_data``, one
    ``TextGenerationInferenceOutput`` per instance."""
    from . import _local_catalogs
    from .artifact import TextGenerationInferenceOutput

    ipc, rows_json = _data_for_native(data)
    out = json.loads(
        _native.infer(
            _engine_json(engine),
            ipc,
            rows_json,
            list(_local_catalogs),
            cache_path=_answer_cache(engine),
            log_probs=log_probs,
            meta_data=return_meta_data,
        )
    )
    if return_meta_data:
        return [TextGenerationInferenceOutput(**m) for m in out["meta_data"]]
    return out["predictions"]


def _is_prepared(data: Any) -> bool:
    """Whether ``data`` holds prepared instances (a ``datasets.Dataset``, or a list of dicts
    with ``source``) rather than task instances for :func:`produce`."""
    try:
        import datasets

        if isinstance(data, (datasets.Dataset, datasets.IterableDataset)):
            return True
    except ImportError:  # pragma: no cover
        pass
    return isinstance(data, list) and bool(data) and all(isinstance(r, dict) and "source" in r for r in data)


def infer(
    instance_or_instances: Any,
    engine: Any,
    dataset_query: Optional[str] = None,
    return_data: bool = False,
    return_log_probs: bool = False,
    return_meta_data: bool = False,
    previous_messages: Optional[List[Dict[str, str]]] = None,
    **kwargs: Any,
):
    """Runs an inference engine on instances and post-processes its answers (Unitxt's
    ``unitxt.api.infer``, same signature).

    Args:
        instance_or_instances: Task instances (a dict or a list of dicts) verbalized with
            :func:`produce` (``dataset_query`` and ``kwargs`` give the recipe), or instances
            already prepared (a ``Dataset`` from :func:`load_dataset`), used as they are.
        engine: The inference engine: an object of ``unitxt_rs.inference``
            (``OpenAiInferenceEngine(...)``), a catalog name (``engines.x[model_name=m]``) or
            a dict with ``__type__``.
        dataset_query: The recipe for :func:`produce`.
        return_data: Return the data with the columns ``prediction`` (post-processed) and
            ``raw_prediction`` added, rather than the predictions.
        return_log_probs: Ask the engine for the log probabilities of its tokens (Unitxt's
            ``infer_log_probs``); each is post-processed as its JSON text, as Unitxt does.
        return_meta_data: With ``return_data``, add the column ``infer_meta_data`` (the
            fields of Unitxt's ``TextGenerationInferenceOutput`` but ``prediction``).
        previous_messages: Per instance, chat messages put before its ``source`` (as Unitxt).
        **kwargs: Recipe arguments for :func:`produce`.

    Returns:
        The post-processed predictions (a list, one per instance), or the data with them when
        ``return_data``.

    Raises:
        InvalidInputError: an engine that is not an inference engine, unreadable data.
        UnsupportedError: ``return_log_probs`` with an engine that has no log probabilities,
            an engine the Rust engine cannot run (local models).
        UnitxtIOError: instances that got no prediction (each named with its failure).
    """
    if _is_prepared(instance_or_instances):
        dataset = instance_or_instances
    else:
        dataset = produce(
            instance_or_instances if isinstance(instance_or_instances, list) else [instance_or_instances],
            dataset_query,
            **kwargs,
        )
    if previous_messages is not None:

        def add_previous_messages(example, index):
            example["source"] = previous_messages[index] + example["source"]
            return example

        if isinstance(dataset, list):
            dataset = [add_previous_messages(dict(r), i) for i, r in enumerate(dataset)]
        else:
            dataset = dataset.map(add_previous_messages, with_indices=True)
    infer_outputs = _infer_raw(engine, dataset, log_probs=return_log_probs, return_meta_data=return_meta_data)
    raw_predictions = [o.prediction for o in infer_outputs] if return_meta_data else infer_outputs
    if return_log_probs:
        # Unitxt post-processes the log probabilities as JSON text.
        raw_predictions = [json.dumps(p) for p in raw_predictions]
    predictions = post_process(raw_predictions, dataset)
    if return_data:
        meta = None
        if return_meta_data:
            meta = [{k: v for k, v in o.__dict__.items() if k != "prediction"} for o in infer_outputs]
        if isinstance(dataset, list):
            rows = [dict(r) for r in dataset]
            if meta is not None:
                for r, m in zip(rows, meta):
                    r["infer_meta_data"] = m
            return [{**r, "prediction": p, "raw_prediction": rp} for r, p, rp in zip(rows, predictions, raw_predictions)]
        if meta is not None:
            dataset = dataset.add_column("infer_meta_data", meta)
        dataset = dataset.add_column("prediction", predictions)
        return dataset.add_column("raw_prediction", raw_predictions)
    return predictions
