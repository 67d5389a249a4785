//! sqlglot's `qualify` rule (`optimizer/qualify.py`, `qualify_tables.py`,
//! `qualify_columns.py`) as `optimize` runs it: no schema, `quote_identifiers=False` (quoting
//! is the later `quote_identifiers` rule), then `validate_qualify_columns`.
//!
//! Covered: one `SELECT` over one table (aliased or not), without joins, subqueries, CTEs,
//! set operations, window functions or `t.*`, whose columns name that table or no table, and
//! which does not use a projection's alias inside another projection, `WHERE`, `GROUP BY` or
//! `HAVING`. For such a query the rule:
//! - aliases the table with its own name (`FROM t` becomes `FROM t AS t`);
//! - qualifies every column with the table's alias, except, in `ORDER BY`, a bare name that is
//!   also a projection's output name (`ORDER BY age` stays when `age` is selected);
//! - names every projection (`a` becomes `t.a AS a`, an unnamed one `... AS _col_<i>`);
//! - replaces positions in `GROUP BY` by the projection and in `ORDER BY` by its alias, and,
//!   with a `GROUP BY`, an `ORDER BY` expression equal to a projection by its alias.

use super::{has_aggregate, is_agg, is_number, OptimizeError};
use crate::sqlglot::ast::{Arg, Expr};
use crate::sqlglot::diff::expr_eq;

fn unsupported(what: impl Into<String>) -> OptimizeError {
    OptimizeError::Unsupported(what.into())
}

/// Classes a covered query may contain.
const COVERED: &[&str] = &[
    "Select", "From", "Join", "Table", "TableAlias", "Identifier", "Column", "Literal", "Null", "Boolean", "Star", "Alias",
    "Paren", "Neg", "Not", "And", "Or", "EQ", "NEQ", "GT", "GTE", "LT", "LTE", "Add", "Sub", "Mul", "Div", "Mod",
    "DPipe", "In", "Between", "Like", "Is", "Count", "Sum", "Avg", "Min", "Max", "Distinct", "Case", "If", "Cast",
    "DataType", "Where", "Group", "Having", "Order", "Ordered", "Limit", "Offset", "Anonymous", "Coalesce",
    "Substring", "Length", "Lower", "Upper", "Abs", "Round", "Replace", "Date", "Trim", "StrPosition",
];

/// `exp.to_identifier(name)`: quoted unless the name is a plain identifier
/// (`SAFE_IDENTIFIER_RE`, `^[_a-zA-Z][\w]*$`).
pub fn to_identifier(name: &str) -> Expr {
    let mut chars = name.chars();
    let safe = chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric());
    Expr::new("Identifier").with("this", Arg::Str(name.to_string())).with("quoted", Arg::Bool(!safe))
}

/// `Expr.name` for the covered classes: an identifier's or literal's text, a column's name.
fn name(e: &Expr) -> String {
    match e.class.as_str() {
        "Identifier" | "Literal" => e.str_arg("this").unwrap_or_default().to_string(),
        "Column" => e.child("this").map(name).unwrap_or_default(),
        "Star" => "*".into(),
        _ => String::new(),
    }
}

/// `Expr.output_name` for the covered classes, or `Unsupported` where this port does not know
/// it.
fn output_name(e: &Expr) -> Result<String, OptimizeError> {
    Ok(match e.class.as_str() {
        "Column" | "Literal" | "Star" => name(e),
        "Alias" => e.child("alias").map(name).unwrap_or_default(),
        "Cast" | "Paren" => match e.child("this") {
            Some(inner) if matches!(inner.class.as_str(), "Column" | "Literal") => name(inner),
            _ => return Err(unsupported(format!("the output name of a {} projection", e.class))),
        },
        _ => String::new(),
    })
}

fn column_table(c: &Expr) -> Option<String> {
    c.child("table").map(name)
}

/// Whether `e` is a subquery in a place this port unnests: the query of an `IN`, or an
/// operand of a comparison (a scalar subquery), under `WHERE`.
pub(crate) fn is_unnestable_subquery(e: &Expr, parent: &str, in_where: bool) -> bool {
    e.is("Subquery")
        && in_where
        && (parent == "In" || matches!(parent, "EQ" | "NEQ" | "GT" | "GTE" | "LT" | "LTE"))
        && e.args.iter().all(|(k, _)| k == "this")
        && e.child("this").is_some_and(|s| s.is("Select"))
}

