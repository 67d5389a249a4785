//! Checks against Python: `testdata/sqlparse.json` holds Unitxt 1.26.10's results (sqlparse 0.5.5)
//! from `testdata/sqlparse_gen.py`; the unit tests pin grouping cases worked out by hand and
//! confirmed with Python.

use super::lexer::{tokenize, TType};
use super::*;
use serde_json::Value;

fn oracle() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sqlparse.json");
    let text = std::fs::read_to_string(path).expect("testdata/sqlparse.json is readable");
    serde_json::from_str(&text).expect("testdata/sqlparse.json is valid JSON")
}

fn info_json(sql: &str) -> Value {
    match extract_select_info(sql) {
        Err(_) => Value::from("error"),
        Ok(None) => Value::Null,
        Ok(Some(i)) => serde_json::json!([
            i.columns.iter().cloned().collect::<Vec<_>>(),
            i.from,
            i.where_,
            i.group,
            i.having,
            i.order
        ]),
    }
}

fn short(s: &str) -> String {
    let n = s.chars().count();
    if n <= 300 {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(150).collect();
        format!("{head:?}... ({n} chars)")
    }
}

#[test]
fn strings_match_python() {
    let data = oracle();
    let rows = data["strings"].as_array().expect("strings");
    let mut bad = Vec::new();
    for row in rows {
        let sql = row[0].as_str().expect("sql");
        let parsable = row[1].as_bool().expect("parsable");
        if is_parsable(sql) != parsable {
            bad.push(format!("is_parsable({}) = {}, Python {}", short(sql), !parsable, parsable));
        }
        if row[2] != "-" {
            let got = info_json(sql);
            if got != row[2] {
                bad.push(format!("extract_select_info({})\n  got    {}\n  python {}", short(sql), got, row[2]));
            }
        }
    }
    assert!(bad.is_empty(), "{} of {} strings differ:\n{}", bad.len(), rows.len(), bad.join("\n"));
    assert!(rows.len() > 500);
}

#[test]
fn equivalence_matches_python() {
    let data = oracle();
    let rows = data["equivalent"].as_array().expect("equivalent");
    let mut bad = Vec::new();
    for row in rows {
        let (a, b) = (row[0].as_str().expect("sql1"), row[1].as_str().expect("sql2"));
        let want = row[2].as_bool().expect("bool");
        if queries_equivalent(a, b) != want {
            bad.push(format!("queries_equivalent({}, {}) = {}, Python {}", short(a), short(b), !want, want));
        }
    }
    assert!(bad.is_empty(), "{} of {} pairs differ:\n{}", bad.len(), rows.len(), bad.join("\n"));
    assert!(rows.len() > 300);
}

#[test]
fn metric_scores_match_python() {
    let data = oracle();
    let rows = data["metric"].as_array().expect("metric");
    let mut bad = Vec::new();
    for row in rows {
        let (pred, gold) = (row[0].as_str().expect("prediction"), row[1].as_str().expect("gold"));
        let validity = is_parsable(pred);
        let equivalence = validity && queries_equivalent(pred, gold);
        let want = (row[2].as_i64() == Some(1), row[3].as_i64() == Some(1));
        if (validity, equivalence) != want {
            bad.push(format!(
                "{} vs {}: got {:?}, Python {:?}",
                short(pred),
                short(gold),
                (validity, equivalence),
                want
            ));
        }
    }
    assert!(bad.is_empty(), "{} of {} metric pairs differ:\n{}", bad.len(), rows.len(), bad.join("\n"));
}

/// The top-level tokens of the single statement of `sql`: (class, ttype, value).
fn top(sql: &str) -> Vec<(Class, Option<TType>, String)> {
    let (tree, stmts) = grouping::parse(sql).expect("parses");
    assert_eq!(stmts.len(), 1);
    tree.children(stmts[0]).iter().map(|&t| (tree.class(t), tree.ttype(t), tree.value(t))).collect()
}

fn non_ws(sql: &str) -> Vec<(Class, Option<TType>, String)> {
    top(sql).into_iter().filter(|(_, t, _)| !matches!(t, Some(TType::Whitespace | TType::Newline))).collect()
}

#[test]
fn where_clause_is_one_group_and_swallows_the_semicolon() {
    let toks = non_ws("SELECT a FROM t WHERE b = 1;");
    let last = toks.last().expect("tokens");
    assert_eq!((last.0, last.1, last.2.as_str()), (Class::Where, None, "WHERE b = 1;"));
    // So Unitxt's WHERE clause is empty and the condition lands in the FROM clause.
    let info = extract_select_info("SELECT a FROM t WHERE b = 1;").unwrap().unwrap();
    // collect_clause joins every token, whitespace included, with a space.
    assert_eq!(info.from, "t   WHERE b = 1;");
    assert_eq!(info.where_, "");
}

