# Writes card_ops.jsonl: Unitxt 1.26.10's card operators added for issue 39 (dialog, table,
# JSON-schema and list operators) run on small `test` streams. Each line is
# {"op", "inputs": [instances], "ok": [output instances] | "error": exception class}.
# An instance's `recipe_metadata/format`, a format definition in the file, is given to Unitxt
# as the built format object (as a recipe stores it) and written back as the definition.
# Run from the repository root:
#   PYTHONPATH=DIR_WITH_BEAUTIFULSOUP4 .venv/bin/python crates/unitxt/src/operators/testdata/card_ops_gen.py > crates/unitxt/src/operators/testdata/card_ops.jsonl
# (e.g. `pip install --target DIR beautifulsoup4==4.15.0`; see map_html_table_to_json below)
import copy
import json

from unitxt.artifact import Artifact
from unitxt.stream import MultiStream

cases = []


def case(op, *inputs):
    cases.append((op, list(inputs)))


# pop: lists (negative, out of range, default None), dicts, other values, process_every_value.
for item in [-1, 0, 1, 5, -4, None]:
    case({"__type__": "pop", "field": "d", "item": item, "to_field": "last"}, {"d": [1, 2, 3]})
case({"__type__": "pop", "field": "d", "item": 0}, {"d": [[1, 2], 3]})
case({"__type__": "pop", "field": "d", "item": "a", "to_field": "x"}, {"d": {"a": 1, "b": 2}})
case({"__type__": "pop", "field": "d", "item": "z", "to_field": "x"}, {"d": {"a": 1}})
case({"__type__": "pop", "field": "d", "item": 0, "to_field": "x"}, {"d": "abc"})
case({"__type__": "pop", "field": "d", "item": 0, "to_field": "x"}, {"d": []})
case({"__type__": "pop", "field": "d", "item": -1, "to_field": "x", "process_every_value": True}, {"d": [[1, 2], [3, 4]]})
case({"__type__": "pop", "field": "a/b", "item": 1, "to_field": "x"}, {"a": {"b": ["p", "q", "r"]}})
case({"__type__": "pop", "field": "d", "item": 1}, {"e": 1})
case({"__type__": "pop", "field": "d", "item": 1, "not_exist_ok": True, "get_default": [7, 8], "to_field": "x"}, {"e": 1})

# duplicate_by_list / explode.
for t in ["duplicate_by_list", "explode"]:
    case({"__type__": t, "field": "l", "to_field": "x"}, {"l": [1, "a", {"k": 2}], "id": 0}, {"l": [], "id": 1}, {"l": ["z"], "id": 2})
case({"__type__": "explode", "field": "l"}, {"l": [1, 2], "o": 3})
case({"__type__": "explode", "field": "l", "to_field": "x"}, {"l": "ab"})
case({"__type__": "explode", "field": "l", "to_field": "x"}, {"l": {"p": 1, "q": 2}})
case({"__type__": "explode", "field": "a/l", "to_field": "x", "use_deep_copy": True}, {"a": {"l": [1, 2]}})
case({"__type__": "explode", "field": "l", "to_field": "x"}, {"l": 5})
case({"__type__": "explode", "field": "l", "to_field": "x"}, {"m": 5})

# duplicate_by_sub_lists.
D = ["q1", "q2", "q3"]
case({"__type__": "duplicate_by_sub_lists", "field": "d"}, {"d": D, "o": 1}, {"d": [], "o": 2})
case({"__type__": "duplicate_by_sub_lists", "field": "d", "to_field": "p"}, {"d": D})
case({"__type__": "duplicate_by_sub_lists", "field": "d", "to_field": "p", "use_deep_copy": True}, {"d": D})
case({"__type__": "duplicate_by_sub_lists", "field": "d", "to_field": "p", "start": 0, "end": -1, "step": 2}, {"d": D + ["q4"]})
case({"__type__": "duplicate_by_sub_lists", "field": "d", "to_field": "p", "start": -2}, {"d": D})
case({"__type__": "duplicate_by_sub_lists", "field": "d", "to_field": "p", "start": 3, "step": -1}, {"d": D})
case({"__type__": "duplicate_by_sub_lists", "field": "d", "to_field": "p", "step": 0}, {"d": D})
case({"__type__": "duplicate_by_sub_lists", "field": "d"}, {"d": "xyz"})
case({"__type__": "duplicate_by_sub_lists", "field": "d"}, {"d": 3})
case({"__type__": "duplicate_by_sub_lists", "field": "a/d", "to_field": "p"}, {"a": {"d": [1, 2]}})

