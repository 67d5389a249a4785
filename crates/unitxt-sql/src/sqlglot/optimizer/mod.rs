//! sqlglot's optimizer (`sqlglot/optimizer/optimizer.py`, `optimize` without a schema), rule
//! by rule, for the queries this port covers.
//!
//! Covered: one `SELECT`, or a `UNION`/`INTERSECT`/`EXCEPT` of them, over plain tables joined
//! with `ON` (see [`qualify::qualify`]), whose conditions [`simplify`] covers, in conjunctive
//! normal form, without subqueries or CTEs. Every other query is
//! [`OptimizeError::Unsupported`]. Unitxt lower-cases the SQL before optimizing it, so the
//! identifiers are already normalized; the rules rely on that.

pub mod qualify;
pub mod simplify;
pub mod subqueries;

#[cfg(test)]
mod tests;

use crate::sqlglot::ast::{Arg, Expr};

/// Why a rule gave no tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptimizeError {
    /// sqlglot raises here (an ambiguous column, an unknown output position, a cycle between
    /// joins); Unitxt then scores the pair 0.
    #[error("sqlglot's optimizer raises: {0}")]
    Raises(String),
    /// The query is outside what this port reproduces; sqlglot's result is unknown.
    #[error("sqlglot's optimizer is not reproduced for {0}")]
    Unsupported(String),
}

fn unsupported(what: impl Into<String>) -> OptimizeError {
    OptimizeError::Unsupported(what.into())
}

/// The rules of `optimize`, in sqlglot's order (`RULES`).
pub const RULES: &[&str] = &[
    "qualify",
    "pushdown_projections",
    "normalize",
    "unnest_subqueries",
    "pushdown_predicates",
    "optimize_joins",
    "eliminate_subqueries",
    "merge_subqueries",
    "eliminate_joins",
    "eliminate_ctes",
    "quote_identifiers",
    "annotate_types",
    "canonicalize",
    "simplify",
];

/// sqlglot's `optimize(tree)` with no schema, on a covered query.
///
/// Errors: `Raises` where sqlglot raises; `Unsupported` outside the covered queries.
pub fn optimize(tree: &Expr) -> Result<Expr, OptimizeError> {
    optimize_with(tree, |_, _| {})
}

/// [`optimize`], calling `step(rule, tree)` after each rule (for checking rule by rule).
pub fn optimize_with(tree: &Expr, mut step: impl FnMut(&str, &Expr)) -> Result<Expr, OptimizeError> {
    let mut e = tree.clone();
    if is_set_operation(&e) {
        gate_set_operation(&e)?;
    }
    let has_subquery = e.contains_class("Subquery");
    if has_subquery && !e.is("Select") {
        return Err(unsupported("a set operation with a subquery"));
    }
    for rule in RULES {
        match *rule {
            "qualify" => for_each_select(&mut e, &mut qualify::qualify)?,
            "pushdown_projections" => {
                for_each_select(&mut e, &mut |s| {
                    if s.list("expressions").is_empty() {
                        return Err(unsupported("a SELECT without projections"));
                    }
                    Ok(())
                })?;
                if has_subquery {
                    subqueries::pushdown_projections(&mut e)?;
                }
            }
            "normalize" => {
                if and_under_or(&e, false) {
                    return Err(unsupported("a condition that is not in conjunctive normal form"));
                }
            }
            "unnest_subqueries" => {
                if has_subquery {
                    subqueries::unnest_subqueries(&mut e)?;
                }
            }
            "pushdown_predicates" => for_each_select(&mut e, &mut pushdown_predicates)?,
            "optimize_joins" => for_each_select(&mut e, &mut optimize_joins)?,
            "eliminate_subqueries" => {
                if has_subquery {
                    subqueries::eliminate_subqueries(&mut e)?;
                }
            }
            "quote_identifiers" => quote_identifiers(&mut e, None),
            "canonicalize" => canonicalize(&mut e)?,
            "simplify" => simplify::simplify_query(&mut e)?,
            // Without subqueries, CTEs or a schema these rules leave the query as it is.
            _ => {}
        }
        step(rule, &e);
    }
    Ok(e)
}