#[test]
fn group_by_and_order_by_are_single_keywords() {
    let toks = non_ws("SELECT a FROM t GROUP BY a ORDER BY a");
    let kws: Vec<&str> = toks.iter().filter(|t| t.1 == Some(TType::Keyword)).map(|t| t.2.as_str()).collect();
    assert_eq!(kws, ["FROM", "GROUP BY", "ORDER BY"]);
    let info = extract_select_info("SELECT a FROM t GROUP BY a ORDER BY a").unwrap().unwrap();
    // "GROUP BY" is not a clause end for Unitxt, so FROM runs on to the end.
    assert_eq!(info.from, "t   GROUP BY   a   ORDER BY   a");
    assert_eq!(info.group, "a   ORDER BY   a");
    assert_eq!(info.order, "a");
}

#[test]
fn statement_count_after_trailing_semicolon() {
    assert_eq!(grouping::parse("SELECT 1;").unwrap().1.len(), 1);
    assert_eq!(grouping::parse("SELECT 1; ").unwrap().1.len(), 1);
    assert_eq!(grouping::parse("SELECT 1;\n").unwrap().1.len(), 1);
    assert_eq!(grouping::parse("SELECT 1; -- c\n").unwrap().1.len(), 1);
    // A block comment after the semicolon starts a second statement.
    assert_eq!(grouping::parse("SELECT 1; /* c */").unwrap().1.len(), 2);
    assert!(!queries_equivalent("SELECT 1; /* c */", "SELECT 1"));
    assert!(queries_equivalent("SELECT 1; ", "SELECT 1;"));
}

#[test]
fn aliases_and_identifier_lists() {
    let toks = non_ws("SELECT a AS x, b y, c FROM t");
    assert_eq!(toks[1].0, Class::IdentifierList);
    assert_eq!(toks[1].2, "a AS x, b y, c");
    let info = extract_select_info("SELECT a AS x, b y, c FROM t").unwrap().unwrap();
    assert_eq!(info.columns.iter().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c"]);
}

#[test]
fn grouping_limits_raise() {
    let nest = |n: usize| format!("SELECT {}1{} FROM t", "(".repeat(n), ")".repeat(n));
    assert!(is_parsable(&nest(100)));
    assert!(!is_parsable(&nest(101)));
    assert!(!is_parsable(&nest(10_000)));
    // 1 + 2 * 4999 = 9999 tokens pass, 1 + 2 * 5000 = 10001 do not.
    assert!(is_parsable(&format!("SELECT{}", " 1".repeat(4999))));
    assert!(!is_parsable(&format!("SELECT{}", " 1".repeat(5000))));
    // A long `+` chain nests one Operation per operator.
    let chain = |n: usize| format!("SELECT {} FROM t", vec!["1"; n].join("+"));
    assert!(is_parsable(&chain(101)));
    assert!(!is_parsable(&chain(102)));
    // Groups made after the bracket passes are checked by later passes: BEGIN ... END blocks,
    // and a comparison chain inside a function call inside an identifier.
    let begins = |n: usize| format!("{}SELECT 1{}", "BEGIN ".repeat(n), " END".repeat(n));
    assert!(is_parsable(&begins(100)));
    assert!(!is_parsable(&begins(101)));
    assert!(!is_parsable(&begins(3000)));
    let call = |n: usize| format!("SELECT a.f({}c)", "b = ".repeat(n));
    assert!(is_parsable(&call(50)));
    assert!(!is_parsable(&call(100)));
    assert!(!is_parsable(&call(1200)));
}

#[test]
fn error_tokens_only_count_at_top_level() {
    assert!(!is_parsable("SELECT $ FROM t"));
    assert!(is_parsable("SELECT ($) FROM t"));
    // Everything after WHERE is inside the Where group.
    assert!(is_parsable("SELECT a FROM t WHERE b = '"));
    assert!(!is_parsable("SELECT 'a FROM t"));
    assert!(!is_parsable("   "));
    assert!(!is_parsable(""));
}

#[test]
fn lexer_rules() {
    let types = |s: &str| tokenize(s);
    assert_eq!(
        types("1.5e x"),
        [
            (TType::Float, "1.".into()),
            (TType::Name, "5e".into()),
            (TType::Whitespace, " ".into()),
            (TType::Name, "x".into())
        ]
    );
    assert_eq!(types("12abc"), [(TType::Integer, "1".into()), (TType::Name, "2abc".into())]);
    assert_eq!(types("t.select")[2], (TType::Name, "select".into()));
    assert_eq!(types("ſelect")[0], (TType::Dml, "ſelect".into()));
    assert_eq!(types("'a\\'")[0], (TType::StringSingle, "'a\\'".into()));
    assert_eq!(types("LEFT  OUTER JOIN")[0], (TType::Keyword, "LEFT  OUTER JOIN".into()));
    assert_eq!(types("$a$x$A$")[0], (TType::Literal, "$a$x$A$".into()));
}

fn class_name(c: Class) -> &'static str {
    match c {
        Class::Token => "Token",
        Class::Statement => "Statement",
        Class::Identifier => "Identifier",
        Class::IdentifierList => "IdentifierList",
        Class::TypedLiteral => "TypedLiteral",
        Class::Parenthesis => "Parenthesis",
        Class::SquareBrackets => "SquareBrackets",
        Class::Assignment => "Assignment",
        Class::If => "If",
        Class::For => "For",
        Class::Comparison => "Comparison",
        Class::Comment => "Comment",
        Class::Where => "Where",
        Class::Over => "Over",
        Class::Case => "Case",
        Class::Function => "Function",
        Class::Begin => "Begin",
        Class::Operation => "Operation",
        Class::Values => "Values",
        Class::TokenList => "TokenList",
    }
}

