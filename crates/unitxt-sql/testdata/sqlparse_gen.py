"""Oracle for `unitxt_sql::sqlparse`: Unitxt 1.26.10's `is_sqlparse_parsable`,
`extract_select_info` and `sqlparse_queries_equivalent` (sqlparse 0.5.5) on the metric oracle's
queries and on several hundred strings built from them and from hand-written SQL.

    .venv/bin/python crates/unitxt-sql/testdata/sqlparse_gen.py
    .venv/bin/python crates/unitxt-sql/testdata/sqlparse_gen.py --dump 1 1000 crates/unitxt-sql/testdata/sqlparse_dump.jsonl

The `--dump SEED COUNT OUT` form instead writes COUNT random strings (fragments of SQL, mutated
queries and random characters) with sqlparse's token stream and each statement's top-level
tokens. The Rust test `dump_matches_python` reads `sqlparse_dump.jsonl`, written with seed 1
and 1,000 strings as in the command above.

Output `sqlparse.json`:
  strings:    [sql, is_sqlparse_parsable(sql), info]; info is null (extract_select_info gave
              None), "error" (it raised), "-" (not recorded: very long input), or
              [sorted columns, from, where, group, having, order]
  equivalent: [sql1, sql2, sqlparse_queries_equivalent(sql1, sql2)]
  metric:     [extract_sql_from_text(prediction), gold, sqlparse_validity, sqlparse_equivalence]
              as `SQLNonExecutionAccuracy.compute` scores them (checked here against the
              scores stored in the metric oracle)
"""

import json
import os
import random
import sys

import sqlparse
from sqlparse import lexer
from sqlparse import sql as sqlparse_sql

from unitxt.text2sql_utils import (
    extract_select_info,
    extract_sql_from_text,
    is_sqlparse_parsable,
    sqlparse_queries_equivalent,
)

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "..", "unitxt", "src", "metrics", "testdata", "sql_non_execution.json")) as f:
    instances = json.load(f)["instances"]

rng = random.Random(20260510)

golds = list(dict.fromkeys(i["gold"] for i in instances))
preds = list(dict.fromkeys(extract_sql_from_text(i["prediction"]) for i in instances))

metric = []
for inst in instances:
    pred = extract_sql_from_text(inst["prediction"])
    gold = inst["gold"]
    validity = int(is_sqlparse_parsable(pred))
    equivalence = int(sqlparse_queries_equivalent(pred, gold) if validity else 0)
    assert validity == inst["scores"]["sqlparse_validity"], (pred, gold)
    assert equivalence == inst["scores"]["sqlparse_equivalence"], (pred, gold)
    metric.append([pred, gold, validity, equivalence])
metric = [list(m) for m in dict.fromkeys(tuple(m) for m in metric)]