# to_dialog.
case({"__type__": "to_dialog", "field": "d"}, {"d": [["q1", "a1"], ["q2", "a2"]]})
case({"__type__": "to_dialog", "field": "d", "to_field": "x"}, {"d": []})
case({"__type__": "to_dialog", "field": "d"}, {"d": ["ab", [1, None]]})
case({"__type__": "to_dialog", "field": "d"}, {"d": [["q", "a", "x"]]})
case({"__type__": "to_dialog", "field": "d"}, {"d": [5]})

# serialize_dialog.
UA = {"__type__": "system_format", "demo_format": "<|user|>\n{source}\n<|assistant|>\n {target_prefix}{target}\n\n",
      "model_input_format": "{source}"}
EMPTY = {"__type__": "system_format"}
DIALOG = [{"user": "hi", "system": "hello"}, {"user": "how?", "system": "fine"}, {"user": "bye", "system": "ciao"}]
for fmt in [UA, EMPTY, {"__type__": "system_format", "demo_format": "U: {source} S: {target}|"}]:
    for extra in [{}, {"last_response_to_field": "last"}, {"slice_first_and_last_turns_format": False},
                  {"context_field": "story", "context_separator": " // "}]:
        case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": fmt, **extra},
             {"dialog": DIALOG, "story": "Once."})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA}, {"dialog": DIALOG[:1]})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA}, {"dialog": []})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA, "last_response_to_field": "l"}, {"dialog": []})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA}, {"dialog": [{"user": "x"}]})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA}, {"dialog": [{"user": 1, "system": [2], "extra": 3}]})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA}, {"dialog": ["x"]})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": {"__type__": "system_format", "demo_format": "{target}"}}, {"dialog": DIALOG})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": UA, "context_field": "story"}, {"dialog": DIALOG, "story": 3})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "format": {"__type__": "chat_api_format"}}, {"dialog": DIALOG})
# The recipe's format, from recipe_metadata.
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx", "context_field": "story"},
     {"dialog": DIALOG, "story": "S.", "recipe_metadata": {"format": UA}})
case({"__type__": "serialize_dialog", "field": "dialog", "to_field": "ctx"}, {"dialog": DIALOG, "recipe_metadata": {"format": EMPTY}})

# serialize_open_ai_format_dialog.
OA = {"__type__": "serialize_open_ai_format_dialog", "field": "dialog", "to_field": "q", "format": UA,
      "slice_first_and_last_turns_format": True, "last_response_to_field": "dummy"}
m = lambda r, c: {"role": r, "content": c}  # noqa: E731
for dialog in [
    [m("user", "a"), m("assistant", "b"), m("user", "c")],
    [m("user", "a"), m("user", "a2"), m("assistant", "b"), m("assistant", "b2"), m("user", "c")],
    [m("user", "a"), m("assistant", "b")],
    [m("User", "a"), m("user", "a2"), m("ASSISTANT", "b")],
    [m("user", "only")],
    [],
    [m("assistant", "b")],
    [m("user", "a"), m("system", "s")],
    [m("user", 1)],
    [{"role": "user"}],
    [{"content": "x"}],
    ["x"],
    "not a list",
]:
    case(OA, {"dialog": dialog})
case({**OA, "last_response_to_field": None}, {"dialog": [m("user", "a"), m("assistant", "b"), m("user", "c")]})
case({**OA, "to_field": None}, {"dialog": [m("user", "a"), m("user", "b")]})

# dump_json.
for v in [{"a": [1, 2.5, None, True], "é": "ü"}, "x", [], 3, {"n": {"m": "\n\t\""}}]:
    case({"__type__": "dump_json", "field": "v"}, {"v": v})

# serialize_triples.
for v in [[["First Clearing", "LOCATION", "On NYS 52"], ["a", "CITY_OR_TOWN", "b"]], [], [[1, "R", None]], [["a", "b"]],
          [["a", 1, "c"]], "abc", [["s", "ÀBC", 2.5]]]:
    case({"__type__": "serialize_triples", "field_to_field": [["t", "out"]]}, {"t": v})

