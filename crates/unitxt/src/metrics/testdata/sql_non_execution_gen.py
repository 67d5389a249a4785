"""Oracle for `sql_non_execution_accuracy`: Unitxt 1.26.10's SQLNonExecutionAccuracy on
(prediction text, gold SQL) pairs, with the sqlglot and sqlparse of Unitxt 1.26.10's release
(May 2026): sqlglot 30.8.0, sqlparse 0.5.5.

Run with a venv that has them (the venv of scripts/test.sh plus the two pins):
    .venv/bin/pip install sqlglot==30.8.0 sqlparse==0.5.5
    .venv/bin/python crates/unitxt/src/metrics/testdata/sql_non_execution_gen.py
It writes sql_non_execution.json next to itself: the pairs, every instance's seven scores, and
the means. With --debug PATH it also writes the intermediate strings (normalized select items
and clauses, optimized SQL) used to compare an implementation step by step.
"""

import json
import os
import sys

import sqlglot
import sqlparse
from unitxt.metrics import SQLNonExecutionAccuracy

# Gold queries in the style of Spider / BIRD (SQLite).
GOLDS = [
    "SELECT count(*) FROM singer",
    "SELECT name, country, age FROM singer ORDER BY age DESC",
    "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'",
    "SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 1",
    "SELECT DISTINCT country FROM singer WHERE age > 20",
    "SELECT country, count(*) FROM singer GROUP BY country",
    "SELECT song_name FROM singer WHERE age > (SELECT avg(age) FROM singer)",
    "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id",
    "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)",
    "SELECT T1.name, T1.capacity FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id WHERE T2.year >= 2014 GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1",
    "SELECT country FROM singer WHERE age > 40 INTERSECT SELECT country FROM singer WHERE age < 30",
    "SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014",
    "SELECT count(DISTINCT Nationality) FROM people",
    "SELECT Name FROM people WHERE Nationality != 'Russia'",
    "SELECT T1.Name FROM people AS T1 JOIN poker_player AS T2 ON T1.People_ID = T2.People_ID WHERE T2.Earnings > 300000",
    "SELECT Nationality, COUNT(*) FROM people GROUP BY Nationality HAVING COUNT(*) >= 2",
    "SELECT max(Final_Table_Made) FROM poker_player WHERE Earnings < 200000",
    "SELECT Name FROM people ORDER BY Height ASC LIMIT 3",
    "SELECT template_type_code FROM Templates GROUP BY template_type_code HAVING count(*) < 3",
    "SELECT document_name FROM Documents WHERE document_name LIKE '%CV%'",
    "SELECT count(*) FROM Documents WHERE template_id IN (SELECT template_id FROM Templates WHERE template_type_code = 'PPT')",
    "SELECT first_name, last_name FROM students WHERE EXISTS (SELECT * FROM enrollments WHERE enrollments.student_id = students.student_id)",
    "SELECT name, CASE WHEN age > 30 THEN 'senior' ELSE 'junior' END FROM employee",
    "SELECT \"First Name\", \"Last Name\" FROM \"Student Info\" WHERE \"Grade Level\" = 9",
    "SELECT `name` FROM `players` WHERE `team id` = 5",
    "SELECT a.title, b.name FROM movies a JOIN directors b ON a.director_id = b.id WHERE a.year BETWEEN 1990 AND 2000",
    "SELECT name FROM employee WHERE salary > 50000 AND department = 'Sales' AND hire_year < 2010",
    "SELECT city FROM airports WHERE country = 'USA' OR country = 'Canada'",
    "SELECT T1.FirstName, T1.LastName FROM Customer AS T1 JOIN Invoice AS T2 ON T1.CustomerId = T2.CustomerId GROUP BY T1.CustomerId HAVING SUM(T2.Total) > 40 ORDER BY T1.LastName",
    "SELECT COUNT(T1.id) FROM patient AS T1 INNER JOIN laboratory AS T2 ON T1.id = T2.id WHERE T2.glu > 180 AND T1.sex = 'M'",
    "SELECT CAST(SUM(CASE WHEN gender = 'F' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM client WHERE district_id = 1",
    "SELECT name FROM club UNION SELECT name FROM team",
    "SELECT name FROM club UNION ALL SELECT name FROM team ORDER BY name",
    "SELECT title FROM book WHERE price IS NULL",
    "SELECT title FROM book WHERE price IS NOT NULL AND pages > 100 ORDER BY price DESC, title ASC",
    "SELECT strftime('%Y', birthday) FROM member WHERE member_id = 3",
    "SELECT SUBSTR(phone, 1, 3), COUNT(*) FROM customers GROUP BY SUBSTR(phone, 1, 3)",
    "SELECT T1.name FROM instructor AS T1 WHERE T1.salary > (SELECT min(salary) FROM instructor WHERE dept_name = 'Biology')",
    "SELECT dept_name, avg(salary) AS avg_salary FROM instructor GROUP BY dept_name HAVING avg(salary) > 42000",
    "SELECT course_id FROM section WHERE semester = 'Fall' AND year = 2009 INTERSECT SELECT course_id FROM section WHERE semester = 'Spring' AND year = 2010",
    "SELECT count(*) FROM (SELECT DISTINCT student_id FROM takes) AS t",
    "WITH top AS (SELECT id, score FROM results ORDER BY score DESC LIMIT 5) SELECT avg(score) FROM top",
    "SELECT name FROM products WHERE price * quantity > 1000 ORDER BY price * quantity",
    "SELECT LOWER(email) FROM users WHERE created_at >= '2020-01-01'",
    "SELECT id FROM orders WHERE status IN ('shipped', 'delivered') LIMIT 10 OFFSET 20",
]