handwritten = [
    "", " ", "\n\t ", "\u00a0", "\u3000", "\x1c", ";", " ; ", ";;", "SELECT", "select", "SELECT 1", "SELECT 1;",
    "SELECT 1; ", "SELECT 1;\n", "SELECT 1;\r\n", "SELECT 1; -- done", "SELECT 1; -- done\n", "SELECT 1; /* c */",
    "SELECT 1; # c", "SELECT 1;;", "SELECT 1; SELECT 2", "SELECT 1;SELECT 2;", "SELECT 1 -- c", "-- c\nSELECT 1",
    "/* c */ SELECT 1", "SELECT /* c */ a FROM t", "SELECT a -- c\nFROM t", "SELECT a FROM t -- c",
    "SELECT a FROM t /* x */ WHERE b = 1", "SELECT a, -- c\n b FROM t", "#c\nSELECT 1", "# c\nSELECT 1",
    "SELECT a FROM t WHERE a = '", "SELECT a FROM t WHERE a = \"", "SELECT 'unterminated", "SELECT \"x",
    "SELECT `x", "SELECT [x", "SELECT x]", "SELECT (a", "SELECT a)", "SELECT a FROM t)", "SELECT ((a) FROM t",
    "SELECT a FROM (t", "SELECT ?", "SELECT $", "SELECT \\", "SELECT #", "SELECT @", "SELECT !", "SELECT {a}",
    "SELECT a FROM t WHERE b = ?", "SELECT a FROM t WHERE b = $1", "SELECT a FROM t WHERE b = :name",
    "SELECT a FROM t WHERE b = %s", "SELECT a FROM t WHERE b = %(x)s", "SELECT \\x FROM t", "SELECT @var",
    "SELECT @@version", "SELECT #tmp FROM t", "SELECT ##tmp FROM t", "SELECT a FROM t WHERE b = $$x$$",
    "SELECT $tag$ a ; b $tag$", "SELECT $a$x$A$", "SELECT $a$ unterminated", "SELECT x$y FROM t",
    "SELECT 'it''s'", "SELECT 'a\\'b'", "SELECT 'a\\'", "SELECT 'a\\' FROM t", "SELECT \"a\"\"b\" FROM t",
    "SELECT \"a\\\"b\" FROM t", "SELECT `a``b` FROM t", "SELECT `a``", "SELECT ´a´ FROM t", "SELECT [a b] FROM t",
    "SELECT a[1] FROM t", "SELECT a[1][2] FROM t", "SELECT (a)[1] FROM t", "SELECT \"x\".\"y\" FROM \"t\"",
    "SELECT t.* FROM t", "SELECT t . a FROM t", "SELECT t.select FROM t", "SELECT a.b.c FROM d.e",
    "SELECT a->'x', a->>'y' FROM t", "SELECT a::int FROM t", "SELECT CAST(a AS int) FROM t",
    "SELECT a::int AS b FROM t", "SELECT DATE '2020-01-01'", "SELECT a FROM t WHERE d > DATE '2020-01-01'",
    "SELECT INTERVAL '2' DAY", "SELECT TIMESTAMP '2020-01-01 00:00' FROM t", "SELECT a AT TIME ZONE 'UTC' FROM t",
    "SELECT a := 1", "SELECT 1.5, .5, 5., -1, -1.5e3, 1e10, 0x1F, 1.5e, 12abc, 1_000 FROM t",
    "SELECT 3.14f FROM t", "SELECT 1.e5 FROM t", "SELECT a-1, a - 1, a-b FROM t", "SELECT a*b, a * b, * FROM t",
    "SELECT *, a FROM t", "SELECT a, * FROM t", "SELECT count(*), count( * ) FROM t", "SELECT COUNT (*) FROM t",
    "SELECT a + b * c / d % e FROM t", "SELECT a || b FROM t", "SELECT -a FROM t", "SELECT a FROM t WHERE NOT a",
    "SELECT a FROM t WHERE a IS NOT NULL", "SELECT a FROM t WHERE a NOT LIKE 'x%'", "SELECT a FROM t WHERE a ILIKE 'x'",
    "SELECT a FROM t WHERE a REGEXP 'x'", "SELECT a FROM t WHERE a NOT REGEXP BINARY 'x'", "SELECT a FROM t WHERE a <> b",
    "SELECT a FROM t WHERE a != b", "SELECT a FROM t WHERE a <=> b", "SELECT a FROM t WHERE a == b",
    "SELECT a FROM t WHERE a = b = c", "SELECT a = b FROM t", "SELECT a = b AS c FROM t", "SELECT NULL AS x FROM t",
    "SELECT NULL x FROM t", "SELECT a AS SELECT FROM t", "SELECT a AS FROM t", "SELECT a AS", "SELECT a b c FROM t",
    "SELECT a AS b, c d, e FROM t", "SELECT a as b FROM t", "SELECT a As b FROM t", "SELECT 1 AS one, 2 two",
    "SELECT (a) AS b FROM t", "SELECT (a) b FROM t", "SELECT f(a) b FROM t", "SELECT 1 b FROM t",
    "SELECT a AS \"b c\" FROM t", "SELECT a \"b c\" FROM t", "SELECT a AS `b` FROM t", "SELECT a AS [b] FROM t",
    "SELECT DISTINCT a FROM t", "SELECT DISTINCT a, b FROM t", "SELECT ALL a FROM t", "SELECT DISTINCT(a) FROM t",
    "SELECT TOP 5 a FROM t", "SELECT a FROM t LIMIT 5", "SELECT a FROM t LIMIT 5 OFFSET 10", "SELECT a FROM t LIMIT 10, 5",
    "SELECT a FROM t OFFSET 5", "SELECT a FROM t FETCH FIRST 5 ROWS ONLY",
    "SELECT CASE WHEN a THEN b END FROM t", "SELECT CASE a WHEN 1 THEN 'x' ELSE 'y' END AS c FROM t",
    "SELECT CASE WHEN a THEN CASE WHEN b THEN 1 END END FROM t", "SELECT CASE WHEN a THEN b FROM t",
    "SELECT a FROM t WHERE CASE WHEN a THEN 1 ELSE 0 END = 1", "SELECT END FROM t",
    "SELECT a FROM t JOIN u ON t.id = u.id", "SELECT a FROM t LEFT JOIN u ON t.id = u.id",
    "SELECT a FROM t LEFT OUTER JOIN u ON t.id = u.id", "SELECT a FROM t RIGHT  JOIN u USING (id)",
    "SELECT a FROM t FULL OUTER JOIN u ON 1=1", "SELECT a FROM t CROSS JOIN u", "SELECT a FROM t NATURAL JOIN u",
    "SELECT a FROM t INNER JOIN u ON t.a = u.a INNER JOIN v ON u.b = v.b", "SELECT a FROM t STRAIGHT_JOIN u",
    "SELECT a FROM t, u WHERE t.id = u.id", "SELECT a FROM t AS x, u AS y", "SELECT a FROM t x JOIN u y ON x.i = y.i",
    "SELECT a FROM t GROUP BY a", "SELECT a FROM t GROUP  BY a", "SELECT a FROM t GROUP\nBY a", "SELECT a FROM t GROUP a",
    "SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a DESC, b", "SELECT a FROM t ORDER BY a DESC NULLS LAST",
    "SELECT a FROM t ORDER BY 1", "SELECT a FROM t ORDER BY 1 DESC", "SELECT a FROM t ORDER a", "SELECT a FROM t ORDER",
    "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 1 ORDER BY a",
    "SELECT a FROM t HAVING count(*) > 1 GROUP BY a", "SELECT a FROM t ORDER BY a GROUP BY a",
    "SELECT a FROM t WHERE b = 1 GROUP BY a HAVING count(*) > 1 ORDER BY a LIMIT 1",
    "SELECT a FROM t WHERE b = 1 ORDER BY a", "SELECT a FROM t WHERE b = 1 LIMIT 1", "SELECT a FROM t WHERE b = 1 HAVING c",
    "SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE d = 1) AND e = 2",
    "SELECT a FROM t WHERE b = 1 UNION SELECT a FROM u WHERE c = 2", "SELECT a FROM t UNION ALL SELECT b FROM u",
    "SELECT a FROM t UNION  ALL SELECT b FROM u", "SELECT a FROM t INTERSECT SELECT b FROM u",
    "SELECT a FROM t EXCEPT SELECT b FROM u", "SELECT a FROM t MINUS SELECT b FROM u",
    "(SELECT a FROM t) UNION (SELECT b FROM u)", "SELECT * FROM (SELECT a FROM t) sub", "SELECT * FROM (SELECT a FROM t) AS sub",
    "SELECT (SELECT max(a) FROM t) AS m", "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
    "SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t",
    "SELECT a, rank() OVER (ORDER BY b DESC) AS r FROM t", "SELECT sum(a) OVER w FROM t WINDOW w AS (PARTITION BY b)",
    "SELECT sum(a) OVER (PARTITION BY b) total FROM t", "SELECT avg(a) FILTER (WHERE b > 1) FROM t",
    "WITH x AS (SELECT 1) SELECT * FROM x", "WITH x AS (SELECT 1), y AS (SELECT 2) SELECT * FROM x, y",
    "WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x WHERE n < 5) SELECT n FROM x",
    "with x as (select a from t) select a from x where a > 1", "INSERT INTO t VALUES (1, 2)",
    "INSERT INTO t (a, b) VALUES (1, 2), (3, 4)", "UPDATE t SET a = 1 WHERE b = 2", "DELETE FROM t WHERE a = 1",
    "CREATE TABLE t (a INT, b TEXT)", "CREATE TABLE t AS SELECT a FROM u", "DROP TABLE t", "EXPLAIN SELECT a FROM t",
    "BEGIN; SELECT 1; END;", "BEGIN TRANSACTION; SELECT 1; COMMIT;", "SELECT 1 GO SELECT 2", "SELECT 1\nGO 2\nSELECT 2",
    "CREATE FUNCTION f() BEGIN SELECT 1; END; SELECT 2", "DECLARE x INT; SELECT x", "IF x BEGIN SELECT 1 END",
    "SELECT a FROM t WHERE a BETWEEN 1 AND 2", "SELECT a FROM t WHERE a IN (1, 2, 3)", "SELECT a FROM t WHERE (a = 1 OR b = 2)",
    "SELECT strftime('%Y', d) FROM t", "SELECT a FROM t WHERE a LIKE '%x%' ESCAPE '\\'", "SELECT 'a' 'b' FROM t",
    "SELECT CURRENT_DATE - 1 FROM t", "SELECT CURRENT_DATE FROM t", "SELECT a FROM t WHERE d < CURRENT_TIMESTAMP",
    "SELECT a FROM t FOR UPDATE", "SELECT a INTO b FROM t", "SELECT a FROM t WHERE b = 1 INTO c",
    "SELECT a FROM t WHERE b = 1 RETURNING a", "SELECT a FROM lateral_t LATERAL VIEW EXPLODE(b) x AS y",
    "SELECT a FROM t WHERE IF NOT EXISTS", "SELECT a FROM t WHERE a IS NOT  NULL", "CREATE OR REPLACE VIEW v AS SELECT 1",
    "SELECT DOUBLE PRECISION FROM t", "SELECT a FROM t PRIMARY KEY", "SELECT é, ß, ñ, 中文, δ FROM τ",
    "SELECT straße FROM t", "SELECT STRASSE FROM t", "SELECT ﬁeld FROM t", "SELECT ſelect FROM t", "ſELECT a FROM t",
    "SELECT a FROM t WHERE ın = 1", "SELECT İd FROM t", "SELECT ǅa FROM t", "SELECT a AS ǆ FROM t",
    "SELECT Kelvin FROM t", "SELECT a\u00a0FROM t", "SELECT a\u2003AS\u2003b FROM t", "SELECT a AS\u00a0b FROM t",
    "SELECT a\u3000b FROM t", "SELECT a\x1cb FROM t", "SELECT a\x1fAS b FROM t", "SELECT a \u0085 b FROM t",
    "SELECT 😀 FROM t", "SELECT a FROM t WHERE b = '😀'", "SELECT € FROM t", "SELECT a→b FROM t", "SELECT ٣ FROM t",
    "SELECT a٣ FROM t", "SELECT ½ FROM t", "SELECT a½ FROM t", "SELECT ² FROM t", "SELECT x² FROM t",
    "SELECT \u0301a FROM t", "SELECT a\u0301 FROM t", "SELECT × FROM t", "SELECT ×a(1) FROM t", "SELECT ÷ FROM t",
    "SELECT a FROM t WHERE b = 'x' -- '\n AND c = 1", "SELECT a /* unterminated", "SELECT a /*+ hint */ FROM t",
    "SELECT --+ hint\n a FROM t", "SELECT a FROM t\r\nWHERE b = 1", "SELECT a FROM t\rWHERE b = 1",
    "SELECT\ta\tFROM\tt", "  SELECT a FROM t  ", "\nSELECT a FROM t\n", "SELECT a FROM t WHERE b = 1;  \n\t",
    "Select A From T Where B = 1", "SELECT A FROM T WHERE B=1", "SELECT a,b FROM t", "SELECT a ,b FROM t",
    "SELECT a , b FROM t", "SELECT a,\nb FROM t", "SELECT a,, b FROM t", "SELECT a, FROM t", "SELECT , a FROM t",
    "SELECT f(a, b), g(c) FROM t", "SELECT f (a) FROM t", "SELECT max (a) FROM t", "SELECT max(a) FROM t",
    "SELECT MAX(a) FROM t", "SELECT my_func(a) FROM t", "SELECT schema.func(a) FROM t", "SELECT a.b(c) FROM t",
    "SELECT 1 FROM t WHERE a = 1 AND b = 'x'", "SELECT a FROM t WHERE a = (SELECT b FROM u)",
    "select a from t where b = 1 group by a", "SELECT a FROM t t2 WHERE t2.a = 1", "SELECT a.* , b.c FROM a, b",
    "SELECT a FROM t; SELECT b FROM u;", "SELECT a FROM t;\n\nSELECT b FROM u", "SELECT a FROM t; garbage",
    "garbage", "not sql at all", "SELECT a FROM t WHERE", "WHERE a = 1", "FROM t SELECT a", "SELECT SELECT",
    "SELECT a FROM FROM t", "SELECT a FROM t WHERE WHERE", "SELECT a WHERE b", "SELECT a ORDER BY b", "SELECT a LIMIT 1",
    "SELECT a GROUP BY b", "SELECT a HAVING b", "SELECT a FROM t LIMIT", "SELECT a FROM t AS", "SELECT a AS b AS c FROM t",
    "SELECT a.b AS c FROM t", "SELECT a.\"b\" c FROM t", "SELECT \"a\".b FROM t", "SELECT `a`.`b` FROM `t`",
    "SELECT [a].[b] FROM [t]", "SELECT t.a, t.b FROM t WHERE t.c IN (1,2)",
    "SELECT DISTINCT t1.a AS x, count(t2.b) AS n FROM t1 JOIN t2 ON t1.id = t2.id GROUP BY t1.a ORDER BY n DESC",
    "SELECT a FROM t WHERE a = 1 -- comment\nORDER BY a", "SELECT a FROM t ORDER BY a -- c", "SELECT a FROM t -- c\n;",
    "SELECT a FROM t /* c */;", "SELECT a /* x */ AS b FROM t", "SELECT a AS /* x */ b FROM t", "SELECT a, /* x */ b FROM t",
    "SELECT a FROM t WHERE a = 1\n-- c\nGROUP BY a", "SELECT count(*) FROM t -- c\n-- d\n", "SELECT 1 -- a\n-- b\nFROM t",
    "SELECT CASE WHEN a = 1 THEN 'x' END AS c, b FROM t", "SELECT a, CASE WHEN b THEN 1 END FROM t",
    "SELECT a FROM t WHERE b = 1 AND c IN (SELECT d FROM u GROUP BY d HAVING count(*) > 1)",
    "SELECT name FROM t WHERE a > 1 ORDER  BY name", "SELECT x FROM t ORDER BY x ASC NULLS FIRST",
    "SELECT a FROM t LIMIT 1; ", "SELECT a FROM t LIMIT 1 ;", "SELECT a FROM t;--\n", "SELECT 1 AS a, 2 AS a",
    "SELECT a AS b FROM t ORDER BY b", "SELECT a AS B FROM t", "SELECT a  AS  b FROM t", "SELECT a\tAS\tb FROM t",
    "SELECT a\nAS\nb FROM t", "SELECT a\u00a0AS\u00a0b FROM t", "SELECT a AS b c FROM t",
    "SELECT count(*) AS n, x FROM t", "SELECT sum(a) + sum(b) AS s FROM t", "SELECT sum(a)+sum(b) s FROM t",
    "SELECT a || ' ' || b AS full_name FROM t", "SELECT COALESCE(a, 0) AS a FROM t", "SELECT a FROM t WHERE a IS TRUE",
    "SELECT a FROM t WHERE a = TRUE", "SELECT 1 = 1", "SELECT a FROM t WHERE a = 'x' OR a = \"y\"",
]