# serialize_key_val_pairs.
for v in [{"name": "Alex", "age": 31, "sex": "M"}, {}, {"a": None, "b": [1, "x"], "c": {"d": 1.0}}, ["a"], "s"]:
    case({"__type__": "serialize_key_val_pairs", "field_to_field": [["kv", "input"]]}, {"kv": v})

# list_to_key_val_pairs.
LKV = {"__type__": "list_to_key_val_pairs", "fields": ["t/k", "t/v"], "to_field": "kv"}
for k, v in [(["name", "age", "sex"], ["Alex", 31, "M"]), (["a", "b"], [1]), ([], []), (["a", "a"], [1, 2]), ([1, 2], ["x", "y"]),
             ("ab", [1, 2]), (["a"], 5)]:
    case(LKV, {"t": {"k": k, "v": v}})
case(LKV, {"t": {"k": ["a"]}})

# serialize_table_row_as_text.
ROW = {"age": 40, "sex": "M", "chol": 289.5, "note": "  ", "long": "abcdefghij", "flag": True, "none": None}
case({"__type__": "serialize_table_row_as_text", "fields": ["age", "sex", "chol"], "to_field": "text"}, ROW)
case({"__type__": "serialize_table_row_as_text", "fields": list(ROW), "to_field": "text", "max_cell_length": 3}, ROW)
case({"__type__": "serialize_table_row_as_text", "fields": [], "to_field": "text"}, ROW)
case({"__type__": "serialize_table_row_as_text", "fields": ["missing"], "to_field": "text"}, ROW)
case({"__type__": "serialize_table_row_as_text", "fields": ["l"], "to_field": "text", "max_cell_length": 3}, {"l": [1]})
case({"__type__": "serialize_table_row_as_text", "fields": ["l"], "to_field": "text"}, {"l": [1, "a"]})

# get_num_of_table_cells.
for t in [{"header": ["a", "b"], "rows": [[1, 2], [3, 4], [5, 6]]}, {"header": [], "rows": [[1]]}, {"header": ["a"]},
          {"rows": []}, [1], {"header": "abc", "rows": [1, 2]}, {"header": ["a"], "rows": 3}]:
    case({"__type__": "get_num_of_table_cells", "field": "t", "to_field": "n"}, {"t": t})

# fix_json_schema_of_parameter_types.
TYPES = ["int", "str", "", "Any", "List[int]", "List[List[str]]", "Tuple[int, str]", "Union[int, str, None]",
         "Callable[[int], str]", "str, optional", "int, default=5", "float, default 2.5", "int, optional, default=3",
         "list, default=[1, 2]", "a, b, c, d", "int, default", "MyType", "List[int]\n", "List[int\n]", "dict, Optional",
         "Dict[str, int]", "Set[int]", "Optional[int]"]
for t in TYPES:
    case({"__type__": "fix_json_schema_of_parameter_types", "main_field": "tools"},
         {"tools": [{"name": "f", "parameters": {"type": "dict", "properties": {"p": {"type": t, "description": "d"}}}}]})
case({"__type__": "fix_json_schema_of_parameter_types", "main_field": "tools"},
     {"tools": {"type": 3, "items": {"type": "int"}, "x": [{"type": "List[str]", "items": "keep"}, "type"]}})
case({"__type__": "fix_json_schema_of_parameter_types", "main_field": "tools"},
     {"tools": {"a": {"type": "List[int]", "items": {"type": "str"}, "z": 1}}})
case({"__type__": "fix_json_schema_of_parameter_types", "main_field": "tools"}, {"other": 1})

# shuffle_field_values (seeded by the list itself: deterministic).
for v in [["a", "b", "c", "d"], [1, 2, 3, 4, 5, 6, 7], [], "hello", {"x": 1, "y": 2, "z": 3}, [None, True, 1.5, "é"]]:
    case({"__type__": "shuffle_field_values", "field": "c"}, {"c": v})
case({"__type__": "shuffle_field_values", "field": "c"}, {"c": 5})