# Predictions written by hand for some golds: (gold index, prediction text).
HAND = [
    (0, "SELECT COUNT(*) FROM singer;"),
    (0, "select count(*) from singer"),
    (0, "SELECT count(1) FROM singer"),
    (0, "There are several singers. ```sql\nSELECT count(*) FROM singer;\n```"),
    (0, "Answer: SELECT count(*) FROM singers"),
    (1, "SELECT name, age, country FROM singer ORDER BY age DESC"),
    (1, "SELECT s.name, s.country, s.age FROM singer AS s ORDER BY s.age DESC"),
    (1, "SELECT name , country , age FROM singer ORDER BY age desc"),
    (1, "SELECT name, country, age FROM singer ORDER BY age"),
    (2, "SELECT AVG(age), MIN(age), MAX(age) FROM singer WHERE country = \"France\""),
    (2, "SELECT avg(age) AS average, min(age) AS youngest, max(age) AS oldest FROM singer WHERE country = 'France'"),
    (2, "SELECT max(age), min(age), avg(age) FROM singer WHERE country = 'France'"),
    (3, "SELECT song_name, song_release_year FROM singer ORDER BY age ASC LIMIT 1"),
    (3, "SELECT song_name, song_release_year FROM singer WHERE age = (SELECT min(age) FROM singer)"),
    (4, "SELECT DISTINCT country FROM singer WHERE 20 < age"),
    (4, "SELECT country FROM singer WHERE age > 20"),
    (5, "SELECT country, COUNT(*) AS cnt FROM singer GROUP BY country"),
    (5, "SELECT COUNT(*), country FROM singer GROUP BY country"),
    (6, "SELECT song_name FROM singer WHERE age > (SELECT AVG(age) FROM singer);"),
    (7, "SELECT s.name, COUNT(*) FROM concert c JOIN stadium s ON c.stadium_id = s.stadium_id GROUP BY c.stadium_id"),
    (7, "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T2.stadium_id = T1.stadium_id GROUP BY T1.stadium_id"),
    (8, "SELECT name FROM stadium WHERE NOT stadium_id IN (SELECT stadium_id FROM concert)"),
    (8, "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT DISTINCT stadium_id FROM concert)"),
    (9, "SELECT T1.name, T1.capacity FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id WHERE T2.year > 2013 GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1"),
    (10, "SELECT country FROM singer WHERE age < 30 INTERSECT SELECT country FROM singer WHERE age > 40"),
    (12, "SELECT COUNT(DISTINCT nationality) FROM people"),
    (13, "SELECT Name FROM people WHERE Nationality <> 'Russia'"),
    (13, "SELECT name FROM people WHERE nationality != 'russia'"),
    (14, "SELECT people.Name FROM people JOIN poker_player ON people.People_ID = poker_player.People_ID WHERE poker_player.Earnings > 300000"),
    (15, "SELECT Nationality, COUNT(*) FROM people GROUP BY Nationality HAVING COUNT(*) > 1"),
    (16, "SELECT MAX(Final_Table_Made) FROM poker_player WHERE Earnings < 200000"),
    (17, "SELECT Name FROM people ORDER BY Height LIMIT 3"),
    (19, "SELECT document_name FROM Documents WHERE document_name LIKE \"%CV%\""),
    (20, "SELECT count(*) FROM Documents AS T1 JOIN Templates AS T2 ON T1.template_id = T2.template_id WHERE T2.template_type_code = 'PPT'"),
    (21, "SELECT first_name, last_name FROM students WHERE student_id IN (SELECT student_id FROM enrollments)"),
    (22, "SELECT name, CASE WHEN age > 30 THEN 'senior' ELSE 'junior' END AS level FROM employee"),
    (22, "SELECT name, IIF(age > 30, 'senior', 'junior') FROM employee"),
    (23, "SELECT `First Name`, `Last Name` FROM `Student Info` WHERE `Grade Level` = 9"),
    (24, "SELECT name FROM players WHERE \"team id\" = 5"),
    (25, "SELECT m.title, d.name FROM movies m JOIN directors d ON m.director_id = d.id WHERE m.year BETWEEN 1990 AND 2000"),
    (25, "SELECT a.title, b.name FROM movies a JOIN directors b ON a.director_id = b.id WHERE a.year >= 1990 AND a.year <= 2000"),
    (26, "SELECT name FROM employee WHERE department = 'Sales' AND salary > 50000 AND hire_year < 2010"),
    (26, "SELECT name FROM employee WHERE hire_year < 2010 AND salary > 50000 AND department = 'Sales'"),
    (27, "SELECT city FROM airports WHERE country IN ('USA', 'Canada')"),
    (27, "SELECT city FROM airports WHERE country = 'Canada' OR country = 'USA'"),
    (28, "SELECT T1.FirstName, T1.LastName FROM Customer AS T1 JOIN Invoice AS T2 ON T1.CustomerId = T2.CustomerId GROUP BY T1.CustomerId HAVING sum(T2.Total) > 40 ORDER BY T1.LastName"),
    (29, "SELECT COUNT(T1.ID) FROM Patient AS T1 INNER JOIN Laboratory AS T2 ON T1.ID = T2.ID WHERE T2.GLU > 180 AND T1.SEX = 'M'"),
    (29, "SELECT COUNT(T1.id) FROM patient AS T1 JOIN laboratory AS T2 ON T1.id = T2.id WHERE T1.sex = 'M' AND T2.glu > 180"),
    (30, "SELECT CAST(SUM(IIF(gender = 'F', 1, 0)) AS REAL) * 100 / COUNT(*) FROM client WHERE district_id = 1"),
    (31, "SELECT name FROM team UNION SELECT name FROM club"),
    (33, "SELECT title FROM book WHERE price = NULL"),
    (34, "SELECT title FROM book WHERE pages > 100 AND price IS NOT NULL ORDER BY price DESC, title"),
    (35, "SELECT STRFTIME('%Y', birthday) FROM member WHERE member_id = 3"),
    (37, "SELECT T1.name FROM instructor T1 WHERE T1.salary > (SELECT MIN(salary) FROM instructor WHERE dept_name = 'Biology')"),
    (38, "SELECT dept_name, AVG(salary) FROM instructor GROUP BY dept_name HAVING AVG(salary) > 42000"),
    (40, "SELECT COUNT(DISTINCT student_id) FROM takes"),
    (41, "SELECT AVG(score) FROM (SELECT id, score FROM results ORDER BY score DESC LIMIT 5)"),
    (42, "SELECT name FROM products WHERE quantity * price > 1000 ORDER BY price * quantity"),
    (44, "SELECT id FROM orders WHERE status IN ('delivered', 'shipped') LIMIT 10 OFFSET 20"),
    (44, "SELECT id FROM orders WHERE status IN ('shipped', 'delivered') LIMIT 20, 10"),
]