fn ttype_name(t: TType) -> &'static str {
    use TType::*;
    match t {
        Text => "Token.Text",
        Whitespace => "Token.Text.Whitespace",
        Newline => "Token.Text.Whitespace.Newline",
        Error => "Token.Error",
        Keyword => "Token.Keyword",
        Dml => "Token.Keyword.DML",
        Ddl => "Token.Keyword.DDL",
        Dcl => "Token.Keyword.DCL",
        Cte => "Token.Keyword.CTE",
        Order => "Token.Keyword.Order",
        TzCast => "Token.Keyword.TZCast",
        Name => "Token.Name",
        Placeholder => "Token.Name.Placeholder",
        NameBuiltin => "Token.Name.Builtin",
        Literal => "Token.Literal",
        String => "Token.Literal.String",
        StringSingle => "Token.Literal.String.Single",
        StringSymbol => "Token.Literal.String.Symbol",
        Number => "Token.Literal.Number",
        Hexadecimal => "Token.Literal.Number.Hexadecimal",
        Float => "Token.Literal.Number.Float",
        Integer => "Token.Literal.Number.Integer",
        Punctuation => "Token.Punctuation",
        Operator => "Token.Operator",
        Comparison => "Token.Operator.Comparison",
        Wildcard => "Token.Wildcard",
        Comment => "Token.Comment",
        CommentSingle => "Token.Comment.Single",
        CommentSingleHint => "Token.Comment.Single.Hint",
        CommentMultiline => "Token.Comment.Multiline",
        CommentMultilineHint => "Token.Comment.Multiline.Hint",
        Assignment => "Token.Assignment",
        Generic => "Token.Generic",
        Command => "Token.Generic.Command",
    }
}

/// Random strings against sqlparse: `testdata/sqlparse_dump.jsonl` (`sqlparse_gen.py --dump 1
/// 1000`) holds sqlparse's lexer tokens and each statement's top-level (class, ttype, value,
/// identifiers) for 1,000 strings.
#[test]
fn dump_matches_python() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sqlparse_dump.jsonl");
    let text = std::fs::read_to_string(path).expect("testdata/sqlparse_dump.jsonl is readable");
    let mut bad = 0;
    let mut total = 0;
    for line in text.lines() {
        total += 1;
        let row: Value = serde_json::from_str(line).expect("json");
        let sql = row["sql"].as_str().expect("sql");
        let lex: Vec<Value> = tokenize(sql).into_iter().map(|(t, v)| serde_json::json!([ttype_name(t), v])).collect();
        let got_stmts = match grouping::parse(sql) {
            Err(_) => Value::from("error"),
            Ok((tree, stmts)) => Value::Array(
                stmts
                    .iter()
                    .map(|&s| {
                        Value::Array(
                            tree.children(s)
                                .iter()
                                .map(|&t| {
                                    let items: Vec<String> = if tree.class(t) == Class::IdentifierList {
                                        tree.children(t)
                                            .iter()
                                            .filter(|&&c| {
                                                let n = &tree.nodes[c];
                                                !(n.is_whitespace
                                                    || (n.ttype == Some(TType::Punctuation) && n.text == ","))
                                            })
                                            .map(|&c| tree.value(c))
                                            .collect()
                                    } else {
                                        Vec::new()
                                    };
                                    serde_json::json!([
                                        class_name(tree.class(t)),
                                        tree.ttype(t).map(ttype_name),
                                        tree.value(t),
                                        items
                                    ])
                                })
                                .collect(),
                        )
                    })
                    .collect(),
            ),
        };
        let lex_ok = Value::Array(lex.clone()) == row["lex"];
        let st_ok = got_stmts == row["stmts"];
        if !lex_ok || !st_ok {
            bad += 1;
            if bad <= 15 {
                eprintln!("MISMATCH {:?}", sql);
                if !lex_ok {
                    eprintln!("  lex got    {}\n  lex python {}", Value::Array(lex), row["lex"]);
                } else {
                    eprintln!("  got    {}\n  python {}", got_stmts, row["stmts"]);
                }
            }
        }
    }
    assert_eq!(bad, 0, "{bad} of {total} differ");
    assert_eq!(total, 1000);
}