bases = golds + preds[:60] + handwritten

ws_choices = ["  ", "\n", "\t", " \n ", "\r\n", "\u00a0", "\u3000", "\x1c", "\u2028", " \t"]
stray = ["?", "$", "\\", "#", "@", "!", "{", "}", "~", "€", "é", "ß", "中", "😀", "`", "'", "\"", "[", "]", "(", ")",
         ";", ":", "%", "^", "&", "|", "´", "×", "\u0301", "٣", "½", "-", "*", "/", "+", "<", ">", "=", ","]


def dump_mode(seed, count, out_path):
    """Random strings with sqlparse's tokens and top-level statement tokens (see module doc)."""
    drng = random.Random(seed)
    frags = ["SELECT", "select", "FROM", "WHERE", "GROUP BY", "ORDER BY", "HAVING", "LIMIT", "AS", "as", "JOIN",
             "LEFT JOIN", "ON", "AND", "OR", "NOT", "NULL", "IS", "IN", "CASE", "WHEN", "THEN", "ELSE", "END", "BEGIN",
             "IF", "END IF", "FOR", "END LOOP", "OVER", "PARTITION BY", "DISTINCT", "UNION", "UNION ALL", "INTERSECT",
             "EXCEPT", "WITH", "VALUES", "INSERT", "INTO", "CREATE", "TABLE", "DATE", "TIMESTAMP", "INTERVAL", "DAY",
             "ASC", "DESC", "NULLS FIRST", "COUNT", "count", "max", "f", "a", "b", "t", "x.y", "t.*", "a1", "_z", "é",
             "ß", "ſ", "ı", "K", "中", "1", "2.5", ".5", "1e3", "-1", "0x1F", "'s'", "'it''s'", "'a\\'b'", '"q"',
             "`b`", "[br]", "$$d$$", "?", ":p", "%s", "@v", "#t", "\\c", "(", ")", "[", "]", ",", ";", ".", "::",
             ":=", "*", "+", "-", "/", "%", "||", "=", "<>", "!=", ">=", "<", "->", "->>", "~", "^", "&", "|", "!",
             "$", "{", "}", "--c\n", "/*c*/", "# c\n", "/*+h*/", "'", '"', "`", "´", " ", "  ", "\n", "\t", "\r\n",
             "\u00a0", "\x1c", "\u3000", "AT TIME ZONE 'UTC'", "::int", "CURRENT_DATE", "ROLE", "GO", "GO 2",
             "DECLARE", "TRANSACTION", "LATERAL VIEW EXPLODE", "REGEXP", "LIKE", "NOT LIKE", "DOUBLE PRECISION", "😀",
             "×", "٣", "½", "\u0301"]
    alphabet = ("abcABCxyzSELECTFROMWHERE_0123456789 '\"`´[](){};:.,*+-/%<>=!~^&|#@$?\\\n\r\t\u00a0\x1c"
                "\u0130\u0131\u017f\u212a\u212b\u00d7\u00f7\u00dd\u00fd\u00e0\u00c0\u0301\u0663\u00bd"
                "\u00b2\u4e2d\U0001F600\u2028\u0085")

    def fragments():
        return "".join(drng.choice(frags) + drng.choice([" ", " ", " ", "", "\n"]) for _ in range(drng.randrange(1, 25)))

    def mutate(s):
        for _ in range(drng.randrange(1, 4)):
            i = drng.randrange(len(s) + 1)
            k = drng.randrange(4)
            if k == 0:
                s = s[:i] + drng.choice(frags) + s[i:]
            elif k == 1 and s:
                s = s[:i] + s[min(len(s), i + drng.randrange(1, 6)):]
            elif k == 2:
                s = s[:i] + " " + drng.choice(frags) + " " + s[i:]
            else:
                s = s[:i] + drng.choice(stray) + s[i:]
        return s

    def dump(s):
        toks = [[str(t), v] for t, v in lexer.tokenize(s)]
        try:
            statements = sqlparse.parse(s)
        except Exception:
            return {"sql": s, "lex": toks, "stmts": "error"}
        out = []
        for st in statements:
            row = []
            for t in st.tokens:
                items = [i.value for i in t.get_identifiers()] if isinstance(t, sqlparse_sql.IdentifierList) else []
                row.append([type(t).__name__, str(t.ttype) if t.ttype is not None else None, t.value, items])
            out.append(row)
        return {"sql": s, "lex": toks, "stmts": out}

    base = golds + handwritten
    with open(out_path, "w") as f:
        for _ in range(count):
            r = drng.random()
            if r < 0.4:
                s = fragments()
            elif r < 0.9:
                s = mutate(drng.choice(base))
            elif r < 0.95:
                s = mutate(fragments()) + " " + drng.choice(base)
            else:
                s = "".join(drng.choice(alphabet) for _ in range(drng.randrange(1, 40)))
            f.write(json.dumps(dump(s), ensure_ascii=False) + "\n")


