"""Oracle for `unitxt_sql::text2sql`: Unitxt 1.26.10's `extract_sql_from_text` and
`sql_exact_match` on the metric oracle's pairs and on texts built around their regexes.

    .venv/bin/python crates/unitxt-sql/testdata/text2sql_gen.py
"""

import json
import os

from unitxt.text2sql_utils import extract_sql_from_text, sql_exact_match

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "..", "unitxt", "src", "metrics", "testdata", "sql_non_execution.json")) as f:
    pairs = [(i["prediction"], i["gold"]) for i in json.load(f)["instances"]]

texts = [p for p, _ in pairs] + [
    "", "   ", "select 1", "SELECT\n1", "selectx 1", "Answer:SELECT 1;", "Answer:   \n select 2",
    "x SELECT 1", "x\nSELECT 1; SELECT 2;", "```SQL\nselect 3\n```", "```sql select 4```",
    "```sql\nSELECT 5", "```sqlite\nSELECT 6\n```", "WITH a AS (SELECT 1) SELECT * FROM a;",
    "update t set a=1", "Delete\tfrom t;", "insert into t values (1)", "Note: with\tx",
    "ſelect 1", "SELECT\u00a0a", "  SELECT a ;  ", "a:\n\nSELECT b", "text\r\nSELECT c",
]
extract = [[t, extract_sql_from_text(t)] for t in dict.fromkeys(texts)]
exact = [[extract_sql_from_text(p), g, sql_exact_match(extract_sql_from_text(p), g)] for p, g in pairs]
exact += [[a, b, sql_exact_match(a, b)] for a, b in [
    ("select 1;;", "SELECT 1"), ("SELECT  1 ;", "SELECT 1"), ("a\u00a0b", "A B"), ("straße", "STRASSE"),
    (" ; ", ""), ("SELECT 1; ", "SELECT 1"), ("a\tb", "a b"), ("a\x1cb", "a b"),
]]
with open(os.path.join(here, "text2sql.json"), "w") as f:
    json.dump({"extract": extract, "exact_match": exact}, f, indent=0, ensure_ascii=False)
    f.write("\n")
print(len(extract), "extractions,", len(exact), "exact matches")
