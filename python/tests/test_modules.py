"""The helper modules of Unitxt that its documentation examples import, against Unitxt 1.26.10
itself: ``type_utils`` (custom types), ``text_utils`` (``print_dict``), ``logging_utils``,
``eval_utils`` (metrics on their own) and ``to_yaml`` of artifacts.
"""

import io
import logging
import math
from typing import Any, Dict, List, Literal, NewType, Optional, Tuple, TypedDict, Union

import pytest
import yaml

import unitxt_rs
from unitxt_rs import eval_utils, logging_utils, text_utils, type_utils

from test_parity import close


class Turn(TypedDict):
    role: Literal["user", "agent"]
    content: str


class Note(TypedDict):
    text: str
    tag: Optional[str]


Chat = NewType("Chat", List[Turn])


@pytest.fixture(scope="module")
def ut():
    from unitxt import type_utils as u

    u.register_type(Turn)
    u.register_type(Note)
    u.register_type(Chat)
    type_utils.register_type(Turn)
    type_utils.register_type(Note)
    type_utils.register_type(Chat)
    return u


TYPES = [int, str, float, bool, Any, List[str], Dict[str, int], Tuple[int, str], Optional[List[str]],
         Union[int, str], Literal["a", "b"], List[Chat], Turn, Chat, Dict[str, List[Turn]], Union[str, None]]

VALUES = [1, True, 1.5, "x", None, [], ["a", "b"], ["a", 1], {"a": 1}, {"a": "1"}, (1, "a"), (1, 2),
          {"role": "user", "content": "hi"}, {"role": "robot", "content": "hi"}, {"role": "user"},
          [{"role": "agent", "content": "ok"}], [{"role": "agent", "content": 3}], {"text": "t"}, {"text": 1}]


def test_type_strings_and_checks_equal_unitxts(ut):
    for t in TYPES:
        s = type_utils.to_type_string(t)
        assert s == ut.to_type_string(t), t
        assert type_utils.parse_type_string(s) == ut.parse_type_string(s), s
        for v in VALUES:
            assert type_utils.isoftype(v, t) == ut.isoftype(v, t), (v, t)
    for v in VALUES:
        assert type_utils.isoftype(v, Note) == ut.isoftype(v, Note), v
    for s in ["list[int | str]", "Dict[str, Optional[int]]", "tuple[int,str]", "Literal['a', 'b,]']", "int|str"]:
        assert type_utils.format_type_string(s) == ut.format_type_string(s), s
        assert type_utils.parse_type_string(s) == ut.parse_type_string(s), s
    for bad in ["Listt[int]", "os.system", "List[Unknown]", "int|None"]:
        with pytest.raises(ValueError):
            ut.parse_type_string(bad)
        with pytest.raises(ValueError):
            type_utils.parse_type_string(bad)
    with pytest.raises(AssertionError):
        type_utils.register_type(int)
    with pytest.raises(type_utils.UnsupportedTypeError):
        type_utils.isoftype(1, 3)
    assert type_utils.to_float_or_default("x", 7) == ut.to_float_or_default("x", 7) == 7


def test_task_checks_instances_against_a_registered_type(ut):
    """The engine checks a registered NewType as its supertype: an instance whose dialog is
    not a list of dicts is rejected, as Unitxt rejects it; a good one passes."""
    from unitxt_rs.card import TaskCard
    from unitxt_rs.loaders import LoadFromDictionary
    from unitxt_rs.task import Task
    from unitxt_rs.templates import InputOutputTemplate

    def load(dialog):
        task = Task(input_fields={"dialog": Chat}, reference_fields={"summary": str}, prediction_type=str,
                    metrics=["metrics.rouge"])
        assert task.to_dict()["input_fields"] == {"dialog": "Chat"}
        card = TaskCard(loader=LoadFromDictionary(data={"test": [{"dialog": dialog, "summary": "s"}]}), task=task)
        return unitxt_rs.load_dataset(card=card, template=InputOutputTemplate(input_format="{dialog}", output_format="{summary}"),
                                      split="test")

    assert len(load([{"role": "user", "content": "hi"}])) == 1
    with pytest.raises(unitxt_rs.UnitxtRsError) as e:
        load("not a dialog")
    assert "Chat" in str(e.value), str(e.value)


