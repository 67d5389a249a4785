"""Oracle for `unitxt_sql::sqlglot::optimizer`: sqlglot 30.8.0's `optimize` on the trees Unitxt's
`sqlglot_optimized_equivalence` gives it.

    .venv/bin/python crates/unitxt-sql/testdata/sqlglot_optimize_gen.py

Unitxt calls `optimize(parse_one(sql.lower()).sql(pretty=True))`: optimize parses that text
again. For each string of the parser corpus (sqlglot_parse_gen.py) that parses, this writes to
sqlglot_optimize.json:
- `input`: the tree optimize starts from (the pretty text parsed again);
- `steps`: the SQL after each optimizer rule that ran, in order (for step-by-step comparison);
- `output`: the optimized tree, or {"error": class name, "rule": the rule that raised}.
"""

import inspect
import json
import os

import sqlglot
from sqlglot import exp, parse_one
from sqlglot.optimizer.optimizer import RULES
from sqlglot.schema import ensure_schema

from sqlglot_parse_gen import corpus, dump

assert sqlglot.__version__ == "30.8.0"
here = os.path.dirname(os.path.abspath(__file__))


def run_rules(tree):
    """`optimize` step by step, with the keyword arguments `optimize` passes each rule."""
    kwargs = {
        "db": None,
        "catalog": None,
        "schema": ensure_schema(None, dialect=None),
        "dialect": None,
        "sql": None,
        "isolate_tables": True,
        "quote_identifiers": False,
    }
    steps = []
    current = tree.copy()
    for rule in RULES:
        params = inspect.getfullargspec(rule).args
        try:
            current = rule(current, **{p: kwargs[p] for p in params if p in kwargs})
        except Exception as e:
            return {"error": type(e).__name__, "rule": rule.__name__}, steps
        steps.append([rule.__name__, current.sql()])
    return dump(current), steps


def main():
    cases = []
    for sql in corpus():
        try:
            text = parse_one(sql.lower()).sql(pretty=True)
            tree = parse_one(text)
        except Exception:
            continue
        case = {"sql": sql, "input": dump(tree)}
        case["output"], case["steps"] = run_rules(tree)
        cases.append(case)
    with open(os.path.join(here, "sqlglot_optimize.json"), "w") as f:
        json.dump({"sqlglot": sqlglot.__version__, "cases": cases}, f, ensure_ascii=False)
        f.write("\n")
    print(len(cases), "trees;", sum("error" in c["output"] for c in cases), "raise")


if __name__ == "__main__":
    main()