fn is_set_operation(e: &Expr) -> bool {
    matches!(e.class.as_str(), "Union" | "Intersect" | "Except")
}

/// A set operation is covered when its operands are covered SELECTs (or set operations of
/// them) and its own ORDER BY names outputs by bare names.
fn gate_set_operation(e: &Expr) -> Result<(), OptimizeError> {
    for (k, v) in &e.args {
        let empty = matches!(v, Arg::List(l) if l.is_empty());
        if !empty && !matches!(k.as_str(), "this" | "expression" | "distinct" | "order" | "limit" | "offset") {
            return Err(unsupported(format!("a {} with `{k}`", e.class)));
        }
    }
    for key in ["this", "expression"] {
        match e.child(key) {
            Some(side) if side.is("Select") => {}
            Some(side) if is_set_operation(side) => gate_set_operation(side)?,
            _ => return Err(unsupported(format!("a {} operand that is not a SELECT", e.class))),
        }
    }
    if let Some(order) = e.child("order") {
        for ordered in order.list("expressions") {
            let this = ordered.child("this");
            if !this.is_some_and(|c| c.is("Column") && c.child("table").is_none()) {
                return Err(unsupported("a set operation ordered by something else than an output name"));
            }
        }
    }
    Ok(())
}

/// Applies `rule` to the query, or to each SELECT of a set operation.
fn for_each_select(e: &mut Expr, rule: &mut dyn FnMut(&mut Expr) -> Result<(), OptimizeError>) -> Result<(), OptimizeError> {
    if is_set_operation(e) {
        for key in ["this", "expression"] {
            if let Some(side) = e.child_mut(key) {
                for_each_select(side, rule)?;
            }
        }
        return Ok(());
    }
    rule(e)
}

/// Whether an `AND` sits under an `OR` (the query is not in CNF; `normalize` would rewrite it).
fn and_under_or(e: &Expr, under_or: bool) -> bool {
    if e.is("And") && under_or {
        return true;
    }
    let under = under_or || e.is("Or");
    e.children().any(|c| and_under_or(c, under))
}

/// An argument holding a child expression.
pub(crate) fn boxed(e: Expr) -> Arg {
    Arg::Expr(Box::new(e))
}

/// sqlglot's aggregate functions among the covered classes (`exp.AggFunc`).
pub(crate) fn is_agg(class: &str) -> bool {
    matches!(class, "Count" | "Sum" | "Avg" | "Min" | "Max")
}

/// Whether `e` holds an aggregate in its own scope (`find_in_scope(e, exp.AggFunc)`: not inside
/// a subquery).
pub(crate) fn has_aggregate(e: &Expr) -> bool {
    is_agg(&e.class) || e.children().any(|c| !c.is("Subquery") && has_aggregate(c))
}

/// `Expr.is_number`: a numeric literal, or the negation of a number.
pub(crate) fn is_number(e: &Expr) -> bool {
    (e.is("Literal") && !e.flag("is_string")) || (e.is("Neg") && e.child("this").is_some_and(is_number))
}

/// `exp.column_table_names(e, exclude)`: the tables the columns under `e` name.
fn column_tables(e: &Expr, exclude: &str, out: &mut Vec<String>) {
    if e.is("Column") {
        if let Some(t) = e.child("table").and_then(|t| t.str_arg("this")) {
            if !t.is_empty() && t != exclude && !out.iter().any(|x| x == t) {
                out.push(t.to_string());
            }
        }
    }
    for c in e.children() {
        column_tables(c, exclude, out);
    }
}

fn table_names(e: &Expr, exclude: &str) -> Vec<String> {
    let mut out = Vec::new();
    column_tables(e, exclude, &mut out);
    out.sort();
    out
}

