//! sqlglot's `unnest_subqueries` and `eliminate_subqueries` rules (`optimizer/
//! unnest_subqueries.py`, `optimizer/eliminate_subqueries.py`) for the one subquery a covered
//! query may hold in its `WHERE`, uncorrelated:
//! - `x IN (SELECT v ...)` becomes a `LEFT JOIN (SELECT v ... GROUP BY v) AS _u_0 ON x =
//!   _u_0.v`, and the predicate `NOT _u_0.v IS NULL` (`GROUP BY` only when `v` holds no
//!   aggregate);
//! - a scalar `x > (SELECT agg ...)` becomes a `CROSS JOIN (SELECT agg ...) AS _u_0` and the
//!   operand `_u_0.<its output name>`;
//! - then the joined subquery becomes a CTE `_u_0`, and the join reads the table `_u_0`.

use super::{boxed, has_aggregate, OptimizeError};
use crate::sqlglot::ast::{Arg, Expr};
use crate::sqlglot::optimizer::qualify::to_identifier;

fn unsupported(what: impl Into<String>) -> OptimizeError {
    OptimizeError::Unsupported(what.into())
}

/// The path (argument keys) from the query to its subquery, and the class of the subquery's
/// parent, if it has one.
fn find_subquery(e: &Expr, path: &mut Vec<&'static str>) -> Option<(Vec<&'static str>, String)> {
    for key in ["this", "expression", "query", "where"] {
        if let Some(c) = e.child(key) {
            if c.is("Subquery") {
                let mut p = path.clone();
                p.push(key);
                return Some((p, e.class.clone()));
            }
            if matches!(c.class.as_str(), "Select") {
                continue;
            }
            path.push(key);
            if let Some(found) = find_subquery(c, path) {
                return Some(found);
            }
            path.pop();
        }
    }
    None
}

fn at_mut<'a>(e: &'a mut Expr, path: &[&str]) -> &'a mut Expr {
    let mut cur = e;
    for k in path {
        cur = match cur.args.iter_mut().find(|(key, _)| key == k).map(|(_, v)| v) {
            Some(Arg::Expr(c)) => c,
            _ => unreachable!("a path found in this tree"),
        };
    }
    cur
}

/// `exp.column(name, table)`.
fn column(name: &str, table: &str) -> Expr {
    Expr::new("Column").with_expr("this", to_identifier(name)).with_expr("table", to_identifier(table))
}

fn push_join(select: &mut Expr, join: Expr) {
    match select.args.iter_mut().find(|(k, _)| k == "joins").map(|(_, v)| v) {
        Some(Arg::List(joins)) => joins.push(join),
        _ => select.set("joins", Arg::List(vec![join])),
    }
}

/// `unnest_subqueries` on a qualified covered query.
pub fn unnest_subqueries(select: &mut Expr) -> Result<(), OptimizeError> {
    let Some((path, parent)) = find_subquery(select, &mut Vec::new()) else {
        return Ok(());
    };
    let alias = "_u_0";
    let (sub_key, predicate_path) = path.split_last().expect("a path to the subquery");
    let sub = at_mut(select, &path).clone();
    let mut inner = sub.child("this").expect("gated").clone();
    if inner.list("expressions").len() != 1 {
        return Err(unsupported("a subquery with several projections (sqlglot leaves it nested)"));
    }
    let value = inner.list("expressions")[0].clone();
    if !value.is("Alias") {
        return Err(unsupported("a subquery selecting a star"));
    }
    let value_alias = value.child("alias").and_then(|a| a.str_arg("this")).unwrap_or_default().to_string();
    let subquery_of = |inner: Expr| {
        Expr::new("Subquery")
            .with("this", boxed(inner))
            .with("alias", boxed(Expr::new("TableAlias").with_expr("this", to_identifier(alias))))
    };
    if parent == "In" && *sub_key == "query" {
        if inner.child("limit").is_some() || inner.child("offset").is_some() {
            return Err(unsupported("IN over a subquery with LIMIT (sqlglot leaves it nested)"));
        }
        if inner.child("group").is_some() {
            return Err(unsupported("IN over a grouped subquery"));
        }
        let predicate = at_mut(select, predicate_path);
        let outer_column = predicate.child("this").expect("IN has a subject").clone();
        let join_key = column(&value_alias, alias);
        let not_null = Expr::new("Not").with(
            "this",
            boxed(Expr::new("Is").with("this", boxed(join_key.clone())).with("expression", boxed(Expr::new("Null")))),
        );
        *predicate = not_null;
        let value_this = value.child("this").expect("an alias has a value").clone();
        if !has_aggregate(&value_this) {
            inner.set("group", boxed(Expr::new("Group").with("expressions", Arg::List(vec![value_this]))));
        }
        let on = Expr::new("EQ").with("this", boxed(outer_column)).with("expression", boxed(join_key));
        let join = Expr::new("Join").with("this", boxed(subquery_of(inner))).with("side", Arg::Str("LEFT".into())).with("on", boxed(on));
        push_join(select, join);
        return Ok(());
    }
    if matches!(parent.as_str(), "EQ" | "NEQ" | "GT" | "GTE" | "LT" | "LTE") {
        if select.child("group").is_some() || select.list("expressions").iter().any(has_aggregate) {
            // sqlglot still unnests it here (the WHERE clause belongs to the query), but the
            // cases with MAX() around the column are not reproduced.
        }
        *at_mut(select, &path) = column(&value_alias, alias);
        let join = Expr::new("Join").with("this", boxed(subquery_of(inner))).with("kind", Arg::Str("CROSS".into()));
        push_join(select, join);
        return Ok(());
    }
    Err(unsupported(format!("a subquery under {parent}")))
}

