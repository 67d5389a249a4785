//! The part of Python's sqlparse 0.5.5 that Unitxt 1.26.10's `sql_non_execution_accuracy`
//! metric uses, through two functions of `unitxt/text2sql_utils.py`:
//! [`is_parsable`] (`is_sqlparse_parsable`) and [`queries_equivalent`]
//! (`sqlparse_queries_equivalent`).
//!
//! Both read only the top level of each statement that `sqlparse.parse` returns: each token's
//! type, class (`Identifier`, `IdentifierList` or other) and text, and the items of an
//! `IdentifierList`. Getting that level right needs the whole pipeline: the lexer
//! ([`lexer`]), statement splitting and every grouping pass ([`grouping`]), since for example a
//! `WHERE ...` clause becomes one `Where` group with no token type, and grouping fails
//! (sqlparse raises) past 100 levels of nesting or 10,000 tokens in one list.
//!
//! Python's `str` semantics are kept where the results depend on them: `upper()` is the full
//! Unicode mapping, and `strip()`/`split()` use `str.isspace()`.

pub mod grouping;
mod keywords;
pub mod lexer;
mod tables;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use grouping::{Class, Id, ParseFailure, Tree};
use lexer::{is_space, TType};

/// Python's `str.strip()` (whitespace by `str.isspace()`).
fn py_strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `str.split()` with no argument.
fn py_split(s: &str) -> Vec<&str> {
    s.split(is_space).filter(|w| !w.is_empty()).collect()
}

/// Unitxt's `is_sqlparse_parsable(sql)`: false for blank input; else true unless a top-level
/// token of a parsed statement has ttype `Token.Error` (or sqlparse raises).
pub fn is_parsable(sql: &str) -> bool {
    if py_strip(sql).is_empty() {
        return false;
    }
    match grouping::parse(sql) {
        Err(ParseFailure) => false,
        Ok((tree, stmts)) => {
            !stmts.iter().any(|&s| tree.children(s).iter().any(|&t| tree.ttype(t) == Some(TType::Error)))
        }
    }
}

/// Unitxt's `strip_alias(col)`: drops an ` AS ` alias (found in the upper-cased text, cut at
/// the same character position of the original), else the last whitespace-separated word when
/// there are several.
pub fn strip_alias(col: &str) -> String {
    let col = py_strip(col);
    let upper = col.to_uppercase();
    if let Some(byte_idx) = upper.find(" AS ") {
        let n = upper[..byte_idx].chars().count();
        let cut: String = col.chars().take(n).collect();
        return py_strip(&cut).to_string();
    }
    let parts = py_split(col);
    if parts.len() > 1 {
        return parts[..parts.len() - 1].join(" ");
    }
    col.to_string()
}

/// One top-level token of a statement, as Unitxt's helpers read it.
struct Top {
    ttype: Option<TType>,
    class: Class,
    value: String,
    /// For an `IdentifierList`: the values of `get_identifiers()`.
    items: Vec<String>,
}

fn top_tokens(tree: &Tree, stmt: Id) -> Vec<Top> {
    tree.children(stmt)
        .iter()
        .map(|&t| {
            let class = tree.class(t);
            let items = if class == Class::IdentifierList {
                tree.children(t)
                    .iter()
                    .filter(|&&c| {
                        let n = &tree.nodes[c];
                        !(n.is_whitespace || (n.ttype == Some(TType::Punctuation) && n.text == ","))
                    })
                    .map(|&c| tree.value(c))
                    .collect()
            } else {
                Vec::new()
            };
            Top { ttype: tree.ttype(t), class, value: tree.value(t), items }
        })
        .collect()
}

const CLAUSE_ENDS: [&str; 6] = ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT"];