if len(sys.argv) == 5 and sys.argv[1] == "--dump":
    dump_mode(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    sys.exit(0)


def case_mutation(s):
    mode = rng.randrange(3)
    if mode == 0:
        return s.lower()
    if mode == 1:
        return s.upper()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in s)


def ws_mutation(s):
    parts = s.split(" ")
    out = parts[0]
    for p in parts[1:]:
        out += (rng.choice(ws_choices) if rng.random() < 0.4 else " ") + p
    return out


def trailing_mutation(s):
    return s + rng.choice([";", "; ", ";\n", ";;", " ;", "; -- end", "; /* end */", "\n", " ", ";\t\n", "; SELECT 1"])


def comment_mutation(s):
    parts = s.split(" ")
    if len(parts) < 2:
        return s + " -- c"
    i = rng.randrange(1, len(parts))
    c = rng.choice(["-- c\n", "/* c */", "# c\n", "--\n", "/**/", "-- x\n-- y\n"])
    return " ".join(parts[:i]) + " " + c + " " + " ".join(parts[i:])


def quote_mutation(s):
    parts = s.split(" ")
    idx = [i for i, p in enumerate(parts) if p.isidentifier() and p.upper() not in ("SELECT", "FROM", "WHERE", "AND", "OR")]
    if not idx:
        return s
    i = rng.choice(idx)
    q = rng.choice(['"{}"', "`{}`", "[{}]", "'{}'"])
    parts[i] = q.format(parts[i])
    return " ".join(parts)