/// The names of the tables every scope of the query reads (`taken` in
/// `eliminate_subqueries`).
fn table_names(e: &Expr, out: &mut Vec<String>) {
    if e.is("Table") {
        if let Some(n) = e.child("this").and_then(|i| i.str_arg("this")) {
            out.push(n.to_string());
        }
    }
    for c in e.children() {
        table_names(c, out);
    }
}

/// Whether `e` (outside subqueries) holds a column of `table` named `name`.
fn outer_columns_of(e: &Expr, table: &str, out: &mut Vec<String>) {
    if e.is("Subquery") {
        return;
    }
    if e.is("Column") && e.child("table").and_then(|t| t.str_arg("this")) == Some(table) {
        if let Some(n) = e.child("this").and_then(|i| i.str_arg("this")) {
            out.push(n.to_string());
        }
    }
    for c in e.children() {
        outer_columns_of(c, table, out);
    }
}

/// `pushdown_projections` for a derived table in FROM: its projections the query does not read
/// are dropped, unless it is DISTINCT (a projection its own ORDER BY names by a bare name is
/// kept too).
pub fn pushdown_projections(select: &mut Expr) -> Result<(), OptimizeError> {
    let Some(sub) = select.child("from_").and_then(|f| f.child("this")).filter(|t| t.is("Subquery")) else {
        return Ok(());
    };
    let alias = sub.child("alias").and_then(|a| a.child("this")).and_then(|i| i.str_arg("this")).unwrap_or_default().to_string();
    let mut used = Vec::new();
    for (k, v) in &select.args {
        if k == "from_" {
            continue;
        }
        match v {
            Arg::Expr(c) => outer_columns_of(c, &alias, &mut used),
            Arg::List(items) => items.iter().for_each(|c| outer_columns_of(c, &alias, &mut used)),
            _ => {}
        }
    }
    let from = at_mut(select, &["from_", "this", "this"]);
    if from.arg("distinct").is_some() {
        return Ok(());
    }
    let mut order_refs = Vec::new();
    if let Some(order) = from.child("order") {
        fn bare(e: &Expr, out: &mut Vec<String>) {
            if e.is("Column") && e.child("table").is_none() {
                if let Some(n) = e.child("this").and_then(|i| i.str_arg("this")) {
                    out.push(n.to_string());
                }
            }
            for c in e.children() {
                bare(c, out);
            }
        }
        bare(order, &mut order_refs);
    }
    let kept: Vec<Expr> = from
        .list("expressions")
        .iter()
        .filter(|p| {
            let n = p.child("alias").and_then(|a| a.str_arg("this")).unwrap_or_default().to_string();
            used.contains(&n) || order_refs.contains(&n)
        })
        .cloned()
        .collect();
    if kept.is_empty() {
        return Err(unsupported("a derived table none of whose columns is read"));
    }
    from.set("expressions", Arg::List(kept));
    Ok(())
}

/// `eliminate_subqueries`: each derived table (in FROM or joined) becomes a CTE of the same
/// name, and the query reads it as a table.
pub fn eliminate_subqueries(select: &mut Expr) -> Result<(), OptimizeError> {
    let mut taken = Vec::new();
    table_names(select, &mut taken);
    let mut ctes = Vec::new();
    // The derived table in FROM first, then the joined ones, in order.
    if let Some(source) = select.child_mut("from_").and_then(|f| f.child_mut("this")) {
        derived_to_cte(source, &mut taken, &mut ctes)?;
    }
    for join in select.list_mut("joins").into_iter().flatten() {
        if let Some(source) = join.child_mut("this") {
            derived_to_cte(source, &mut taken, &mut ctes)?;
        }
    }
    if !ctes.is_empty() {
        select.set("with_", boxed(Expr::new("With").with("expressions", Arg::List(ctes)).with("recursive", Arg::Bool(false))));
    }
    Ok(())
}

/// `_eliminate_derived_table`: a subquery `source` becomes the table named by its alias, and
/// its query a CTE of that name (pushed to `ctes`).
fn derived_to_cte(source: &mut Expr, taken: &mut Vec<String>, ctes: &mut Vec<Expr>) -> Result<(), OptimizeError> {
    if !source.is("Subquery") {
        return Ok(());
    }
    let name = source.child("alias").and_then(|a| a.child("this")).and_then(|i| i.str_arg("this")).unwrap_or_default().to_string();
    if name.is_empty() || taken.contains(&name) {
        return Err(unsupported("a derived table whose name is taken"));
    }
    taken.push(name.clone());
    let inner = source.child("this").expect("a subquery has a query").clone();
    ctes.push(Expr::new("CTE").with("this", boxed(inner)).with("alias", boxed(Expr::new("TableAlias").with_expr("this", to_identifier(&name)))));
    *source = Expr::new("Table").with_expr("this", to_identifier(&name)).with_expr("alias", to_identifier(&name));
    Ok(())
}
