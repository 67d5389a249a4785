# Writes wildcard_ops.jsonl: Unitxt 1.26.10's operators that take field paths (copy, rename,
# move, set, map_instance_values, cast_fields, field operators with set_every_value, ...) run
# with `*` and other dict paths on one-instance `test` streams, in the format of
# instance_ops.jsonl ({"op", "input", "ok" | "error"}). Run from the repository root:
#   .venv/bin/python crates/unitxt/src/operators/testdata/wildcard_ops_gen.py > crates/unitxt/src/operators/testdata/wildcard_ops.jsonl
import copy
import json

from unitxt.artifact import Artifact
from unitxt.stream import MultiStream

SPANS = {"text": "John works at Open AI", "spans": [{"start": 0, "end": 4, "label": "Person"}, {"start": 14, "end": 21, "label": "Organization"}]}
NO_SPANS = {"text": "nothing here", "spans": []}
PARTIAL = {"spans": [{"start": 0, "label": "A"}, {"label": "B"}, {"start": 7}]}
NESTED = {"doc": {"paras": [{"sents": [{"t": "a"}, {"t": "b"}]}, {"sents": []}, {"sents": [{"t": "c"}]}]}}
DICTS = {"m": {"k2": {"v": "x"}, "k1": {"v": "y"}}, "vals": ["P", "Q"]}
INPUTS = [SPANS, NO_SPANS, PARTIAL, NESTED, DICTS, {"other": 1}]

UNER_COPY = {"__type__": "copy", "field_to_field": {"spans/*/start": "spans_starts", "spans/*/end": "spans_ends", "spans/*/label": "labels"},
             "get_default": [], "not_exist_ok": True}
OPS = [
    UNER_COPY,
    {"__type__": "copy", "field": "spans/*/start", "to_field": "starts"},
    {"__type__": "copy", "field": "spans/*/start", "to_field": "starts", "not_exist_ok": True},
    {"__type__": "copy", "field": "spans/*/start", "to_field": "starts", "not_exist_do_nothing": True},
    {"__type__": "copy", "field": "spans/*", "to_field": "all"},
    {"__type__": "copy", "field": "spans/", "to_field": "all"},
    {"__type__": "copy", "field": "spans/0/label", "to_field": "first"},
    {"__type__": "copy", "field": "spans/-1", "to_field": "last", "not_exist_ok": True, "get_default": "none"},
    {"__type__": "copy", "field": "doc/paras/*/sents/*/t", "to_field": "ts"},
    {"__type__": "copy", "field": "doc/paras/*/sents", "to_field": "ss"},
    {"__type__": "copy", "field": "m/*/v", "to_field": "vs"},
    {"__type__": "copy", "field": "spans/*/label", "to_field": "spans/*/tag"},
    {"__type__": "copy", "field": "vals", "to_field": "m/*/v", "set_every_value": True},
    {"__type__": "copy", "field": "vals", "to_field": "spans/*/label", "set_every_value": True},
    {"__type__": "copy", "field": "vals", "to_field": "new/*/label", "set_every_value": True},
    {"__type__": "copy", "field": "text", "to_field": "spans/*/text"},
    {"__type__": "copy", "field": "spans/*/$", "to_field": "x"},
    {"__type__": "rename", "field": "spans/*/label", "to_field": "labels"},
    {"__type__": "rename", "field_to_field": {"spans/*/start": "starts", "spans/*/end": "ends"}},
    {"__type__": "rename", "field": "spans/*/start", "to_field": "spans/*/begin"},
    {"__type__": "rename", "field": "spans/*", "to_field": "items"},
    {"__type__": "rename", "field": "m/*/v", "to_field": "vs"},
    {"__type__": "rename", "field": "doc/paras/*/sents/*/t", "to_field": "ts"},
    {"__type__": "move", "field": "spans/*/end", "to_field": "ends"},
    {"__type__": "move", "field": "spans/0", "to_field": "first"},
    {"__type__": "set", "fields": {"spans/*/kind": "entity"}},
    {"__type__": "set", "fields": {"spans/*/start": 0, "flag": True}},
    {"__type__": "set", "fields": {"m/*/w": [1]}},
    {"__type__": "set", "fields": {"new/*/x": 1}},
    {"__type__": "set", "fields": {"spans/5/x": 1}},
    {"__type__": "set", "fields": {"spans/-9/x": 1}},
    {"__type__": "map_instance_values", "mappers": {"spans/*/label": {"['Person', 'Organization']": "both"}}, "strict": False},
    {"__type__": "map_instance_values", "mappers": {"spans/*/label": {"Person": "PER", "Organization": "ORG", "A": "a", "B": "b"}},
     "process_every_value": True},
    {"__type__": "cast_fields", "fields": {"spans/*/start": "str"}, "process_every_value": True},
    {"__type__": "lower_case", "field": "spans/*/label", "process_every_value": True},
    {"__type__": "lower_case", "field": "spans/*/label", "to_field": "spans/*/label", "process_every_value": True, "set_every_value": True},
    {"__type__": "map_values", "field": "spans/*/label", "mapping": {"Person": "P", "Organization": "O", "A": "a", "B": "b"},
     "process_every_value": True, "to_field": "short"},
    {"__type__": "get_length", "field": "spans/*/start", "to_field": "n", "not_exist_ok": True, "get_default": []},
    {"__type__": "join_str", "field": "spans/*/label", "to_field": "joined", "separator": "|", "not_exist_ok": True, "get_default": []},
    {"__type__": "zip_field_values", "fields": ["spans/*/start", "spans/*/end"], "to_field": "pairs"},
    {"__type__": "list_field_values", "fields": ["spans/*/label", "text"], "to_field": "lst"},
]

for op in OPS:
    for inst in INPUTS:
        line = {"op": op, "input": inst}
        try:
            operator = Artifact.from_dict(copy.deepcopy(op))
            ms = MultiStream.from_iterables({"test": [copy.deepcopy(inst)]})
            out = list(operator(ms)["test"])
            line["ok"] = out[0]
        except Exception as e:  # noqa: BLE001
            line["error"] = type(e).__name__
        print(json.dumps(line, ensure_ascii=False))