def stray_mutation(s):
    i = rng.randrange(len(s) + 1)
    return s[:i] + rng.choice(stray) + s[i:]


def cut_mutation(s):
    if not s:
        return s
    return s[: rng.randrange(len(s))]


def alias_mutation(s):
    parts = s.split(" ")
    if len(parts) < 2:
        return s
    i = rng.randrange(1, len(parts))
    alias = rng.choice(["AS x", "x", "AS \"x y\"", "as X", "AS"])
    return " ".join(parts[:i] + [alias] + parts[i:])


def concat_mutation(s):
    return s + rng.choice(["; ", ";", " UNION ", " INTERSECT ", " EXCEPT ", "\n"]) + rng.choice(golds)


mutations = [case_mutation, ws_mutation, trailing_mutation, comment_mutation, quote_mutation, stray_mutation,
             cut_mutation, alias_mutation, concat_mutation]

generated = []
for g in golds:
    for m in rng.sample(mutations, 5):
        generated.append((m(g), g))
for _ in range(120):
    s = rng.choice(handwritten + golds)
    m = rng.choice(mutations)
    generated.append((m(m(s)) if rng.random() < 0.3 else m(s), s))


def deep(n, open_="(", close=")", inner="1"):
    return "SELECT " + open_ * n + inner + close * n + " FROM t"