/// Checks that the query is covered. A nested query (`nested`) must read one plain table and
/// hold no subquery itself.
fn gate(select: &Expr, nested: bool) -> Result<(), OptimizeError> {
    fn walk(e: &Expr, parent: &str, in_where: bool, nested: bool, subqueries: &mut usize) -> Result<(), OptimizeError> {
        if e.is("Subquery") {
            if nested || !is_unnestable_subquery(e, parent, in_where) {
                return Err(unsupported("a query with Subquery"));
            }
            *subqueries += 1;
            return gate(e.child("this").expect("checked"), true);
        }
        if !COVERED.contains(&e.class.as_str()) {
            return Err(unsupported(format!("a query with {}", e.class)));
        }
        match e.class.as_str() {
            "In" if e.child("field").is_some() => return Err(unsupported("IN over a field")),
            "Column" if e.child("db").is_some() || e.child("catalog").is_some() => return Err(unsupported("a column with a db")),
            "Column" if e.child("this").is_some_and(|t| t.is("Star")) => return Err(unsupported("t.*")),
            "Distinct" if e.child("on").is_some() => return Err(unsupported("DISTINCT ON")),
            _ => {}
        }
        let in_where = in_where || e.is("Where");
        for (_, v) in &e.args {
            match v {
                Arg::Expr(c) => walk(c, &e.class, in_where, nested, subqueries)?,
                Arg::List(items) => items.iter().try_for_each(|c| walk(c, &e.class, in_where, nested, subqueries))?,
                _ => {}
            }
        }
        Ok(())
    }
    if !select.is("Select") {
        return Err(unsupported(format!("a {} statement", select.class)));
    }
    for (k, v) in &select.args {
        let empty = matches!(v, Arg::Bool(false)) || matches!(v, Arg::List(l) if l.is_empty());
        if !empty && !matches!(k.as_str(), "expressions" | "from_" | "joins" | "where" | "group" | "having" | "order" | "limit" | "offset" | "distinct") {
            return Err(unsupported(format!("a SELECT with `{k}`")));
        }
    }
    let Some(table) = select.child("from_").and_then(|f| f.child("this")) else {
        return Err(unsupported("a SELECT without FROM"));
    };
    if table.is("Subquery") {
        return gate_derived(select, table, nested);
    }
    let mut tables = vec![table];
    for join in select.list("joins") {
        if join.args.iter().any(|(k, v)| !matches!(k.as_str(), "this" | "on" | "kind" | "side") && !matches!(v, Arg::Bool(false))) {
            return Err(unsupported("a join with USING or a method"));
        }
        match join.child("this") {
            Some(t) => tables.push(t),
            None => return Err(unsupported("a join without a table")),
        }
    }
    if nested && tables.len() > 1 {
        return Err(unsupported("a subquery over several tables"));
    }
    let mut names = Vec::new();
    for table in tables {
        if !table.is("Table") || table.args.iter().any(|(k, _)| !matches!(k.as_str(), "this" | "alias")) {
            return Err(unsupported("a source that is not a plain table"));
        }
        let Some(this) = table.child("this").filter(|t| t.is("Identifier")) else {
            return Err(unsupported("a table that is not a name"));
        };
        let alias = table.child("alias");
        if let Some(alias) = alias {
            if alias.args.iter().any(|(k, _)| k != "this") {
                return Err(unsupported("a table alias with columns"));
            }
        }
        let source = alias.and_then(|a| a.child("this")).map(name).unwrap_or_else(|| name(this));
        if names.contains(&source) {
            return Err(unsupported("two sources with one name"));
        }
        names.push(source);
    }
    let mut subqueries = 0;
    walk(select, "", false, nested, &mut subqueries)?;
    if subqueries > 1 {
        return Err(unsupported("several subqueries"));
    }
    // Stars only as a whole projection or COUNT(*).
    fn stars_ok(e: &Expr, parent: &str) -> bool {
        if e.is("Star") && !matches!(parent, "Select" | "Count") {
            return false;
        }
        if e.is("Subquery") {
            return true;
        }
        e.args.iter().all(|(_, v)| match v {
            Arg::Expr(c) => stars_ok(c, &e.class),
            Arg::List(items) => items.iter().all(|c| stars_ok(c, &e.class)),
            _ => true,
        })
    }
    if !stars_ok(select, "") {
        return Err(unsupported("a star inside an expression"));
    }
    Ok(())
}

