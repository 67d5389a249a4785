//! Unitxt 1.26.10's `SQLNonExecutionAccuracy.compute` (`unitxt/metrics.py`) for one instance:
//! the seven sub-scores from the prediction text and the gold query.

use crate::sqlglot::ast::Expr;
use crate::sqlglot::diff::diff;
use crate::sqlglot::generator::{self, Options};
use crate::sqlglot::optimizer::{self, OptimizeError};
use crate::sqlglot::parser::{parse, parse_one, ParseError};
use crate::sqlglot::tokenizer::Dialect;
use crate::text2sql::{extract_sql_from_text, sql_exact_match};
use crate::{pystr, sqlparse};

/// The instance is outside what this crate reproduces of sqlglot: its scores are unknown. The
/// string says which part and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

/// The seven sub-scores (0 or 1) of one instance, in Unitxt's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NonExecutionScores {
    /// sqlglot parses the extracted prediction as SQLite.
    pub sqlglot_validity: u8,
    /// sqlparse finds no error token at a statement's top level.
    pub sqlparse_validity: u8,
    /// Same projections (aliases dropped, as a set) and clauses, printed by sqlglot with
    /// `normalize=True`; the main score.
    pub sqlglot_equivalence: u8,
    /// sqlglot's optimizer makes both queries the same tree (`diff` keeps every node).
    pub sqlglot_optimized_equivalence: u8,
    /// sqlparse's grouping gives the same columns and clauses.
    pub sqlparse_equivalence: u8,
    /// Equal after trimming, dropping trailing `;`, collapsing whitespace and upper-casing.
    pub sql_exact_match: u8,
    /// Any of the four equivalences above.
    pub sql_syntactic_equivalence: u8,
}