/// A join's `alias_or_name`.
fn join_name(join: &Expr) -> String {
    let table = join.child("this");
    if let Some(sub) = table.filter(|t| t.is("Subquery")) {
        return sub.child("alias").and_then(|a| a.child("this")).and_then(|i| i.str_arg("this")).unwrap_or_default().to_string();
    }
    table
        .and_then(|t| t.child("alias"))
        .and_then(|a| a.child("this"))
        .or_else(|| table.and_then(|t| t.child("this")))
        .and_then(|i| i.str_arg("this"))
        .unwrap_or_default()
        .to_string()
}

fn join_side(join: &Expr) -> String {
    join.str_arg("side").map(crate::pystr::upper).unwrap_or_default()
}

/// `pushdown_predicates`: the `WHERE` and each join's `ON` simplified; a `WHERE` conjunct whose
/// columns name a joined table (and only tables joined before it) moves into that join's `ON`,
/// leaving `TRUE`. A `LEFT` (or other sided) join takes nothing.
fn pushdown_predicates(select: &mut Expr) -> Result<(), OptimizeError> {
    pushdown_scope(select)?;
    // A derived table in FROM is its own scope, handled after the query.
    if let Some(from) = select.child_mut("from_") {
        if let Some(sub) = from.child_mut("this").filter(|t| t.is("Subquery")) {
            let inner = sub.child_mut("this").expect("a subquery has a query");
            pushdown_predicates(inner)?;
        }
    }
    Ok(())
}

fn pushdown_scope(select: &mut Expr) -> Result<(), OptimizeError> {
    let joins: Vec<Expr> = select.list("joins").to_vec();
    let join_index: Vec<String> = joins.iter().map(join_name).collect();
    if joins.iter().any(|j| join_side(j) == "RIGHT") {
        return Err(unsupported("a RIGHT join"));
    }
    if let Some(where_) = select.child_mut("where") {
        if let Some(cond) = where_.child_mut("this") {
            let c = std::mem::replace(cond, Expr::new("Null"));
            *cond = simplify::simplify_untyped_condition(c, Some("Where"))?;
        }
        let cond = where_.child("this").cloned();
        if let Some(cond) = cond {
            if and_under_or(&cond, false) {
                return Err(unsupported("a WHERE outside conjunctive normal form after simplification"));
            }
            // The conjuncts (parentheses looked through), and for each the join it moves to.
            let mut moves: Vec<(usize, usize)> = Vec::new();
            let conjuncts = conjunct_paths(&cond);
            for (ci, path) in conjuncts.iter().enumerate() {
                let predicate = at_path(&cond, path);
                // `nodes_for_predicate`: the joins of the predicate's tables, in sorted order;
                // none at all when one of them is a sided join. The table in FROM takes none.
                let tables = table_names(predicate, "");
                let join_of = |t: &String| join_index.iter().position(|n| n == t);
                if tables.iter().filter_map(join_of).any(|ji| !join_side(&joins[ji]).is_empty()) {
                    continue;
                }
                for ji in tables.iter().filter_map(join_of) {
                    let others = table_names(predicate, &join_index[ji]);
                    let all_before = others.iter().all(|t| join_of(t).map_or(-1, |i| i as isize) < ji as isize);
                    if all_before {
                        moves.push((ci, ji));
                        break;
                    }
                }
            }
            if !moves.is_empty() {
                let where_ = select.child_mut("where").expect("present");
                let cond_mut = where_.child_mut("this").expect("present");
                let mut moved: Vec<(usize, Expr)> = Vec::new();
                for (ci, ji) in &moves {
                    let slot = at_path_mut(cond_mut, &conjuncts[*ci]);
                    let predicate = std::mem::replace(slot, Expr::new("Boolean").with("this", Arg::Bool(true)));
                    moved.push((*ji, predicate));
                }
                let joins = select.list_mut("joins").expect("joins");
                for (ji, predicate) in moved {
                    let join = &mut joins[ji];
                    let on = match join.child("on") {
                        Some(existing) => simplify::combine("And", vec![existing.clone(), predicate]),
                        None => predicate,
                    };
                    join.set("on", Arg::Expr(Box::new(on)));
                    // `Join.on` makes a cross join a plain one.
                    if join.str_arg("kind").is_some_and(|k| k.eq_ignore_ascii_case("CROSS")) {
                        join.unset("kind");
                    }
                }
            }
        }
    }
    if let Some(joins) = select.list_mut("joins") {
        for join in joins.iter_mut() {
            if let Some(on) = join.child_mut("on") {
                let c = std::mem::replace(on, Expr::new("Null"));
                *on = simplify::simplify_untyped_condition(c, Some("Join"))?;
            }
        }
        // Then the joined subqueries' own scopes.
        let _ = ();
        for join in joins.iter_mut() {
            if let Some(sub) = join.child_mut("this").filter(|t| t.is("Subquery")) {
                let inner = sub.child_mut("this").expect("a subquery has a query");
                pushdown_predicates(inner)?;
            }
        }
    }
    Ok(())
}