/// Unitxt's `extract_select_columns(statement)`: the column texts after `SELECT`, up to the
/// first plain keyword among `FROM WHERE GROUP HAVING ORDER LIMIT`, aliases stripped.
fn extract_select_columns(tokens: &[Top]) -> BTreeSet<String> {
    let mut columns = BTreeSet::new();
    let mut select_seen = false;
    for t in tokens {
        if t.ttype == Some(TType::Dml) && t.value.to_uppercase() == "SELECT" {
            select_seen = true;
            continue;
        }
        if !select_seen {
            continue;
        }
        if t.ttype == Some(TType::Keyword) && CLAUSE_ENDS.contains(&t.value.to_uppercase().as_str()) {
            break;
        }
        match t.class {
            Class::IdentifierList => {
                for item in &t.items {
                    columns.insert(strip_alias(item));
                }
            }
            Class::Identifier => {
                columns.insert(strip_alias(&t.value));
            }
            _ => {
                let val = py_strip(&t.value);
                if !val.is_empty() {
                    columns.insert(strip_alias(val));
                }
            }
        }
    }
    columns
}

/// Unitxt's `collect_clause(statement, clause_keyword)`: the texts of the top-level tokens
/// after a plain keyword starting with `keyword`, up to the next clause keyword, joined by
/// spaces and stripped.
fn collect_clause(tokens: &[Top], keyword: &str) -> String {
    let mut found = false;
    let mut collected: Vec<&str> = Vec::new();
    for t in tokens {
        let tvalue = t.value.to_uppercase();
        if t.ttype == Some(TType::Keyword) {
            if tvalue.starts_with(keyword) {
                found = true;
                continue;
            }
            if found && CLAUSE_ENDS.contains(&tvalue.as_str()) {
                break;
            }
        }
        if found {
            collected.push(&t.value);
        }
    }
    py_strip(&collected.join(" ")).to_string()
}

/// What Unitxt's `extract_select_info(sql)` returns for a single `SELECT` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectInfo {
    /// The select-list column texts, aliases stripped (`frozenset` in Unitxt).
    pub columns: BTreeSet<String>,
    /// The `FROM` clause text.
    pub from: String,
    /// The `WHERE` clause text (empty unless `WHERE` stays a top-level keyword).
    pub where_: String,
    /// The `GROUP` clause text.
    pub group: String,
    /// The `HAVING` clause text.
    pub having: String,
    /// The `ORDER` clause text.
    pub order: String,
}

/// Unitxt's `extract_select_info(sql)`: `Ok(None)` unless `sqlparse.parse` gives exactly one
/// statement with a top-level `SELECT`; `Err` where sqlparse raises.
pub fn extract_select_info(sql: &str) -> Result<Option<SelectInfo>, ParseFailure> {
    let (tree, stmts) = grouping::parse(sql)?;
    if stmts.len() != 1 {
        return Ok(None);
    }
    let tokens = top_tokens(&tree, stmts[0]);
    if !tokens.iter().any(|t| t.ttype == Some(TType::Dml) && t.value.to_uppercase() == "SELECT") {
        return Ok(None);
    }
    Ok(Some(SelectInfo {
        columns: extract_select_columns(&tokens),
        from: collect_clause(&tokens, "FROM"),
        where_: collect_clause(&tokens, "WHERE"),
        group: collect_clause(&tokens, "GROUP"),
        having: collect_clause(&tokens, "HAVING"),
        order: collect_clause(&tokens, "ORDER"),
    }))
}

/// Unitxt's `sqlparse_queries_equivalent(sql1, sql2)` (uses `extract_select_info`,
/// `extract_select_columns`, `strip_alias`, `collect_clause`): both are single `SELECT`
/// statements with the same column set and the same `FROM`/`WHERE`/`GROUP`/`HAVING`/`ORDER`
/// texts once spaces are removed and case is ignored; false where sqlparse raises.
pub fn queries_equivalent(sql1: &str, sql2: &str) -> bool {
    let (Ok(Some(a)), Ok(Some(b))) = (extract_select_info(sql1), extract_select_info(sql2)) else {
        return false;
    };
    if a.columns != b.columns {
        return false;
    }
    let norm = |s: &str| s.replace(' ', "").to_uppercase();
    [(&a.from, &b.from), (&a.where_, &b.where_), (&a.group, &b.group), (&a.having, &b.having), (&a.order, &b.order)]
        .iter()
        .all(|(x, y)| norm(x) == norm(y))
}