/// A derived table in FROM is covered when it is the query's only source, over one plain
/// table, and cannot be merged into the query (it has DISTINCT, GROUP BY, HAVING, LIMIT,
/// OFFSET or an aggregate), and the query has no WHERE (sqlglot would push conditions into it).
fn gate_derived(select: &Expr, sub: &Expr, nested: bool) -> Result<(), OptimizeError> {
    if nested {
        return Err(unsupported("a derived table inside a subquery"));
    }
    if !select.list("joins").is_empty() || select.child("where").is_some() {
        return Err(unsupported("a derived table joined or filtered"));
    }
    if sub.args.iter().any(|(k, _)| !matches!(k.as_str(), "this" | "alias")) || sub.child("alias").is_some_and(|a| a.args.iter().any(|(k, _)| k != "this")) {
        return Err(unsupported("a derived table with column aliases"));
    }
    let Some(inner) = sub.child("this").filter(|i| i.is("Select")) else {
        return Err(unsupported("a derived table that is not a SELECT"));
    };
    gate(inner, true)?;
    if select.list("expressions").iter().any(|p| p.is("Star")) || inner.list("expressions").iter().any(|p| p.is("Star")) {
        return Err(unsupported("a star over a derived table (sqlglot expands it)"));
    }
    let unmergeable = ["distinct", "group", "having", "limit", "offset"].iter().any(|k| inner.arg(k).is_some())
        || inner.list("expressions").iter().any(has_aggregate);
    if !unmergeable {
        return Err(unsupported("a derived table sqlglot may merge into the query"));
    }
    for (k, v) in &select.args {
        let empty = matches!(v, Arg::Bool(false)) || matches!(v, Arg::List(l) if l.is_empty());
        if !empty && !matches!(k.as_str(), "expressions" | "from_" | "group" | "having" | "order" | "limit" | "offset" | "distinct") {
            return Err(unsupported(format!("a SELECT with `{k}`")));
        }
    }
    for key in ["expressions", "group", "having", "order"] {
        let found = match select.arg(key) {
            Some(Arg::List(items)) => items.iter().any(|c| c.contains_class("Subquery")),
            Some(Arg::Expr(c)) => c.contains_class("Subquery"),
            _ => false,
        };
        if found {
            return Err(unsupported("a subquery beside a derived table"));
        }
    }
    Ok(())
}

/// Aliases a source table with its own name when it has no alias (`qualify_tables`), and
/// returns its alias identifier.
fn alias_table(table: &mut Expr) -> Expr {
    if table.child("alias").and_then(|a| a.child("this")).is_none() {
        let table_name = name(table.child("this").expect("gated"));
        table.set("alias", Arg::Expr(Box::new(Expr::new("TableAlias").with_expr("this", to_identifier(&table_name)))));
    }
    table.child("alias").and_then(|a| a.child("this")).expect("set above").clone()
}

/// Every column under `e`, with the classes of its ancestors up to `e` (nearest last).
fn columns_mut<'a>(e: &'a mut Expr, path: &mut Vec<String>, out: &mut Vec<(&'a mut Expr, Vec<String>)>) {
    if e.is("Column") {
        out.push((e, path.clone()));
        return;
    }
    if e.is("Subquery") {
        return;
    }
    path.push(e.class.clone());
    for (_, v) in e.args.iter_mut() {
        match v {
            Arg::Expr(c) => columns_mut(c, path, out),
            Arg::List(items) => {
                for c in items.iter_mut() {
                    columns_mut(c, path, out);
                }
            }
            _ => {}
        }
    }
    path.pop();
}

fn columns_ref<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    if e.is("Column") {
        out.push(e);
        return;
    }
    if e.is("Subquery") {
        return;
    }
    for c in e.children() {
        columns_ref(c, out);
    }
}

fn is_int_literal(e: &Expr) -> bool {
    e.is("Literal") && !e.flag("is_string") && e.str_arg("this").is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()))
}

/// `qualify(expression, quote_identifiers=False)` followed by `validate_qualify_columns`, on a
/// covered query.
///
/// Errors: `Unsupported` for a query outside the covered shape; `Raises` where sqlglot raises
/// (a position past the last projection, or one naming a star).
pub fn qualify(select: &mut Expr) -> Result<(), OptimizeError> {
    gate(select, false)?;
    qualify_scope(select, false)
}