/// Paths (argument keys from the condition) to the operands of its top `AND` chain, each
/// through any parentheses (`Expr.flatten()`).
fn conjunct_paths(cond: &Expr) -> Vec<Vec<&'static str>> {
    fn walk(e: &Expr, path: Vec<&'static str>, out: &mut Vec<Vec<&'static str>>) {
        if e.is("And") {
            for key in ["this", "expression"] {
                let mut p = path.clone();
                p.push(key);
                walk(e.child(key).expect("operand"), p, out);
            }
        } else {
            let mut p = path;
            let mut cur = e;
            while cur.is("Paren") {
                p.push("this");
                cur = cur.child("this").expect("inner");
            }
            out.push(p);
        }
    }
    let mut out = Vec::new();
    if cond.is("And") {
        walk(cond, Vec::new(), &mut out);
    } else {
        let mut p = Vec::new();
        let mut cur = cond;
        while cur.is("Paren") {
            p.push("this");
            cur = cur.child("this").expect("inner");
        }
        out.push(p);
    }
    out
}

fn at_path<'a>(e: &'a Expr, path: &[&str]) -> &'a Expr {
    path.iter().fold(e, |cur, k| cur.child(k).expect("path"))
}

fn at_path_mut<'a>(e: &'a mut Expr, path: &[&str]) -> &'a mut Expr {
    let mut cur = e;
    for k in path {
        cur = cur.child_mut(k).expect("path");
    }
    cur
}

/// `optimize_joins`: joins without a side are reordered by their dependencies (sqlglot's
/// `tsort`: layer by layer, names sorted), then `INNER`/`OUTER` are dropped and a join
/// without a condition becomes a cross join.
fn optimize_joins(select: &mut Expr) -> Result<(), OptimizeError> {
    let joins: Vec<Expr> = select.list("joins").to_vec();
    if joins.is_empty() {
        return Ok(());
    }
    let reorderable = joins.iter().all(|j| join_side(j).is_empty());
    if reorderable {
        let names: Vec<String> = joins.iter().map(join_name).collect();
        let deps: Vec<Vec<String>> = joins.iter().map(|j| j.child("on").map(|on| table_names(on, &join_name(j))).unwrap_or_default()).collect();
        if deps.iter().any(|d| d.is_empty()) {
            return Err(unsupported("a join whose condition names no other table"));
        }
        // tsort over the joins and the tables they depend on.
        let mut dag: Vec<(String, Vec<String>)> = names.iter().cloned().zip(deps.iter().cloned()).collect();
        for d in deps.iter().flatten() {
            if !dag.iter().any(|(n, _)| n == d) {
                dag.push((d.clone(), Vec::new()));
            }
        }
        let mut order: Vec<String> = Vec::new();
        while !dag.is_empty() {
            let mut current: Vec<String> = dag.iter().filter(|(_, d)| d.is_empty()).map(|(n, _)| n.clone()).collect();
            if current.is_empty() {
                return Err(OptimizeError::Raises("Cycle error".into()));
            }
            dag.retain(|(n, _)| !current.contains(n));
            for (_, d) in dag.iter_mut() {
                d.retain(|x| !current.contains(x));
            }
            current.sort();
            order.extend(current);
        }
        let from_name = select
            .child("from_")
            .and_then(|f| f.child("this"))
            .and_then(|t| t.child("alias").and_then(|a| a.child("this")).or_else(|| t.child("this")))
            .and_then(|i| i.str_arg("this"))
            .unwrap_or_default()
            .to_string();
        let reordered: Vec<Expr> = order
            .iter()
            .filter(|n| **n != from_name)
            .filter_map(|n| names.iter().position(|m| m == n).map(|i| joins[i].clone()))
            .collect();
        select.set("joins", Arg::List(reordered));
    }
    for join in select.list_mut("joins").expect("joins").iter_mut() {
        let kind = join.str_arg("kind").map(crate::pystr::upper).unwrap_or_default();
        let has_any = ["on", "side", "kind", "using", "method"].iter().any(|k| match join.arg(k) {
            Some(Arg::Str(s)) => !s.is_empty(),
            Some(Arg::Bool(b)) => *b,
            Some(_) => true,
            None => false,
        });
        if !has_any || kind == "CROSS" {
            return Err(unsupported("a cross join"));
        }
        if kind == "INNER" || kind == "OUTER" {
            join.unset("kind");
        }
        if join.child("on").is_none() && join.arg("using").is_none() {
            return Err(unsupported("a join without ON"));
        }
    }
    Ok(())
}

