"""Oracle for `unitxt_sql::sqlglot`: what sqlglot 30.8.0 gives on a corpus of SQL strings.

    .venv/bin/pip install sqlglot==30.8.0
    .venv/bin/python crates/unitxt-sql/testdata/sqlglot_gen.py

Writes sqlglot_tokens.json next to itself: for each string and each dialect (default and
sqlite), the tokens (type name, text, line, col, start, end, comments) or the error class.
The corpus: the (prediction, gold) pairs of the metric's oracle, the text Unitxt extracts from
each prediction, and strings built around what tokenizers get wrong (quotes and escapes,
comments, numbers, hex strings, multi-word keywords, commands, Unicode), with a fixed seed.
"""

import json
import os
import random

import sqlglot
from sqlglot.dialects.dialect import Dialect
from unitxt.text2sql_utils import extract_sql_from_text

assert sqlglot.__version__ == "30.8.0"

here = os.path.dirname(os.path.abspath(__file__))
metric_oracle = os.path.join(
    here, "..", "..", "unitxt", "src", "metrics", "testdata", "sql_non_execution.json"
)


def corpus():
    out = []
    with open(metric_oracle) as f:
        for inst in json.load(f)["instances"]:
            out += [inst["gold"], inst["prediction"], extract_sql_from_text(inst["prediction"])]
    out += [
        "", " ", "\t\n", ";", "a;b", "'", "''", "''''", "'a''b'", "'it''s'", "'a\\'b'", "'abc",
        '"x"', '"x""y"', '"abc', "`x`", "`a``b`", "[x]", "[a]]b]", "[abc", "x'1F'", "X'zz'",
        "x''", "0x1F", "0X1f", "0xZZ", "0x", "0b101", "1e5", "1E+5", "1e-", "1.5e3x", "1.2.3",
        ".5", "5.", "1a", "12abc def", "1_000", "1__0", "a.b.c", "t.*", "@x", "@1.5", "?", "$1",
        "#x", "a::int", "a || b", "a <=> b", "a == b", "a != b <> c", "a->>b", "x ~~ y",
        "-- only a comment", "/* only */", "/* unterminated", "/* a /* nested */ b */ c",
        "SELECT 1 -- trailing\n", "SELECT /* lead */ 1", "SELECT 1 /* same line */\n, 2",
        "SELECT 1\n/* next line */ , 2", "SELECT 1; -- after semicolon", "{# jinja #} x",
        "SELECT a FROM t GROUP   BY a", "SELECT a FROM t ORDER\nBY a", "GROUP BYx", "ORDER BY",
        "group by", "SELECT a FROM t GROUP\tBY\ta", "CHARACTER  SET", "DOUBLE PRECISION",
        "SHOW tables", "SHOW", "EXPLAIN SELECT 1", "x; SHOW a; b", "BEGIN; EXECUTE foo; bar",
        "REPLACE INTO t VALUES (1)", "SELECT replace(a, 'b', 'c')", "CALL proc(1)",
        "SELECT 'naïve', \"日本\", ß FROM straße", "SELECT\u00a0a\u2003FROM\u3000t", "a\x1cb",
        "SELECT 'multi\nline' , b\r\n, c", "SELECT a\rFROM b", "\r\n\r\nSELECT 1",
        "N'national'", "n'x'", "SELECT e'x'", "SELECT 1e", "SELECT 1 .5", "SELECT 1..2",
        "SELECT a/*c*/b", "SELECT a--c\nb", "SELECT '%Y', strftime('%Y-%m', d)",
        "SELECT * FROM t WHERE a = 'O''Brien'", "SELECT * FROM t WHERE a = 'O'Brien'",
        "SELECT `First Name` FROM `Student Info`", "SELECT [First Name] FROM [Student Info]",
        "x'", "x'1", "x'1g'", "SELECT 0x1F, x'AB', X'ab_cd'", "SELECT 0x_1f, 0xg",
    ]
    rng = random.Random(20261128)
    pieces = [
        "SELECT", "select", "FROM", "WHERE", "GROUP BY", "group  by", "ORDER BY", "HAVING",
        "LIMIT", "a", "b.c", "T1.name", "count(*)", "'str'", "'it''s'", '"q"', "`b`", "[s]",
        "1", "2.5", "1e3", "0x1A", "x'0F'", "(", ")", ",", ";", "=", "!=", "<>", ">=", "<=",
        "||", "::", "-- c\n", "/* c */", "\n", "\t", "  ", "AND", "OR", "NOT", "IN", "LIKE",
        "BETWEEN", "IS NULL", "CASE WHEN", "THEN", "ELSE", "END", "DISTINCT", "AS", "JOIN",
        "ON", "UNION ALL", "INTERSECT", "EXCEPT", "WITH", "é", "$", "?", "@", "#", "\\", "%",
        "*", "+", "-", "/", ".", ":", "{", "}", "~", "^", "&", "|", "SHOW", "REPLACE",
    ]
    for _ in range(600):
        n = rng.randint(1, 14)
        sep = rng.choice([" ", "", " ", "\n"])
        out.append(sep.join(rng.choice(pieces) for _ in range(n)))
    seen = set()
    uniq = []
    for s in out:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq


def tokens(sql, dialect):
    try:
        toks = Dialect.get_or_raise(dialect).tokenize(sql)
    except Exception as e:
        return {"error": type(e).__name__}
    return [
        [t.token_type.name, t.text, t.line, t.col, t.start, t.end, t.comments] for t in toks
    ]


def main():
    cases = []
    for sql in corpus():
        cases.append(
            {"sql": sql, "default": tokens(sql, None), "sqlite": tokens(sql, "sqlite")}
        )
    with open(os.path.join(here, "sqlglot_tokens.json"), "w") as f:
        json.dump({"sqlglot": sqlglot.__version__, "cases": cases}, f, ensure_ascii=False)
        f.write("\n")
    print(len(cases), "strings")


if __name__ == "__main__":
    main()