# extract_field_values.
EFV = {"__type__": "extract_field_values", "field": "label", "to_field": "classes", "stream_name": "test"}
case(EFV, {"label": "b"}, {"label": "a"}, {"label": "b"}, {"label": "c"}, {"label": "a"}, {"label": "b"})
case(EFV, {"label": 1}, {"label": 1.0}, {"label": True}, {"label": 2}, {"label": 2}, {"label": None})
case(EFV, {"label": ["x", "y"]}, {"label": ["x", "y"]}, {"label": ["y"]})
case({**EFV, "process_every_value": True}, {"label": ["x", "y"]}, {"label": ["y", "z"]}, {"label": []})
case({**EFV, "process_every_value": True}, {"label": "x"})
case({**EFV, "process_every_value": True}, {"label": [["x"]]})
case(EFV, {"label": {"d": 1}})
case(EFV, {"label": [["x"]]})
case(EFV, {"other": 1})
case({**EFV, "to_field": "meta/classes"}, {"label": "a"}, {"label": "b", "meta": {"k": 1}})
case({**EFV, "stream_name": "train"}, {"label": "a"})

# map_html_table_to_json: Unitxt needs the `bs4` distribution, which the oracle's environment
# lacks; the generator runs Unitxt's own class with beautifulsoup4 on PYTHONPATH and the
# requirement check skipped (PYTHONPATH=DIR_WITH_BS4 python card_ops_gen.py).
try:
    import bs4  # noqa: F401
    from unitxt.struct_data_operators import MapHTMLTableToJSON

    MapHTMLTableToJSON.check_missing_requirements = lambda self, *a, **k: None
    HTML = [
        "<table><thead><tr><th>a<b>x</b></th><th>b &amp; c &nbsp;&lt; &#65;&#x42; &amp &copy &#233 &euro;</th></tr></thead>"
        "<tbody><tr><td>1<td>2</tr><tr><td><table><tr><td>in</td></tr></table></td></tr></tbody></table>",
        "<table><tr><td>1</td></tr></table>",
        "<thead><th>a<!-- c --></th></thead><tbody><tr><td>x<script>var a=1;</script><style>p{}</style></td><td/>"
        "<td>y<br>z</td></tr></tbody></tbody><tbody><tr><td>second</td></tr></tbody>",
        "<THEAD><TH>A</TH></THEAD><TBODY><TR><TD>b</TD></TR></TBODY>",
        "<thead><th>a</thead><tbody><tr><td>1</td></tr></tbody>",
        "<thead><tr><th>a</tr></th><th>b</th></thead><tbody><tr><td>1</tbody><tr><td>2</td></tr>",
        "x < y <thead><th>1<2</th><th a=\"x>y\" b='q>'>q</th></thead><tbody></tbody>",
        "<!DOCTYPE html><html><body><table class=t><thead><tr><th> Model </th><th>BLEU</th></tr></thead><tbody>"
        "<tr><td>Ours\n</td><td>27.3</td></tr><tr><td>Base</td><td>25.1<sup>*</sup></td></tr></tbody></table></body></html>",
        "<thead><th>&notanentity; &#xZZ; & &#0; &#x110000;</th></thead><tbody><tr></tr></tbody>",
        "<thead></thead><tbody><tr><td>only</td><th>th in body</th></tr></tbody>",
        "<thead><th>é ü 中</th></thead><tbody><tr><td><img src=x>pic</td><td><p>para<p>two</td></tr></tbody>",
        "",
    ]
    for h in HTML:
        case({"__type__": "map_html_table_to_json", "field": "t", "to_field": "table"}, {"t": h})
    case({"__type__": "map_html_table_to_json", "field": "t", "to_field": "table"}, {"t": 5})
except ImportError:
    import sys

    print("beautifulsoup4 is not importable: map_html_table_to_json cases left out", file=sys.stderr)

for op, insts in cases:
    line = {"op": op, "inputs": insts}
    try:
        operator = Artifact.from_dict(copy.deepcopy(op))
        py_insts = copy.deepcopy(insts)
        formats = []
        for inst in py_insts:
            fmt = inst.get("recipe_metadata", {}).get("format")
            formats.append(fmt)
            if isinstance(fmt, dict):
                inst["recipe_metadata"]["format"] = Artifact.from_dict(copy.deepcopy(fmt))
        ms = MultiStream.from_iterables({"test": py_insts})
        out = list(operator(ms)["test"])
        for inst in out:
            fmt = inst.get("recipe_metadata", {}).get("format")
            if isinstance(fmt, Artifact):
                inst["recipe_metadata"]["format"] = formats[0]
        line["ok"] = json.loads(json.dumps(out))
    except Exception as e:  # noqa: BLE001
        line["error"] = type(e).__name__
    print(json.dumps(line, ensure_ascii=False))