/// `quote_identifiers`: every identifier quoted, except those directly under a function.
fn quote_identifiers(e: &mut Expr, parent: Option<&str>) {
    if e.is("Identifier") && !parent.is_some_and(crate::sqlglot::generator::is_function_class) {
        e.set("quoted", Arg::Bool(true));
    }
    let class = e.class.clone();
    for (_, v) in e.args.iter_mut() {
        match v {
            Arg::Expr(c) => quote_identifiers(c, Some(&class)),
            Arg::List(items) => items.iter_mut().for_each(|c| quote_identifiers(c, Some(&class))),
            _ => {}
        }
    }
}

/// Whether sqlglot types `e` as a boolean or leaves it untyped (a column), as `ensure_bools`
/// needs: anything else under `WHERE`, `HAVING`, `NOT` or a connector may be typed as an
/// integer and rewritten to `e <> 0`, which is not reproduced.
fn boolean_or_untyped(e: &Expr) -> bool {
    let mut e = e;
    while e.is("Paren") {
        e = e.child("this").expect("inner");
    }
    matches!(e.class.as_str(), "Column" | "Boolean" | "Null" | "Not" | "And" | "Or" | "EQ" | "NEQ" | "GT" | "GTE" | "LT" | "LTE" | "Is" | "In" | "Like" | "Between")
}

/// The type sqlglot's `annotate_types` gives the covered expressions a cast can hold, as
/// far as `remove_redundant_casts` needs it: `Some("UNKNOWN")` for untyped ones (columns,
/// unknown functions), `None` where this port does not know.
fn known_type(e: &Expr) -> Option<&'static str> {
    match e.class.as_str() {
        "Column" | "Anonymous" | "Min" | "Max" | "Abs" => Some("UNKNOWN"),
        "Sum" if e.child("this").is_some_and(|t| t.is("Column")) => Some("UNKNOWN"),
        // SUM over a CASE or IF whose results are integer literals is a BIGINT.
        "Sum" if e.child("this").is_some_and(int_valued_conditional) => Some("BIGINT"),
        "Avg" | "Round" => Some("DOUBLE"),
        "Count" => Some("BIGINT"),
        "Length" => Some("INT"),
        "Literal" if e.flag("is_string") => Some("VARCHAR"),
        "Literal" => {
            let t = e.str_arg("this").unwrap_or_default();
            Some(if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) { "INT" } else { "DOUBLE" })
        }
        _ => None,
    }
}

/// A `CASE` or `IF` every result of which (each `THEN` and the `ELSE`, which must be there)
/// is an integer literal: sqlglot types it INT.
fn int_valued_conditional(e: &Expr) -> bool {
    let int = |x: Option<&Expr>| x.is_some_and(|x| x.is("Literal") && !x.flag("is_string") && x.str_arg("this").is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())));
    match e.class.as_str() {
        "Case" => e.child("this").is_none() && int(e.child("default")) && e.list("ifs").iter().all(|i| int(i.child("true"))),
        "If" => int(e.child("true")) && int(e.child("false")),
        _ => false,
    }
}