long_strings = []
for n in [2, 50, 98, 99, 100, 101, 102, 150, 200, 1000, 4997, 4998, 10000]:
    long_strings.append(deep(n))
for n in [99, 100, 101]:
    long_strings.append("SELECT a FROM t WHERE " + "(" * n + "a = 1" + ")" * n)
    long_strings.append("SELECT " + "[" * n + "1" + "]" * n)
    long_strings.append("SELECT " + "f(" * n + "1" + ")" * n + " FROM t")
    long_strings.append("SELECT " + "CASE WHEN a THEN " * n + "1" + " END" * n + " FROM t")
    long_strings.append("SELECT " + "IF " * n + "1" + " END IF" * n)
    long_strings.append("BEGIN " * n + "SELECT 1" + " END" * n)
for n in [30, 48, 49, 50, 51, 52, 60, 100, 500]:
    long_strings.append("SELECT " + "f(" * n + "1" + ")" * n + " FROM t")
for n in [30, 49, 50, 51, 99, 100, 101, 120]:
    long_strings.append("SELECT " + "(a.f(" * n + "1" + "))" * n)
for n in [50, 99, 100, 101, 102, 150, 400]:
    long_strings.append("SELECT " + "+".join(["1"] * n) + " FROM t")
    long_strings.append("SELECT a FROM t WHERE " + " = ".join(["a"] * n))