impl NonExecutionScores {
    /// The scores by Unitxt's names, in Unitxt's order.
    pub fn named(&self) -> [(&'static str, u8); 7] {
        [
            ("sqlglot_validity", self.sqlglot_validity),
            ("sqlparse_validity", self.sqlparse_validity),
            ("sqlglot_equivalence", self.sqlglot_equivalence),
            ("sqlglot_optimized_equivalence", self.sqlglot_optimized_equivalence),
            ("sqlparse_equivalence", self.sqlparse_equivalence),
            ("sql_exact_match", self.sql_exact_match),
            ("sql_syntactic_equivalence", self.sql_syntactic_equivalence),
        ]
    }
}

fn from_parse(what: &str, e: ParseError) -> Unsupported {
    Unsupported(format!("{what}: {e}"))
}

/// `SQLNonExecutionAccuracy.compute(references=[gold], prediction)`.
///
/// Errors: [`Unsupported`] when a sub-score depends on a part of sqlglot this crate does not
/// reproduce for this input (the message names the part); never a guessed score.
pub fn non_execution_scores(prediction: &str, gold: &str) -> Result<NonExecutionScores, Unsupported> {
    let predicted = extract_sql_from_text(prediction);
    let glot_valid = is_sqlglot_parsable(&predicted)?;
    let sqlparse_valid = sqlparse::is_parsable(&predicted);
    let mut s = NonExecutionScores {
        sqlglot_validity: glot_valid as u8,
        sqlparse_validity: sqlparse_valid as u8,
        sql_exact_match: sql_exact_match(&predicted, gold) as u8,
        ..NonExecutionScores::default()
    };
    if glot_valid {
        s.sqlglot_equivalence = parsed_queries_equivalent(&predicted, gold)? as u8;
        s.sqlglot_optimized_equivalence = optimized_equivalence(gold, &predicted)? as u8;
    }
    if sqlparse_valid {
        s.sqlparse_equivalence = sqlparse::queries_equivalent(&predicted, gold) as u8;
    }
    s.sql_syntactic_equivalence =
        (s.sqlglot_equivalence | s.sqlglot_optimized_equivalence | s.sqlparse_equivalence | s.sql_exact_match).min(1);
    Ok(s)
}

/// Unitxt's `is_sqlglot_parsable(sql)`: `sqlglot.parse(sql, read="sqlite")` does not raise.
pub fn is_sqlglot_parsable(sql: &str) -> Result<bool, Unsupported> {
    if pystr::strip(sql).is_empty() {
        return Ok(false);
    }
    match parse(sql, Dialect::Sqlite) {
        Ok(_) => Ok(true),
        Err(ParseError::Syntax(_)) => Ok(false),
        Err(e) => Err(from_parse("sqlglot's SQLite parser", e)),
    }
}

/// The deepest tree the scores are computed on. sqlglot follows deeper ones (its loops and
/// explicit stacks do not recurse on operator chains); this port's rules recurse, so a deeper
/// tree (thousands of chained `AND`s or `+`s) is refused rather than risk the stack.
pub const MAX_TREE_DEPTH: usize = 200;

/// `parse_one(sql)`: `Ok(None)` where sqlglot raises.
fn parse_default(sql: &str) -> Result<Option<Expr>, Unsupported> {
    match parse_one(sql, Dialect::Default) {
        Ok(e) if e.depth() > MAX_TREE_DEPTH => {
            Err(Unsupported(format!("a query whose tree is more than {MAX_TREE_DEPTH} levels deep")))
        }
        Ok(e) => Ok(Some(e)),
        Err(ParseError::Syntax(_)) => Ok(None),
        Err(e) => Err(from_parse("sqlglot's parser", e)),
    }
}

fn gen(e: &Expr) -> Result<String, Unsupported> {
    generator::sql(e, Options { normalize: true, ..Options::default() }).map_err(|u| Unsupported(u.to_string()))
}

/// Unitxt's `sqlglot_parsed_queries_equivalent(sql1, sql2)`: both parse as a `SELECT`, with
/// the same set of projections without their aliases and the same `WHERE`, `GROUP BY`,
/// `HAVING` and `ORDER BY`, each printed with `normalize=True`. (Unitxt also compares
/// `args["from"]`, which sqlglot 30 no longer sets: the FROM clause is under `from_`.)
pub fn parsed_queries_equivalent(sql1: &str, sql2: &str) -> Result<bool, Unsupported> {
    let (Some(a), Some(b)) = (parse_default(sql1)?, parse_default(sql2)?) else {
        return Ok(false);
    };
    if !(a.is("Select") && b.is("Select")) {
        return Ok(false);
    }
    let columns = |e: &Expr| -> Result<Vec<String>, Unsupported> {
        let mut cols = Vec::new();
        for item in e.list("expressions") {
            let mut item = item.clone();
            item.unset("alias");
            let text = gen(&item)?;
            if !cols.contains(&text) {
                cols.push(text);
            }
        }
        cols.sort();
        Ok(cols)
    };
    if columns(&a)? != columns(&b)? {
        return Ok(false);
    }
    for key in ["where", "group", "having", "order"] {
        let clause = |e: &Expr| -> Result<String, Unsupported> { e.child(key).map(gen).unwrap_or(Ok(String::new())) };
        if clause(&a)? != clause(&b)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `optimize(parse_one(sql.lower()).sql(pretty=True))`: `Ok(None)` where sqlglot raises.
///
/// The text is printed without pretty-printing: the two differ only in whitespace, which the
/// parser does not see (comments, which it would, are refused by the parser).
fn optimized(sql: &str) -> Result<Option<Expr>, Unsupported> {
    let Some(tree) = parse_default(&pystr::lower(sql))? else {
        return Ok(None);
    };
    let text = generator::sql(&tree, Options::default()).map_err(|u| Unsupported(u.to_string()))?;
    let Some(again) = parse_default(&text)? else {
        return Ok(None);
    };
    match optimizer::optimize(&again) {
        Ok(e) => Ok(Some(e)),
        Err(OptimizeError::Raises(_)) => Ok(None),
        Err(OptimizeError::Unsupported(why)) => Err(Unsupported(format!("sqlglot's optimizer: {why}"))),
    }
}

/// Unitxt's `sqlglot_optimized_equivalence(expected, generated)`: both optimize and sqlglot's
/// `diff` between them has only `Keep` edits. The gold query is optimized first: when sqlglot
/// raises on it, the score is 0 whatever the prediction.
pub fn optimized_equivalence(expected: &str, generated: &str) -> Result<bool, Unsupported> {
    let Some(gold) = optimized(expected)? else {
        return Ok(false);
    };
    let Some(pred) = optimized(generated)? else {
        return Ok(false);
    };
    let edits = diff(&gold, &pred).map_err(|u| Unsupported(u.to_string()))?;
    Ok(edits.changes() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every instance of the metric oracle (`crates/unitxt/src/metrics/testdata/
    /// sql_non_execution.json`, 555 pairs scored by Unitxt 1.26.10) this crate covers gets
    /// Unitxt's seven scores.
    #[test]
    fn scores_are_unitxts() {
        let path = format!("{}/../unitxt/src/metrics/testdata/sql_non_execution.json", env!("CARGO_MANIFEST_DIR"));
        let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("oracle")).expect("json");
        let (mut agree, mut unsupported, mut bad) = (0, Vec::new(), Vec::new());
        for inst in data["instances"].as_array().expect("instances") {
            let (p, g) = (inst["prediction"].as_str().unwrap(), inst["gold"].as_str().unwrap());
            match non_execution_scores(p, g) {
                Err(u) => unsupported.push(u.to_string()),
                Ok(s) => {
                    let diffs: Vec<String> = s
                        .named()
                        .iter()
                        .filter(|(n, v)| inst["scores"][n].as_u64() != Some(*v as u64))
                        .map(|(n, v)| format!("{n}: want {}, got {v}", inst["scores"][n]))
                        .collect();
                    if diffs.is_empty() {
                        agree += 1;
                    } else {
                        bad.push(format!("{p:?} vs {g:?}: {}", diffs.join(", ")));
                    }
                }
            }
        }
        eprintln!("metric: {agree} agree, {} unsupported, {} mismatches", unsupported.len(), bad.len());
        let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
        for u in &unsupported {
            *reasons.entry(u.as_str()).or_default() += 1;
        }
        for (why, n) in reasons {
            eprintln!("unsupported {n:4}: {why}");
        }
        assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// Long operator chains parse into deep trees; scoring them must end (here: refuse)
    /// without overflowing the stack, in a test thread's small stack.
    #[test]
    fn long_chains_do_not_overflow() {
        let sum = format!("SELECT {} FROM t", vec!["1"; 20_000].join(" + "));
        let and = format!("SELECT a FROM t WHERE {}", vec!["a = 1"; 20_000].join(" AND "));
        for sql in [&sum, &and] {
            let r = non_execution_scores(sql, "SELECT a FROM t");
            assert!(r.is_err(), "{:?}", r.map(|s| s.named()));
            let r = non_execution_scores("SELECT a FROM t", sql);
            assert!(r.is_err());
        }
    }
}