/// Whether `e` may be typed as text (a string literal or a string function).
fn maybe_text(e: &Expr) -> bool {
    let mut e = e;
    while e.is("Paren") {
        e = e.child("this").expect("inner");
    }
    (e.is("Literal") && e.flag("is_string"))
        || matches!(e.class.as_str(), "Lower" | "Upper" | "Substring" | "Replace" | "Trim" | "DPipe" | "Concat" | "Cast" | "Case" | "If")
}

/// `canonicalize` for covered queries: `ASC` is dropped (`remove_ascending_order`) and a cast
/// to the type its operand already has is dropped (`remove_redundant_casts`). The other
/// type-driven rewrites (dates, text `+`, integer predicates) are refused where they could
/// apply.
fn canonicalize(e: &mut Expr) -> Result<(), OptimizeError> {
    fn walk(e: &mut Expr, parent: Option<&str>) -> Result<(), OptimizeError> {
        match e.class.as_str() {
            "Where" | "Having" | "Not" => {
                if !e.child("this").is_some_and(boolean_or_untyped) {
                    return Err(unsupported(format!("a {} over a value that may be an integer", e.class)));
                }
            }
            "If" => {
                if !e.child("this").is_some_and(boolean_or_untyped) {
                    return Err(unsupported("an IF condition that may be an integer"));
                }
            }
            "And" | "Or" => {
                if !["this", "expression"].iter().all(|k| e.child(k).is_some_and(boolean_or_untyped)) {
                    return Err(unsupported("a connector over a value that may be an integer"));
                }
            }
            "Add" => {
                if ["this", "expression"].iter().any(|k| e.child(k).is_some_and(maybe_text)) {
                    return Err(unsupported("a + that may be text concatenation"));
                }
            }
            "DPipe" | "Date" | "TryCast" => {
                return Err(unsupported(format!("canonicalizing {}", e.class)));
            }
            "Ordered" => {
                if matches!(e.arg("desc"), Some(Arg::Bool(false))) {
                    e.unset("desc");
                }
            }
            _ => {}
        }
        let _ = parent;
        if crate::sqlglot::generator::is_function_class(&e.class)
            && !matches!(
                e.class.as_str(),
                "And" | "Or" | "Count" | "Sum" | "Avg" | "Min" | "Max" | "Anonymous" | "Lower" | "Upper" | "Length" | "Abs" | "Round" | "Substring" | "Replace" | "Trim" | "StrPosition" | "Cast" | "Case" | "If"
            )
        {
            return Err(unsupported(format!("canonicalizing {}", e.class)));
        }
        let class = e.class.clone();
        for (_, v) in e.args.iter_mut() {
            match v {
                Arg::Expr(c) => walk(c, Some(&class))?,
                Arg::List(items) => items.iter_mut().try_for_each(|c| walk(c, Some(&class)))?,
                _ => {}
            }
        }
        // After the children (sqlglot's `replace_tree` rewrites children first).
        if e.is("Cast") {
            let to = e.child("to").expect("a cast has a type");
            let target = to.str_arg("this").unwrap_or_default();
            if matches!(target, "DATE" | "DATETIME" | "TIMESTAMP" | "TIME" | "TIMESTAMPTZ" | "TIMESTAMPLTZ" | "TIMESTAMPNTZ" | "DATETIME2") {
                return Err(unsupported("a cast to a date or time type"));
            }
            let inner = e.child("this").expect("a cast has an operand");
            let Some(inner_type) = known_type(inner) else {
                return Err(unsupported(format!("the type of a {} under a cast", inner.class)));
            };
            let plain = to.list("expressions").is_empty() && to.args.iter().all(|(k, _)| k == "this" || k == "nested");
            if plain && inner_type == target {
                let inner = inner.clone();
                *e = inner;
            }
        }
        Ok(())
    }
    walk(e, None)
}
