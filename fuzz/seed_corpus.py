"""Writes the seed corpus of each fuzz target from Unitxt's catalog and this repository's
recipe lists: fuzz/corpus/<target>/<n> (one input per file).

Usage: python fuzz/seed_corpus.py CATALOG_DIR

- recipe: the recipes of tests/*recipes.tsv, and catalog names with [overrides] taken from
  the catalog's own references (`templates.x[postprocessors=[...]]`);
- expression: every `expression`/`condition` string of the catalog's artifacts
  (execute_expression, filter_by_expression, apply, ...), the sandbox's CPython-checked cases
  (crates/unitxt/src/expr/testdata/python_cases.json) and the hostile cases of issue 42;
- catalog_json: catalog artifact files, a few of each `__type__`;
- format_spec: templates' format strings, each with a spec seen in them (`{x:.2f}`);
- sql: the (prediction, gold query) pairs of the `sql_non_execution_accuracy` oracle
  (crates/unitxt/src/metrics/testdata/sql_non_execution.json), joined by a NUL byte.
"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


# Expressions that once hung, panicked or aborted (issue 42), and relatives.
HOSTILE = [
    "len([] * 10**18)", "len(() * 10**18)", "list(itertools.product(repeat=10**18))",
    "re.search('a.*?(?=b)', 'a'*10**6)", "re.findall('(?=(a+))', 'a'*10**5)",
    "(-2**63) in range(0, -5, -1)", "s[1::2**63-1]", "sorted([float('nan'), 1.0, 0.5])",
    "format(1.5, '.100000000000f')", "'%.100000000000f' % 1.5", "f'{x:.100000000000}'",
    "json.dumps(['a'*10**6]*10**6)", "['a'*10**6]*2000", "range(10**12)", "str([[1]*1000]*10**6)",
    "re.sub('', 'x'*10**6, 'a'*10**5)", "list(itertools.product([], repeat=10**10))",
    "('{:'*3000 + '}'*3000).format(1)", "len(range(-2**63, 2**63-1))", "list(enumerate(l, 2**63-1))",
]


def write(target, items):
    out = os.path.join(HERE, "corpus", target)
    os.makedirs(out, exist_ok=True)
    seen = set()
    for item in items:
        data = item.encode() if isinstance(item, str) else item
        if data in seen or not data:
            continue
        seen.add(data)
        with open(os.path.join(out, f"seed-{len(seen):05d}"), "wb") as f:
            f.write(data)
    print(f"{target}: {len(seen)} seeds")


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def main():
    catalog = sys.argv[1]
    files = sorted(glob.glob(os.path.join(catalog, "**", "*.json"), recursive=True))
    recipes, exprs, jsons, formats = [], [], [], []
    per_type = {}
    for tsv in glob.glob(os.path.join(REPO, "tests", "*recipes.tsv")):
        for line in open(tsv, encoding="utf-8"):
            if "\t" in line and not line.startswith("#"):
                recipes.append(line.rstrip("\n").split("\t", 1)[1])
    for path in files:
        raw = open(path, "rb").read()
        try:
            doc = json.loads(raw)
        except ValueError:
            jsons.append(raw)
            continue
        t = doc.get("__type__") if isinstance(doc, dict) else None
        if per_type.setdefault(t, 0) < 3:
            per_type[t] += 1
            jsons.append(raw)
        stack = [doc]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                for k, x in v.items():
                    if k in ("expression", "condition") and isinstance(x, str):
                        exprs.append(x)
                    if k.endswith("_format") and isinstance(x, str):
                        formats.append(x)
                    stack.append(x)
            elif isinstance(v, list):
                stack.extend(v)
        for s in strings(doc):
            if "[" in s and re.match(r"^[a-z_]+\.[\w.]+\[", s):
                recipes.append(s)
    cases = json.load(open(os.path.join(REPO, "crates/unitxt/src/expr/testdata/python_cases.json"), encoding="utf-8"))
    for group in ("ok", "err"):
        g = cases[group]
        exprs.extend(g.keys() if isinstance(g, dict) else [c[0] if isinstance(c, list) else c for c in g])
    exprs.extend(HOSTILE)
    specs = sorted({m for f in formats for m in re.findall(r"\{[^{}]*:([^{}]*)\}", f)}) or [">10", ".2f"]
    write("recipe", recipes)
    write("expression", exprs)
    write("catalog_json", jsons)
    write("format_spec", [f + "\0" + specs[i % len(specs)] for i, f in enumerate(formats)])
    sql = json.load(open(os.path.join(REPO, "crates/unitxt/src/metrics/testdata/sql_non_execution.json"), encoding="utf-8"))
    write("sql", sorted({i["prediction"] + "\0" + i["gold"] for i in sql["instances"]}))


if __name__ == "__main__":
    main()