# Predictions that are not (good) SQL, paired with every tenth gold.
BAD = [
    "",
    "   ",
    "I cannot answer this question without the database schema.",
    "SELECT",
    "SELECT FROM singer",
    "SELECT name FROM",
    "SELECT name FROM singer WHERE",
    "SELECT name FROM singer WHERE age > ",
    "SELECT (name FROM singer",
    "SELECT name FROM singer)",
    "SELECT * FROM singer WHERE name = 'O'Brien'",
    "SELECT 'unterminated FROM singer",
    "SELECT name FROM singer GROUP",
    "DROP TABLE singer;",
    "UPDATE singer SET age = 1 WHERE name = 'x';",
    "SELECT name FROM singer; SELECT age FROM singer;",
    "SELECT $ FROM singer",
    "SELECT name, FROM singer",
    "SELECT name FROM singer ORDER BY",
    "```\nSELECT count(*) FROM singer\n```",
    "```sql SELECT name FROM singer```",
    "SELECT name FROM singer WHERE age >> 3",
    "SELECT # FROM t",
    "SELECT name FROM singer LIMIT",
    "select * from",
    "Here you go:\nSELECT name\nFROM singer\nWHERE age > 30;\nThis returns the names.",
    "The query is: select name from singer where age > 30",
    "SELECT name FROM singer WHERE age > 30 AND",
    "SELECT CASE WHEN age > 30 THEN 1 FROM singer",
    "SELECT name FROM singer WHERE age BETWEEN 1",
]