for n in [99, 100, 101, 300]:
    long_strings.append("SELECT x FROM t WHERE y IN (a.f(" + " = ".join(["b"] * n) + "))")
    long_strings.append("SELECT " + "(SELECT " * n + "1" + ")" * n)
for k in [4998, 4999, 5000]:
    long_strings.append("SELECT" + " 1" * k)
    long_strings.append("SELECT" + " 1" * k + " ")
    long_strings.append("SELECT" + " 1" * k + ";")
for n in [3332, 3333, 3334]:
    long_strings.append("SELECT " + ", ".join("c%d" % i for i in range(n)) + " FROM t")
long_strings.append("SELECT " + ",".join("c%d" % i for i in range(4999)) + " FROM t")
long_strings.append("SELECT " + ",".join("c%d" % i for i in range(5001)) + " FROM t")
long_strings.append("SELECT (" + ",".join(["1"] * 5001) + ")")
long_strings.append("SELECT (" + ",".join(["1"] * 4999) + ")")
long_strings.append("--c\n" * 10001 + "SELECT 1")
long_strings.append("--c\n" * 9999 + "SELECT 1")
long_strings.append("SELECT 1 " + "--c\n" * 10001)
long_strings.append("SELECT " + "'" * 3001)
long_strings.append("SELECT " + "'\\" * 1500 + "'")
long_strings.append("SELECT a FROM t; " * 300)
long_strings.append("SELECT " + " AND ".join("a%d = %d" % (i, i) for i in range(400)))