/// The subqueries under `e` (not inside one another).
fn subqueries_mut<'a>(e: &'a mut Expr, out: &mut Vec<&'a mut Expr>) {
    if e.is("Subquery") {
        out.push(e);
        return;
    }
    for (_, v) in e.args.iter_mut() {
        match v {
            Arg::Expr(c) => subqueries_mut(c, out),
            Arg::List(items) => items.iter_mut().for_each(|c| subqueries_mut(c, out)),
            _ => {}
        }
    }
}

/// Qualifies one scope: its subqueries first (their own scopes), then itself.
fn qualify_scope(select: &mut Expr, nested: bool) -> Result<(), OptimizeError> {
    {
        let mut subs = Vec::new();
        subqueries_mut(select, &mut subs);
        for sub in subs {
            let inner = sub.child_mut("this").expect("gated");
            qualify_scope(inner, true)?;
        }
    }

    // qualify_tables: each table is aliased with its own name; a derived table without an
    // alias gets `_0`.
    let mut sources: Vec<Expr> = Vec::new();
    let mut derived_outputs: Option<Vec<String>> = None;
    let from = select.child_mut("from_").expect("gated");
    let source = from.child_mut("this").expect("gated");
    if source.is("Subquery") {
        let inner = source.child_mut("this").expect("gated");
        qualify_scope(inner, true)?;
        let mut outputs = Vec::new();
        for p in inner.list("expressions") {
            outputs.push(output_name(p)?);
        }
        derived_outputs = Some(outputs);
        if source.child("alias").and_then(|a| a.child("this")).is_none() {
            source.set("alias", Arg::Expr(Box::new(Expr::new("TableAlias").with_expr("this", to_identifier("_0")))));
        }
        sources.push(source.child("alias").and_then(|a| a.child("this")).expect("set above").clone());
    } else {
        sources.push(alias_table(source));
    }
    if let Some(Arg::List(joins)) = select.args.iter_mut().find(|(k, _)| k == "joins").map(|(_, v)| v) {
        for join in joins.iter_mut() {
            sources.push(alias_table(join.child_mut("this").expect("gated")));
        }
    }
    let source_names: Vec<String> = sources.iter().map(name).collect();
    // With one source, a bare column belongs to it; with several, nothing tells (no schema).
    let single = (sources.len() == 1).then(|| sources[0].clone());

    // The projections' aliases, for the references this port does not expand.
    let projections = select.list("expressions").to_vec();
    let mut alias_names: Vec<String> = Vec::new();
    for p in &projections {
        let mut cols = Vec::new();
        columns_ref(p, &mut cols);
        if cols.iter().any(|c| column_table(c).is_none() && alias_names.contains(&name(c))) {
            return Err(unsupported("a projection that uses another projection's alias"));
        }
        if p.is("Alias") {
            alias_names.push(output_name(p)?);
        }
    }
    for key in ["where", "group", "having"] {
        if let Some(clause) = select.child(key) {
            let mut cols = Vec::new();
            columns_ref(clause, &mut cols);
            if cols.iter().any(|c| column_table(c).is_none() && alias_names.contains(&name(c))) {
                return Err(unsupported(format!("a projection alias used in {key}")));
            }
        }
    }
    // A column naming no source: with one source sqlglot turns it into a struct lookup
    // (not reproduced); with several it cannot be resolved.
    let mut all = Vec::new();
    columns_ref(select, &mut all);
    if let Some(c) = all.iter().find(|c| column_table(c).is_some_and(|t| !source_names.contains(&t))) {
        if nested {
            return Err(unsupported("a subquery that names a table of the outer query (correlated)"));
        }
        if single.is_some() {
            return Err(unsupported("a column qualified with another table's name"));
        }
        return Err(OptimizeError::Raises(format!("Column '{}' could not be resolved", name(c))));
    }

    // The output names before the projections are aliased (`named_selects`).
    let mut named_selects = Vec::new();
    for p in &projections {
        let n = output_name(p)?;
        if !n.is_empty() {
            named_selects.push(n);
        }
    }

    // HAVING's bare columns are qualified through alias-reference expansion; the other
    // clauses' and the projections' through `_qualify_columns`. ORDER BY's bare names that
    // name an output stay as they are.
    // A bare column left in the scope's columns makes `validate_qualify_columns` raise.
    let mut unresolved = None;
    let mut cols = Vec::new();
    let mut path = Vec::new();
    columns_mut(select, &mut path, &mut cols);
    for (col, ancestors) in cols {
        if col.child("table").is_some() {
            continue;
        }
        let nearest = ancestors.iter().rev().find(|c| matches!(c.as_str(), "Select" | "Order" | "Having" | "Star" | "Distinct" | "Table")).map(String::as_str);
        let in_scope = match nearest {
            Some("Order") => !named_selects.contains(&name(col)),
            _ => true,
        };
        if !in_scope {
            continue;
        }
        if let Some(outputs) = &derived_outputs {
            if !outputs.contains(&name(col)) && !outputs.iter().any(|o| o == "*") {
                return Err(unsupported("a column that is not an output of the derived table"));
            }
        }
        match &single {
            Some(table) => col.set("table", Arg::Expr(Box::new(table.clone()))),
            // HAVING's bare columns are outside the scope's columns: they stay as they are.
            None if nearest == Some("Having") => {}
            None => {
                if unresolved.is_none() {
                    unresolved = Some(name(col));
                }
            }
        }
    }

    // qualify_outputs.
    let mut new_projections = Vec::new();
    for (i, p) in select.list("expressions").iter().enumerate() {
        if p.is("Alias") || p.is("Star") {
            new_projections.push(p.clone());
            continue;
        }
        let n = output_name(p)?;
        let n = if n.is_empty() { format!("_col_{i}") } else { n };
        new_projections.push(Expr::new("Alias").with_expr("this", p.clone()).with_expr("alias", to_identifier(&n)));
    }
    select.set("expressions", Arg::List(new_projections.clone()));

    let by_position = |lit: &Expr| -> Result<Expr, OptimizeError> {
        let n: usize = lit.str_arg("this").unwrap_or_default().parse().map_err(|_| OptimizeError::Raises("Unknown output column".into()))?;
        match n.checked_sub(1).and_then(|i| new_projections.get(i)) {
            None => Err(OptimizeError::Raises(format!("Unknown output column: {n}"))),
            Some(p) if !p.is("Alias") => Err(OptimizeError::Raises("a position naming a star".into())),
            Some(p) => Ok(p.clone()),
        }
    };

    // _expand_group_by: a position becomes the projection (a constant one stays a position).
    let has_group = select.child("group").is_some();
    if let Some(Arg::Expr(group)) = select.args.iter_mut().find(|(k, _)| k == "group").map(|(_, v)| v) {
        let mut items = group.list("expressions").to_vec();
        for item in items.iter_mut() {
            if is_int_literal(item) {
                let p = by_position(item)?;
                let this = p.child("this").expect("an alias has this");
                let constant = matches!(this.class.as_str(), "Literal" | "Boolean" | "Null") || is_number(this);
                if !constant {
                    *item = this.clone();
                }
            }
        }
        group.set("expressions", Arg::List(items));
    }

    // _expand_order_by_and_distinct_on.
    if let Some(Arg::Expr(order)) = select.args.iter_mut().find(|(k, _)| k == "order").map(|(_, v)| v) {
        let Some(Arg::List(items)) = order.args.iter_mut().find(|(k, _)| k == "expressions").map(|(_, v)| v) else {
            return Ok(());
        };
        for ordered in items.iter_mut() {
            let Some(Arg::Expr(this)) = ordered.args.iter_mut().find(|(k, _)| k == "this").map(|(_, v)| v) else { continue };
            if is_int_literal(this) {
                let p = by_position(this)?;
                **this = Expr::new("Column").with_expr("this", p.child("alias").expect("alias").clone());
                continue;
            }
            if let Some(table) = &single {
                qualify_in_aggregates(this, table, false);
            }
            if has_group {
                if let Some(p) = new_projections.iter().find(|p| p.child("this").is_some_and(|t| expr_eq(t, this))) {
                    let alias_name = output_name(p)?;
                    **this = Expr::new("Column").with_expr("this", to_identifier(&alias_name));
                }
            }
        }
    }
    match unresolved {
        Some(column) => Err(OptimizeError::Raises(format!("Column '{column}' could not be resolved"))),
        None => Ok(()),
    }
}

/// Qualifies the bare columns inside aggregate functions under `e`.
fn qualify_in_aggregates(e: &mut Expr, table: &Expr, inside: bool) {
    let inside = inside || is_agg(&e.class);
    if e.is("Column") {
        if inside && e.child("table").is_none() {
            e.set("table", Arg::Expr(Box::new(table.clone())));
        }
        return;
    }
    for (_, v) in e.args.iter_mut() {
        match v {
            Arg::Expr(c) => qualify_in_aggregates(c, table, inside),
            Arg::List(items) => items.iter_mut().for_each(|c| qualify_in_aggregates(c, table, inside)),
            _ => {}
        }
    }
}
