"""Writes table_image_cases.json: the texts Unitxt 1.26.10's SerializeTableAsImage puts in the
cells of the matplotlib table it draws, for the tables of tests/catalog/cards/tables.json and
some more.

Usage (with a venv holding unitxt==1.26.10, pandas==3.1.1, matplotlib==3.11.2, pillow==13.0.0):
  python crates/unitxt/src/images/table_image_gen.py

Unitxt's serializer runs as it is; `pandas.plotting.table` is wrapped to read the cells of the
table it returns (`get_celld()`: row 0 holds the column names, column -1 the index labels).
Each case: the table, and the column names, the index labels and the rows of cell texts, or the
error Unitxt raises.
"""
import json
import os

import matplotlib

matplotlib.use("Agg")
import pandas.plotting  # noqa: E402
from unitxt.struct_data_operators import SerializeTableAsImage  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..", "..")

EXTRA = [
    {"header": ["a", "a", "a_1"], "rows": [[1, 2, 3]]},
    {"header": ["x", "x", "x"], "rows": [["p", "q", "r"]]},
    {"header": ["i", "f"], "rows": [[1, 0.5], [2, 1e16]]},
    {"header": ["i", "j"], "rows": [[1, -7], [2, 3]]},
    {"header": ["b", "c"], "rows": [[True, False], [False, True]]},
    {"header": ["b", "i"], "rows": [[True, 1], [False, 2]]},
    {"header": ["s", "n"], "rows": [["a", None], [None, None]]},
    {"header": ["short", "pad"], "rows": [["a", 1], ["b"]]},
    {"header": ["obj", "pad"], "rows": [[[1], True], [{"k": 2}]]},
    {"header": ["multi"], "rows": [["two\nlines"], ["x"]]},
    {"header": ["long"], "rows": [[1, 2]]},
    {"header": ["e"], "rows": []},
    {"header": [], "rows": [[1]]},
]


def main():
    card = json.load(open(os.path.join(ROOT, "tests", "catalog", "cards", "tables.json")))
    tables = [row["table"] for row in card["loader"]["data"]["test"]] + EXTRA
    seen = []
    original = pandas.plotting.table

    def spy(ax, df, **kw):
        t = original(ax, df, **kw)
        seen.append(t)
        return t

    pandas.plotting.table = spy
    cases = []
    for table in tables:
        case = {"table": table}
        seen.clear()
        try:
            SerializeTableAsImage().serialize(json.loads(json.dumps(table)), {})
            cells = {k: c.get_text().get_text() for k, c in seen[0].get_celld().items()}
            nrows = max(r for r, _ in cells)
            ncols = max(c for _, c in cells) + 1
            case["names"] = [cells[(0, j)] for j in range(ncols)]
            case["labels"] = [cells[(i, -1)] for i in range(1, nrows + 1)]
            case["cells"] = [[cells[(i, j)] for j in range(ncols)] for i in range(1, nrows + 1)]
        except Exception as e:  # noqa: BLE001 - the error is the expected outcome
            case["error"] = type(e).__name__
        cases.append(case)
    with open(os.path.join(HERE, "table_image_cases.json"), "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
