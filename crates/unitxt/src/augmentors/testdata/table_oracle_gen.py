# Generates table_oracle_cases.json: what Unitxt 1.26.10's table augmentors make of task inputs.
# Run from the repository root: .venv/bin/python crates/unitxt/src/augmentors/testdata/table_oracle_gen.py
import copy
import json
import os

from unitxt.artifact import fetch_artifact

TABLES = [
    {"header": ["name", "age", "city"], "rows": [["Alex", 26, "Rome"], ["Raj", 34, "Pune"], ["Donald", 39, "NYC"], ["Mia", 21, "Oslo"]]},
    {"header": ["a", "b"], "rows": [[1, 2]], "caption": "kept"},
    {"header": ["x"], "rows": []},
    {"header": ["k", "v"], "rows": [["p", 1.5], ["q", None], ["r", True], ["s", "é"], ["t", [1]]]},
]
NOT_TABLES = ["plain text", {"header": "no list", "rows": []}, {"rows": [[1]]}, {"header": [1, 2], "rows": [[1, 2]]}]
AUGMENTORS = [
    "augmentors.table.transpose",
    "augmentors.table.shuffle_rows",
    "augmentors.table.shuffle_cols",
    "augmentors.table.mask_cols_names",
    "augmentors.table.duplicate_rows",
    "augmentors.table.duplicate_columns",
    "augmentors.table.duplicate_rows[row_indices=[0,2],times=3]",
    "augmentors.table.duplicate_columns[column_indices=[1],times=2]",
    # Deterministic only with its default `times=0` (it draws from the unseeded `random` otherwise).
    "augmentors.table.insert_empty_rows",
]

cases = []
for name in AUGMENTORS:
    for value in TABLES + NOT_TABLES:
        aug, _ = fetch_artifact(name)
        aug.set_fields(["table"])
        inst = {"input_fields": {"table": copy.deepcopy(value), "other": "x"}}
        try:
            out = aug.process_instance(copy.deepcopy(inst))["input_fields"]
            cases.append({"augmentor": name, "input": inst["input_fields"], "output": out})
        except Exception as e:  # noqa: BLE001
            cases.append({"augmentor": name, "input": inst["input_fields"], "error": type(e).__name__})
print(json.dumps(cases, ensure_ascii=False, indent=1))
