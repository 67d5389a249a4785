"""Oracle for `unitxt_sql::sqlglot::diff`: sqlglot 30.8.0's `diff` (Change Distiller) on pairs
of trees, as Unitxt's `sqlglot_optimized_equivalence` calls it.

    .venv/bin/python crates/unitxt-sql/testdata/sqlglot_diff_gen.py

Writes sqlglot_diff.json next to itself: pairs of trees (dumped as sqlglot_parse_gen.py dumps
them, argument order kept) and the number of edits of each kind `diff(source, target)` returns.
The pairs: for each (prediction, gold) pair of the metric oracle that sqlglot optimizes, the
optimized trees as Unitxt builds them (`optimize(parse_one(sql.lower()).sql(pretty=True))`,
gold as the source); and pairs of parsed queries from the parser corpus, with a fixed seed.
"""

import collections
import json
import os
import random

import sqlglot
from sqlglot import diff, parse_one
from sqlglot.optimizer import optimize
from unitxt.text2sql_utils import extract_sql_from_text

from sqlglot_parse_gen import corpus, dump

assert sqlglot.__version__ == "30.8.0"
here = os.path.dirname(os.path.abspath(__file__))


def opt(sql):
    try:
        return optimize(parse_one(sql.lower()).sql(pretty=True))
    except Exception:
        return None


def edits(a, b):
    return dict(collections.Counter(type(e).__name__ for e in diff(a, b)))


def main():
    pairs = []
    with open(os.path.join(here, "..", "..", "unitxt", "src", "metrics", "testdata", "sql_non_execution.json")) as f:
        for inst in json.load(f)["instances"]:
            g, p = opt(inst["gold"]), opt(extract_sql_from_text(inst["prediction"]))
            if g is not None and p is not None:
                pairs.append((g, p))
    parsed = []
    for s in corpus():
        try:
            parsed.append(parse_one(s))
        except Exception:
            pass
    rng = random.Random(7)
    for _ in range(400):
        a, b = rng.choice(parsed), rng.choice(parsed)
        pairs.append((a, b))
    for a in parsed[:300]:
        pairs.append((a, a.copy()))
    seen = set()
    cases = []
    for a, b in pairs:
        key = (a.sql(), b.sql())
        if key in seen:
            continue
        seen.add(key)
        cases.append({"source": dump(a), "target": dump(b), "edits": edits(a, b)})
    with open(os.path.join(here, "sqlglot_diff.json"), "w") as f:
        json.dump({"sqlglot": sqlglot.__version__, "cases": cases}, f, ensure_ascii=False)
        f.write("\n")
    print(len(cases), "pairs")


if __name__ == "__main__":
    main()
