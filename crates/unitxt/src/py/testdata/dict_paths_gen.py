# Writes dict_paths.json: what Unitxt 1.26.10's unitxt.dict_utils functions (dict_get,
# dict_set, dict_delete) do on constructed instances, for the test in ../dict_path.rs.
# Run from the repository root:
#   .venv/bin/python crates/unitxt/src/py/testdata/dict_paths_gen.py > crates/unitxt/src/py/testdata/dict_paths.json
#
# The file holds {"bases": [instance, ...], "cases": [case, ...]}. A case names its base by
# position, the function ("get", "set" or "delete") and its arguments, and gives either "ok"
# (for get: the value read; for set and delete: the instance afterwards) or "error" (the
# Python exception class; the instance afterwards is not compared).
import copy
import json

from unitxt.dict_utils import dict_delete, dict_get, dict_set

BASES = [
    {
        "a": {"b": [10, 20, 30], "c": "xyz"},
        "spans": [{"start": 1, "end": 3, "label": "P"}, {"start": 5, "label": "L"}, {"end": 9}],
        "e": [],
        "ed": {},
        "n": None,
        "s": "héllo",
        "m": {"k2": {"v": 1}, "k1": {"v": 2}, "k3": 5},
        "0": {"x": 1},
        "ll": [[1, 2], [3], []],
        "x/y": 7,
        " sp ": 1,
        "*": "star",
    },
    {"l": [1]},
    {"l": [1, 2, 3]},
    {"d": {"b": 1, "a": 2}},
    {"d": {}},
    {},
    {"a": [1]},
    {"s": [{"x": {}}, {"x": {"y": 1}}, {"z": 2}]},
    {"s": [{"x": 1}], "t": {"u": [{"v": {"w": 1}}]}},
]

MAIN_PATHS = [
    "a", "a/b", "a/b/0", "a/b/-1", "a/b/3", "a/b/-4", "a/b/01", "a/b/-0", "a/c/0", "a/c/-1",
    "a/c/5", "a/c/0/0", "a/c/x", "a/c/*", "spans/*/start", "spans/*/end", "spans/*/label",
    "spans/*/zzz", "spans/*", "spans/", "spans//0", "spans///0", "spans/0/start",
    "spans/*/start/*", "spans/-1/end", "e/*", "e/", "e/*/x", "e/0", "ed/*", "ed/*/x", "ed/x",
    "m/*/v", "m/*", "m/*/v/*", "*/v", "*/x", "*", "0", "0/x", "ll/*/*", "ll/*/0", "ll/*/-1",
    "ll/*", "ll/1/0", "n/x", "n/0", "n/*", "s/0", "s/-1", "s/9", "s/*", "s/0/0", "x/y",
    " sp ", "sp", "/a/b", " a / b / 1 ", "a/b/", "", " ", "a/$", "a/b c", "a/b.c-d", "q/r/s",
    "q/0/s", "q/*/s", "-1/x", "0/0", "99999999999999999999999/x", "a/b/99999999999999999999",
    "a/:/b", "a/ /b",
]
EXTRA_PATHS = ["l/*", "l/*/x", "l/0", "l/3", "d/*", "d/*/k", "d/a", "*", "*/x", "a/5/-3",
               "a/-3", "a/2/*", "s/*/x/y", "s/*/x", "s/*/x/*", "t/u/*/v/w", "t/*/*/v", "t/*/*/*/w"]

SET_VARIANTS = [(0, False), ([7, 8], False), ([], False), ([7, 8, 9], True), ([7, 8], True), ([], True)]
# The variants also run with not_exist_ok=False (the others only with Unitxt's default, True).
NEK_BOTH = [(0, False), ([7, 8, 9], True)]


def run(fn):
    try:
        return {"ok": fn()}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__}


cases = []


def add(base, paths):
    for path in paths:
        for nek in (False, True):
            d = copy.deepcopy(BASES[base])
            case = {"base": base, "fn": "get", "path": path, "not_exist_ok": nek}
            case.update(run(lambda d=d, path=path, nek=nek: dict_get(d, path, not_exist_ok=nek, default="DEF")))
            cases.append(case)
        for nek in (False, True):
            for rea in (False, True):
                d = copy.deepcopy(BASES[base])
                case = {"base": base, "fn": "delete", "path": path, "not_exist_ok": nek, "remove_empty_ancestors": rea}

                def go(d=d, path=path, nek=nek, rea=rea):
                    dict_delete(d, path, not_exist_ok=nek, remove_empty_ancestors=rea)
                    return d

                case.update(run(go))
                cases.append(case)
        for value, multiple in SET_VARIANTS:
            for nek in (True, False) if (value, multiple) in NEK_BOTH else (True,):
                d = copy.deepcopy(BASES[base])
                case = {"base": base, "fn": "set", "path": path, "value": value, "not_exist_ok": nek, "set_multiple": multiple}

                def go(d=d, path=path, value=value, nek=nek, multiple=multiple):
                    dict_set(d, path, copy.deepcopy(value), not_exist_ok=nek, set_multiple=multiple)
                    return d

                case.update(run(go))
                cases.append(case)


add(0, MAIN_PATHS)
for base in range(1, len(BASES)):
    add(base, EXTRA_PATHS)

print(json.dumps({"bases": BASES, "cases": cases}, ensure_ascii=False, separators=(",", ":")).replace('},{"base"', '},\n{"base"'))