def test_text_utils_equal_unitxts():
    from unitxt import text_utils as u

    d = {"source": "Line one\nline two   ", "n": 3, "f": 0.5, "items": ["a", ("b", 2)], "nested": {"k": [1, {"z": None}]},
         "long": "x" * 130}
    for kw in ({}, {"indent": 2, "indent_delta": 2}, {"max_chars": 40}, {"keys": ["n", "source"]}, {"float_format": ".2f"}):
        assert text_utils.to_pretty_string(d, **{"max_chars": 100, **kw}) == u.to_pretty_string(d, **{"max_chars": 100, **kw}), kw
    with pytest.raises(ValueError) as e:
        text_utils.to_pretty_string(d, keys=["nope"])
    assert "nope" in str(e.value)
    import pandas as pd

    df = pd.DataFrame({"a": [1.25, 2.5], "b": ["x", "y"]})
    assert text_utils.to_pretty_string(df, max_chars=60, float_format=".1f") == u.to_pretty_string(df, max_chars=60, float_format=".1f")
    for s in ["InputOutputTemplate", "HFLoader", "MyMetric2Go", "already_snake", "ABCDef", "SQLExecutionAccuracy", "X"]:
        assert text_utils.camel_to_snake_case(s) == u.camel_to_snake_case(s), s
        assert text_utils.is_camel_case(s) == u.is_camel_case(s), s
        assert text_utils.is_snake_case(s) == u.is_snake_case(s), s
        assert text_utils.split_words(s + "-and_more42x") == u.split_words(s + "-and_more42x"), s
    assert text_utils.nested_tuple_to_string((1, ("a", 2))) == u.nested_tuple_to_string((1, ("a", 2)))


def test_print_dict_logs_to_stdout_as_unitxts():
    logger = unitxt_rs.get_logger()
    assert logger is logging_utils.get_logger() and logger.name == "unitxt_rs" and not logger.propagate
    handler = logging_utils._handler
    assert handler in logger.handlers and isinstance(handler, logging.StreamHandler)
    buf = io.StringIO()
    old = handler.setStream(buf)
    try:
        text_utils.print_dict({"source": "Q?", "target": "A", "x": 1}, keys_to_print=["source", "target"])
        assert buf.getvalue() == "\nsource (str):\n    Q?\ntarget (str):\n    A\n\n"
        logging_utils.set_verbosity("warning")
        text_utils.print_dict({"a": 1})
        assert buf.getvalue().count("source") == 1
    finally:
        logging_utils.set_verbosity("info")
        handler.setStream(old)


def test_eval_utils_evaluate_equals_unitxts():
    from unitxt.eval_utils import evaluate as u_evaluate

    def data():
        return [{"prediction": p, "references": [r]} for p, r in [("The cat sat", "the cat sat"), ("a dog", "the dog"), ("x", "y")]]

    names = ["metrics.rouge", "metrics.accuracy"]
    ours, theirs = eval_utils.evaluate(data(), metric_names=names), u_evaluate(data(), metric_names=names)
    close(ours, theirs)
    assert "rougeL_ci_low" not in ours[1]["metrics.rouge"]
    ours, theirs = (eval_utils.evaluate(data(), metric_names=["metrics.accuracy"], compute_conf_intervals=True),
                    u_evaluate(data(), metric_names=["metrics.accuracy"], compute_conf_intervals=True))
    close(ours, theirs)
    import pandas as pd

    o_rows, o_global = eval_utils.evaluate(pd.DataFrame(data()), metric_names=names)
    t_rows, t_global = u_evaluate(pd.DataFrame(data()), metric_names=names)
    assert list(o_rows.columns) == list(t_rows.columns)
    close(o_rows.to_dict("records"), t_rows.to_dict("records"))
    close(o_global.to_dict(), t_global.to_dict())
    assert eval_utils.evaluate([], metric_names=names) == ([], {})


def test_to_yaml_equals_unitxts_and_reads_back():
    import unitxt.card, unitxt.loaders, unitxt.task, unitxt.templates  # noqa: E401

    def card(mod):
        return mod.card.TaskCard(
            loader=mod.loaders.LoadFromDictionary(data={"test": [{"input": "2+2?", "output": "4"}]}),
            task=mod.task.Task(input_fields={"input": "str"}, reference_fields={"output": "str"}, prediction_type="str",
                               metrics=["metrics.rouge"]),
            templates=[mod.templates.InputOutputTemplate(input_format="{input}", output_format="{output}")],
        )

    ours, theirs = card(unitxt_rs), card(unitxt)
    text = ours.to_yaml()
    assert text == theirs.to_yaml()
    back = unitxt_rs.artifact.Artifact.from_dict(yaml.safe_load(text))
    assert type(back).__name__ == "TaskCard" and back.to_dict() == ours.to_dict()
    assert unitxt_rs.get_from_catalog("templates.classification.multi_class.instruction").to_yaml() == \
        unitxt.get_from_catalog("templates.classification.multi_class.instruction").to_yaml()