def variants(gold):
    """Mechanical rewrites of a gold query, the way models often return it."""
    out = [
        gold,
        gold + ";",
        gold.lower(),
        gold.upper(),
        "  " + gold.replace(" FROM ", "\nFROM ").replace(" WHERE ", "\nWHERE ") + "  ",
        "```sql\n" + gold + ";\n```",
        "Sure! Here is the SQL query:\n```sql\n" + gold + "\n```\nIt returns the requested rows.",
        "SQL: " + gold + ";",
        "To answer this we query the table.\n" + gold,
        gold.replace(", ", ",").replace(" = ", "="),
    ]
    return out


def main():
    debug_path = None
    if "--debug" in sys.argv:
        debug_path = sys.argv[sys.argv.index("--debug") + 1]
    pairs = []
    for g in GOLDS:
        for p in variants(g):
            pairs.append((p, g))
    for i, p in HAND:
        pairs.append((p, GOLDS[i]))
    for k, p in enumerate(BAD):
        pairs.append((p, GOLDS[(k * 10) % len(GOLDS)]))
    # Predictions answering another question (wrong query, valid SQL).
    for k in range(0, len(GOLDS) - 1, 3):
        pairs.append((GOLDS[k + 1], GOLDS[k]))

    metric = SQLNonExecutionAccuracy()
    names = metric.all_metrics
    instances = []
    for p, g in pairs:
        r = metric.compute(references=[g], prediction=p, task_data={})
        instances.append({"prediction": p, "gold": g, "scores": {n: r[n] for n in names}})
    means = {n: sum(x["scores"][n] for x in instances) / len(instances) for n in names}
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "sql_non_execution.json"), "w") as f:
        json.dump(
            {
                "versions": {"sqlglot": sqlglot.__version__, "sqlparse": sqlparse.__version__},
                "score_names": names,
                "instances": instances,
                "means": means,
            },
            f,
            indent=1,
            ensure_ascii=False,
        )
        f.write("\n")
    if debug_path:
        write_debug(pairs, debug_path)
    print(len(instances), "instances;", means)


def write_debug(pairs, path):
    """Intermediate strings of each step, for step-by-step comparison."""
    from sqlglot import exp, parse, parse_one
    from sqlglot.optimizer import optimize
    from unitxt.text2sql_utils import extract_select_info, extract_sql_from_text

    def glot_parts(sql):
        try:
            ast = parse_one(sql, read="")
        except Exception as e:
            return {"error": type(e).__name__}
        if not isinstance(ast, exp.Select):
            return {"not_select": type(ast).__name__}
        cols = []
        for item in ast.expressions:
            c = item.copy()
            c.set("alias", None)
            cols.append(c.sql(normalize=True))
        d = {"cols": cols}
        for k in ("from", "where", "group", "having", "order"):
            cl = ast.args.get(k)
            d[k] = cl.sql(normalize=True) if cl else ""
        return d

    def opt(sql):
        try:
            return optimize(parse_one(sql.lower()).sql(pretty=True)).sql()
        except Exception as e:
            return "ERROR " + type(e).__name__

    def parse_ok(sql):
        try:
            parse(sql, read="sqlite")
            return True
        except Exception:
            return False

    def sp_tokens(sql):
        return [
            [[str(t.ttype), type(t).__name__, t.value] for t in st.tokens]
            for st in sqlparse.parse(sql)
        ]

    rows = []
    for p, g in pairs:
        ps = extract_sql_from_text(p)
        info = {}
        for name, s in (("pred", ps), ("gold", g)):
            ei = extract_select_info(s) if s.strip() else None
            if ei:
                ei = dict(ei)
                ei["columns"] = sorted(ei["columns"])
            info[name] = {
                "sql": s,
                "glot_ok_sqlite": parse_ok(s) if s.strip() else False,
                "glot": glot_parts(s),
                "opt": opt(s),
                "sp_info": ei,
                "sp_tokens": sp_tokens(s),
            }
        rows.append(info)
    with open(path, "w") as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
