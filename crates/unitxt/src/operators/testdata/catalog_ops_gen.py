# Writes catalog_ops.jsonl: Unitxt 1.26.10's operators added for catalog coverage (table
# building, recursive_replace, iob_extractor) on one-instance `test` streams, in the format of
# instance_ops.jsonl ({"op", "input", "ok" | "error"}). Run from the repository root:
#   .venv/bin/python crates/unitxt/src/operators/testdata/catalog_ops_gen.py > crates/unitxt/src/operators/testdata/catalog_ops.jsonl
import copy
import json

from unitxt.artifact import Artifact
from unitxt.stream import MultiStream

CSV = [
    "a,b,c\n1,2,3\n4,5,6\n",
    "a,b\n1,2",
    'name,quote\nx,"he said ""hi"""\ny,"multi\nline"\n',
    "a,b\n\n1,2\n",
    'a,b\n1,"unterminated',
    'a,b\n1,x"y\n2,"q"z\n',
    "a,b\r\n1,2\r\n",
    "a,,b\n,,\n",
    "a\tb\n1\t2\n",
    "only header\n",
    "",
    "a,b\n1,2\r3,4\n",
    "  a , b \n 1 , two\nthree \n",
    "h1,h2\n1,2,3\n4\n",
]
OPS = [
    {"__type__": "parse_csv", "field": "t", "to_field": "table"},
    {"__type__": "parse_csv", "field": "t", "to_field": "table", "has_header": False},
    {"__type__": "parse_csv", "field": "t", "to_field": "table", "skip_header": True},
    {"__type__": "parse_csv", "field": "t", "to_field": "table", "strip_cells": True, "dtype": "str"},
    {"__type__": "parse_csv", "field": "t", "to_field": "table", "separator": "\t"},
]
cases = []
for op in OPS:
    for text in CSV:
        cases.append((op, {"t": text}))
LISTS = [[["h1", "h2"], ["a", 1], ["b", 2]], [["h"]], [], "not a list"]
for v in LISTS:
    cases.append(({"__type__": "map_table_lists_to_std_table_json", "field": "t", "to_field": "table"}, {"t": v}))
ROWS_COLS = [
    {"h": "['a', 'b']", "r": "[['1', 2], ['x', None]]", "c": "A caption"},
    {"h": "['a', 'b']", "r": "[]", "c": None},
    {"h": "('a', 'b')", "r": "[[1.5, True]]"},
    {"h": "['a'", "r": "[]", "c": "x"},
    {"h": ["a"], "r": "[]", "c": "x"},
    {"h": "['a']", "r": "[['x']]", "nested": {"c": "deep"}},
]
for v in ROWS_COLS:
    fields = ["h", "r", "c"] if "c" in v else ["h", "r"]
    cases.append(({"__type__": "construct_table_from_rows_cols", "fields": fields, "to_field": "table"}, v))
cases.append(({"__type__": "construct_table_from_rows_cols", "fields": ["h", "r", "missing"], "to_field": "table"}, ROWS_COLS[0]))

RR = {"__type__": "recursive_replace", "key": "type", "map_values": {"dict": "object", "int": "integer", "1": "one"},
      "remove_values": ["drop", 1]}
RR_INPUTS = [
    {"schema": {"type": "dict", "properties": {"a": {"type": "int"}, "b": {"type": "float"}}}},
    {"x": [{"type": "int"}, {"type": "drop", "keep": 1}, {"other": {"type": "dict"}}]},
    {"type": ["int", "drop", {"nested": 1}, 2, True, "1", None], "after": 1},
    {"type": {"type": "int", "z": {"type": "dict"}}},
    {"type": 1.0, "k": 2},
    {"type": True},
    {"type": None, "t": {"type": "x"}},
    {"type": [["int"]]},
]
for v in RR_INPUTS:
    cases.append((RR, v))
cases.append(({"__type__": "recursive_replace", "key": "type", "map_values": {"int": "integer"}}, RR_INPUTS[0]))

IOB = {"__type__": "iob_extractor", "labels": ["Person", "Organization", "Location"],
       "begin_labels": ["B-PER", "B-ORG", "B-LOC"], "inside_labels": ["I-PER", "I-ORG", "I-LOC"], "outside_label": "O"}
IOB_INPUTS = [
    {"text": "John Doe works at Open AI", "tokens": ["John", "Doe", "works", "at", "Open", "AI"], "labels": ["B-PER", "I-PER", "O", "O", "B-ORG", "I-ORG"]},
    {"text": "Zoë  Müller lives in São Paulo .", "tokens": ["Zoë", "Müller", "lives", "in", "São", "Paulo", "."], "labels": ["B-PER", "I-PER", "O", "O", "B-LOC", "I-LOC", "O"]},
    {"text": "a b", "tokens": ["a", "b", "c"], "labels": ["I-PER", "B-LOC"]},
    {"text": "a a a", "tokens": ["a", "a"], "labels": ["B-PER", "B-PER"]},
    {"text": "x y", "tokens": ["x", "z"], "labels": ["O", "O"]},
    {"text": "x", "tokens": ["x"]},
]
for v in IOB_INPUTS:
    cases.append((IOB, v))

for op, inst in cases:
    line = {"op": op, "input": inst}
    try:
        operator = Artifact.from_dict(copy.deepcopy(op))
        ms = MultiStream.from_iterables({"test": [copy.deepcopy(inst)]})
        out = list(operator(ms)["test"])
        line["ok"] = out[0]
    except Exception as e:  # noqa: BLE001
        line["error"] = type(e).__name__
    print(json.dumps(line, ensure_ascii=False))