strings = list(dict.fromkeys(golds + preds + handwritten + [g for g, _ in generated] + long_strings))


def info_of(s):
    if len(s) > 4000:
        return "-"
    try:
        info = extract_select_info(s)
    except Exception:
        return "error"
    if info is None:
        return None
    return [sorted(info["columns"]), info["from"], info["where"], info["group"], info["having"], info["order"]]


rows = [[s, is_sqlparse_parsable(s), info_of(s)] for s in strings]

pairs = [(m, g) for m, g in generated]
for _ in range(150):
    a, b = rng.choice(golds + handwritten), rng.choice(golds + handwritten)
    pairs.append((a, b))
for g in golds:
    pairs.append((g, g))
    pairs.append((g.lower(), g))
    pairs.append((g.replace(" ", "  "), g))
    pairs.append((g + ";", g))
    pairs.append((g + "; ", g))
for s in long_strings:
    if len(s) > 3000:
        continue
    pairs.append((s, s))
    pairs.append((s.replace(" ", "\n", 3), s))
for a, b in [("SELECT a AS x FROM t", "SELECT a FROM t"), ("SELECT a x FROM t", "SELECT a FROM t"),
             ("SELECT a, b FROM t", "SELECT b, a FROM t"), ("SELECT a FROM t WHERE b = 1", "SELECT a FROM t WHERE b = 2"),
             ("SELECT a FROM t WHERE b=1", "SELECT a FROM t WHERE b = 1"), ("SELECT a FROM t", "select A from T"),
             ("SELECT straße FROM t", "SELECT STRASSE FROM t"), ("SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a DESC"),
             ("SELECT a FROM t GROUP BY a", "SELECT a FROM t GROUP BY b"), ("SELECT 1", "SELECT 1;"), ("SELECT 1", "SELECT 1; "),
             ("SELECT a\u00a0AS b FROM t", "SELECT a FROM t"), ("SELECT a AS\u00a0b FROM t", "SELECT a FROM t"),
             ("SELECT a\tb FROM t", "SELECT a FROM t"), ("", ""), ("SELECT", "SELECT"), ("x", "x")]:
    pairs.append((a, b))
pairs = list(dict.fromkeys(pairs))
equivalent = [[a, b, sqlparse_queries_equivalent(a, b)] for a, b in pairs]

with open(os.path.join(here, "sqlparse.json"), "w") as f:
    json.dump({"strings": rows, "equivalent": equivalent, "metric": metric}, f, indent=0, ensure_ascii=False)
    f.write("\n")
print(len(rows), "strings,", len(equivalent), "pairs,", len(metric), "metric pairs")
print(sum(r[1] for r in rows), "parsable;", sum(e[2] for e in equivalent), "equivalent")
