//! sqlglot's `simplify` rule (`optimizer/simplify.py`, `Simplifier`) for the conditions this
//! port covers: columns, literals, `NULL`, booleans, comparisons, `AND`/`OR`/`NOT`,
//! parentheses, `IN` lists, `BETWEEN`, `LIKE`, `IS`, arithmetic (integer constants folded, as
//! sqlglot folds them), `CASE`/`IF` with non-constant conditions, casts, and functions whose
//! arguments are such (aggregates included). Non-integer constant folding (Python's
//! `Decimal`), constant conditions, dates and string concatenation are
//! [`OptimizeError::Unsupported`].
//!
//! The traversal is sqlglot's: at each node the pre-order rules (`rewrite_between`,
//! `uniq_sort`, `absorb_and_eliminate`, `simplify_conditionals`), then the children, then the
//! post-order rules (`simplify_not`, `flatten`, `simplify_connectors`, `simplify_literals`,
//! `simplify_equality`, `simplify_parens`, `sort_comparison`), repeated until the tree stops
//! changing (`while_changing`).

use super::{boxed, is_number, OptimizeError};
use crate::sqlglot::ast::{Arg, Expr};
use crate::sqlglot::diff::expr_eq;

fn unsupported(what: impl Into<String>) -> OptimizeError {
    OptimizeError::Unsupported(what.into())
}

// ---- sqlglot's class hierarchy, for the covered classes ----

fn is_comparison_class(c: &str) -> bool {
    matches!(c, "EQ" | "NEQ" | "GT" | "GTE" | "LT" | "LTE")
}

/// `exp.Binary`.
fn is_binary(c: &str) -> bool {
    is_comparison_class(c) || matches!(c, "And" | "Or" | "Like" | "ILike" | "Is" | "Add" | "Sub" | "Mul" | "Div" | "Mod" | "DPipe" | "Glob" | "Dot")
}

/// `exp.Connector`.
fn is_connector(c: &str) -> bool {
    matches!(c, "And" | "Or")
}

/// `exp.Predicate`.
fn is_predicate(c: &str) -> bool {
    is_comparison_class(c) || matches!(c, "Like" | "ILike" | "Is" | "In" | "Between" | "Glob" | "Exists")
}

/// `exp.Unary`.
fn is_unary(c: &str) -> bool {
    matches!(c, "Not" | "Neg" | "Paren")
}

/// `exp.Func` (And and Or are functions too in sqlglot).
fn is_func(c: &str) -> bool {
    crate::sqlglot::generator::is_function_class(c)
}

/// `exp.Condition`.
fn is_condition(c: &str) -> bool {
    matches!(c, "Column" | "Literal" | "Null" | "Boolean") || is_binary(c) || is_predicate(c) || is_unary(c) || is_func(c)
}

/// `SIMPLIFIABLE`: the nodes `_simplify` transforms and descends into.
fn simplifiable(c: &str) -> bool {
    is_binary(c) || is_func(c) || is_predicate(c) || is_unary(c)
}

/// Classes a simplified condition may contain.
fn covered(e: &Expr) -> Result<(), OptimizeError> {
    let c = e.class.as_str();
    let ok = matches!(
        c,
        "Column" | "Identifier" | "Literal" | "Null" | "Boolean" | "Star" | "Paren" | "Not" | "And" | "Or" | "In" | "Between" | "Like" | "Is" | "Distinct"
            | "Add" | "Sub" | "Mul" | "Div" | "Mod" | "Neg" | "DataType"
    ) || is_comparison_class(c)
        || (is_func(c) && !matches!(c, "TryCast" | "Concat" | "ConcatWs" | "Date" | "DateAdd" | "DateSub" | "DateTrunc" | "TimestampTrunc" | "StartsWith" | "Coalesce" | "Rand" | "Randn" | "Exists" | "Timestamp" | "TsOrDsToDate" | "Extract" | "DateDiff"));
    if !ok {
        return Err(unsupported(format!("simplifying {c}")));
    }
    match c {
        "In" if e.child("query").is_some() || e.child("field").is_some() || e.child("unnest").is_some() => {
            return Err(unsupported("simplifying IN over a query"))
        }
        "Like" if e.child("expression").is_some_and(|r| r.is("All") || r.is("Any")) => return Err(unsupported("LIKE ANY")),
        // `_simplify_integer_cast` drops casts of small integers in comparisons.
        "Cast" if e.child("this").is_some_and(|t| t.is("Cast") || is_int_literal(t) || t.is("Neg")) => {
            return Err(unsupported("a cast of an integer literal or of a cast"))
        }
        "Case" if e.child("this").is_some() => return Err(unsupported("CASE x WHEN ...")),
        _ => {}
    }
    for (_, v) in &e.args {
        match v {
            Arg::Expr(x) => covered(x)?,
            Arg::List(items) => items.iter().try_for_each(covered)?,
            _ => {}
        }
    }
    Ok(())
}

// ---- small helpers mirroring sqlglot's ----

fn binary(class: &str, this: Expr, expression: Expr) -> Expr {
    Expr::new(class).with("this", boxed(this)).with("expression", boxed(expression))
}

fn true_() -> Expr {
    Expr::new("Boolean").with("this", Arg::Bool(true))
}

fn false_() -> Expr {
    Expr::new("Boolean").with("this", Arg::Bool(false))
}

fn paren(e: Expr) -> Expr {
    Expr::new("Paren").with("this", boxed(e))
}

/// `Expr.unnest()`: the node under any parentheses.
fn unnest(e: &Expr) -> &Expr {
    let mut e = e;
    while e.is("Paren") {
        match e.child("this") {
            Some(inner) => e = inner,
            None => break,
        }
    }
    e
}

/// `exp._combine(expressions, operator)` (`and_`, `or_`): a left-deep chain, connector
/// operands wrapped in parentheses.
pub(super) fn combine(class: &str, operands: Vec<Expr>) -> Expr {
    let wrap = |e: Expr| if is_connector(&e.class) { paren(e) } else { e };
    let mut it = operands.into_iter();
    let first = it.next().expect("at least one operand");
    let rest: Vec<Expr> = it.collect();
    let mut this = if rest.is_empty() { first } else { wrap(first) };
    for e in rest {
        this = binary(class, this, wrap(e));
    }
    this
}

/// `Expr.flatten(unnest)`: the operands of a chain of `class`, left to right.
fn flatten_operands(e: &Expr, class: &str, unnest_parens: bool, out: &mut Vec<Expr>) {
    if e.class == class {
        for key in ["this", "expression"] {
            if let Some(c) = e.child(key) {
                flatten_operands(c, class, unnest_parens, out);
            }
        }
    } else if unnest_parens {
        out.push(unnest(e).clone());
    } else {
        out.push(e.clone());
    }
}

fn flatten_of(e: &Expr, unnest_parens: bool) -> Vec<Expr> {
    let mut out = Vec::new();
    for key in ["this", "expression"] {
        if let Some(c) = e.child(key) {
            flatten_operands(c, &e.class, unnest_parens, &mut out);
        }
    }
    out
}

fn is_int_literal(e: &Expr) -> bool {
    e.is("Literal") && !e.flag("is_string") && py_int(e.str_arg("this").unwrap_or_default()).is_some()
}

/// Python's `int(text)` for a literal's text (ASCII digits), `None` where Python would read a
/// `Decimal` (`1.5`, `1e3`) or the value is beyond 128 bits.
fn py_int(text: &str) -> Option<i128> {
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse::<i128>().ok()
}

/// `Literal.to_py()` of a number, or of the negation of one, when it is an integer.
fn int_value(e: &Expr) -> Result<Option<i128>, OptimizeError> {
    let (lit, sign) = if e.is("Neg") { (e.child("this").expect("operand"), -1) } else { (e, 1) };
    if !(lit.is("Literal") && !lit.flag("is_string")) {
        return Ok(None);
    }
    match py_int(lit.str_arg("this").unwrap_or_default()) {
        Some(v) => Ok(Some(sign * v)),
        None => Err(unsupported("arithmetic on a number that is not an integer")),
    }
}

/// `exp.Literal.number(n)`: a literal, or the negation of one for a negative number.
fn number(n: i128) -> Expr {
    let lit = Expr::new("Literal").with("this", Arg::Str(n.unsigned_abs().to_string())).with("is_string", Arg::Bool(false));
    if n < 0 {
        Expr::new("Neg").with("this", boxed(lit))
    } else {
        lit
    }
}


/// `exp.CONSTANTS` under an optional negation (`_is_constant`).
fn is_constant(e: &Expr) -> bool {
    let e = if e.is("Neg") { e.child("this").unwrap_or(e) } else { e };
    matches!(e.class.as_str(), "Literal" | "Boolean" | "Null")
}

fn always_true(e: &Expr) -> bool {
    (e.is("Boolean") && e.flag("this")) || (is_number(e) && e.is("Literal") && !is_zero(e))
}

fn is_zero(e: &Expr) -> bool {
    e.is("Literal") && !e.flag("is_string") && e.str_arg("this").and_then(|t| t.parse::<f64>().ok()) == Some(0.0)
}

fn is_false(e: &Expr) -> bool {
    e.is("Boolean") && !e.flag("this")
}

fn is_null(e: &Expr) -> bool {
    e.is("Null")
}

fn always_false(e: &Expr) -> bool {
    is_false(e) || is_null(e) || is_zero(e)
}

// ---- Gen: simplify's pseudo-SQL for sorting and de-duplicating ----

/// `simplify.gen(expression)`: sqlglot's cheap SQL-like text that orders and de-duplicates
/// operands. It is not valid SQL (`x IN (:expressions,1,2)`, `COUNT(STAR,True)`).
pub fn gen(e: &Expr) -> Result<String, OptimizeError> {
    let mut out = String::new();
    gen_into(e, &mut out)?;
    Ok(out)
}

fn gen_into(e: &Expr, out: &mut String) -> Result<(), OptimizeError> {
    let c = e.class.as_str();
    let bin = |op: &str, out: &mut String| -> Result<(), OptimizeError> {
        if let Some(x) = e.child("this") {
            gen_into(x, out)?;
        }
        out.push_str(op);
        if let Some(x) = e.child("expression") {
            gen_into(x, out)?;
        }
        Ok(())
    };
    match c {
        "Add" => bin(" + ", out),
        "And" => bin(" AND ", out),
        "Or" => bin(" OR ", out),
        "Div" => bin(" / ", out),
        "Dot" => bin(".", out),
        "EQ" => bin(" = ", out),
        "GT" => bin(" > ", out),
        "GTE" => bin(" >= ", out),
        "ILike" => bin(" ILIKE ", out),
        "Is" => bin(" IS ", out),
        "Like" => bin(" Like ", out),
        "LT" => bin(" < ", out),
        "LTE" => bin(" <= ", out),
        "Mod" => bin(" % ", out),
        "Mul" => bin(" * ", out),
        "NEQ" => bin(" <> ", out),
        "Sub" => bin(" - ", out),
        "Alias" => {
            if let Some(x) = e.child("this") {
                gen_into(x, out)?;
            }
            out.push_str(" AS ");
            if let Some(x) = e.child("alias") {
                gen_into(x, out)?;
            }
            Ok(())
        }
        "Between" => {
            for (k, sep) in [("this", " BETWEEN "), ("low", " AND "), ("high", "")] {
                if let Some(x) = e.child(k) {
                    gen_into(x, out)?;
                }
                out.push_str(sep);
            }
            Ok(())
        }
        "Boolean" => {
            out.push_str(if e.flag("this") { "TRUE" } else { "FALSE" });
            Ok(())
        }
        "Column" => {
            let parts: Vec<&Expr> = ["catalog", "db", "table", "this"].iter().filter_map(|k| e.child(k)).collect();
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    out.push('.');
                }
                gen_into(p, out)?;
            }
            Ok(())
        }
        "Identifier" => {
            let t = e.str_arg("this").unwrap_or_default();
            if e.flag("quoted") {
                out.push('"');
                out.push_str(t);
                out.push('"');
            } else {
                out.push_str(t);
            }
            Ok(())
        }
        "In" => {
            if let Some(x) = e.child("this") {
                gen_into(x, out)?;
            }
            out.push_str(" IN (");
            gen_args(e, &["expressions", "query", "unnest", "field", "is_global"], out)?;
            out.push(')');
            Ok(())
        }
        "Literal" => {
            let t = e.str_arg("this").unwrap_or_default();
            if e.flag("is_string") {
                out.push('\'');
                out.push_str(t);
                out.push('\'');
            } else {
                out.push_str(t);
            }
            Ok(())
        }
        "Neg" | "Not" => {
            out.push_str(if c == "Neg" { "-" } else { "NOT " });
            if let Some(x) = e.child("this") {
                gen_into(x, out)?;
            }
            Ok(())
        }
        "Null" => {
            out.push_str("NULL");
            Ok(())
        }
        "Paren" => {
            out.push('(');
            if let Some(x) = e.child("this") {
                gen_into(x, out)?;
            }
            out.push(')');
            Ok(())
        }
        "Anonymous" => {
            let name = match e.arg("this") {
                Some(Arg::Str(s)) => crate::pystr::upper(s),
                Some(Arg::Expr(id)) if id.is("Identifier") => {
                    let t = id.str_arg("this").unwrap_or_default();
                    if id.flag("quoted") {
                        format!("\"{t}\"")
                    } else {
                        crate::pystr::upper(t)
                    }
                }
                _ => return Err(unsupported("an Anonymous function without a name")),
            };
            out.push_str(&name);
            out.push('(');
            gen_list(e.list("expressions"), out)?;
            out.push(')');
            Ok(())
        }
        "Star" => {
            if !e.args.is_empty() {
                return Err(unsupported("a star with modifiers"));
            }
            out.push_str("STAR");
            Ok(())
        }
        "Distinct" => {
            out.push_str("DISTINCT");
            if e.args.iter().any(|(k, v)| k == "expressions" && !matches!(v, Arg::List(l) if l.is_empty()) || k == "on") {
                out.push(' ');
                gen_args(e, &["expressions", "on"], out)?;
            }
            Ok(())
        }
        _ if is_func(c) => {
            out.push_str(crate::sqlglot::generator::function_sql_name(c).unwrap_or(c));
            out.push('(');
            let mut first = true;
            for (_, v) in &e.args {
                if !first {
                    out.push(',');
                }
                first = false;
                gen_value(v, out)?;
            }
            out.push(')');
            Ok(())
        }
        _ => Err(unsupported(format!("simplify's text of {c}"))),
    }
}

fn gen_value(v: &Arg, out: &mut String) -> Result<(), OptimizeError> {
    match v {
        Arg::Expr(x) => gen_into(x, out),
        Arg::List(items) => gen_list(items, out),
        Arg::Str(s) => {
            out.push_str(s);
            Ok(())
        }
        Arg::Bool(b) => {
            out.push_str(if *b { "True" } else { "False" });
            Ok(())
        }
    }
}

fn gen_list(items: &[Expr], out: &mut String) -> Result<(), OptimizeError> {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        gen_into(x, out)?;
    }
    Ok(())
}

/// `Gen._args(node, arg_index)`: `:key,value` for each set argument, in `arg_types` order.
fn gen_args(e: &Expr, keys: &[&str], out: &mut String) -> Result<(), OptimizeError> {
    let mut first = true;
    for k in keys {
        if let Some(v) = e.arg(k) {
            if !first {
                out.push(',');
            }
            first = false;
            out.push(':');
            out.push_str(k);
            out.push(',');
            gen_value(v, out)?;
        }
    }
    Ok(())
}

// ---- the rules ----

const COMPLEMENTS: &[(&str, &str)] = &[("LT", "GTE"), ("GT", "LTE"), ("LTE", "GT"), ("GTE", "LT"), ("EQ", "NEQ"), ("NEQ", "EQ")];
const INVERSES: &[(&str, &str)] = &[("LT", "GT"), ("GT", "LT"), ("LTE", "GTE"), ("GTE", "LTE")];

fn lookup(table: &[(&str, &'static str)], c: &str) -> Option<&'static str> {
    table.iter().find(|(k, _)| *k == c).map(|(_, v)| *v)
}

fn rewrite_between(e: Expr, parent: Option<&str>) -> Expr {
    if !e.is("Between") {
        return e;
    }
    let this = e.child("this").cloned().expect("BETWEEN has a subject");
    let low = e.child("low").cloned().expect("BETWEEN has a low bound");
    let high = e.child("high").cloned().expect("BETWEEN has a high bound");
    let and = combine("And", vec![binary("GTE", this.clone(), low), binary("LTE", this, high)]);
    if parent == Some("Not") {
        paren(and)
    } else {
        and
    }
}

/// `uniq_sort`; the flag says whether it built a new node.
fn uniq_sort(e: Expr, parent: Option<&str>, root: bool) -> Result<(Expr, bool), OptimizeError> {
    if !is_connector(&e.class) || !(root || parent != Some(e.class.as_str())) {
        return Ok((e, false));
    }
    let flattened = flatten_of(&e, true);
    // {gen(e): e}: first position of each text, last node with it.
    let mut deduped: Vec<(String, Expr)> = Vec::new();
    for op in &flattened {
        let key = gen(op)?;
        if let Some(slot) = deduped.iter_mut().find(|(k, _)| *k == key) {
            slot.1 = op.clone();
        } else {
            deduped.push((key, op.clone()));
        }
    }
    let sorted = deduped.windows(2).all(|w| w[1].0 >= w[0].0);
    if !sorted {
        let mut arr = deduped;
        arr.sort_by(|a, b| a.0.cmp(&b.0));
        return Ok((combine(&e.class, arr.into_iter().map(|(_, x)| x).collect()), true));
    }
    if deduped.len() < flattened.len() {
        if deduped.len() == 1 {
            return Ok((combine("And", vec![flattened[0].clone(), true_()]), true));
        }
        return Ok((combine(&e.class, deduped.into_iter().map(|(_, x)| x).collect()), true));
    }
    Ok((e, false))
}

fn absorb_and_eliminate(e: Expr, parent: Option<&str>, root: bool) -> Result<Expr, OptimizeError> {
    if !is_connector(&e.class) || !(root || parent != Some(e.class.as_str())) {
        return Ok(e);
    }
    let kind = if e.is("And") { "Or" } else { "And" };
    let ops = flatten_of(&e, true);
    if ops.iter().all(|op| op.class != kind) {
        return Ok(e);
    }
    // Absorption and elimination across nested connectors are not reproduced yet.
    Err(unsupported("AND and OR nested in one condition"))
}

fn simplify_not(e: Expr, typed: bool) -> Result<Expr, OptimizeError> {
    if !e.is("Not") {
        return Ok(e);
    }
    let this = e.child("this").expect("NOT has an operand");
    if is_null(this) {
        return Err(unsupported("NOT NULL"));
    }
    if let Some(complement) = lookup(COMPLEMENTS, &this.class) {
        let (l, r) = (this.child("this").cloned().expect("left"), this.child("expression").cloned().expect("right"));
        return Ok(binary(complement, l, r));
    }
    if this.is("Paren") {
        let condition = unnest(this);
        if is_connector(&condition.class) || is_null(condition) {
            return Err(unsupported("NOT over a parenthesized AND or OR"));
        }
    }
    if always_true(this) {
        return Ok(false_());
    }
    if is_false(this) {
        return Ok(true_());
    }
    if this.is("Not") {
        // NOT NOT x is x when x is typed BOOLEAN: after `annotate_types`, a predicate; before
        // it (in `pushdown_predicates`), nothing is typed and the double negation stays.
        let inner = this.child("this").expect("NOT has an operand");
        if !typed {
            return Ok(e);
        }
        if is_boolean_typed(inner) && !inner.is("Paren") {
            return Ok(inner.clone());
        }
        return Err(unsupported("NOT NOT over a value that may not be boolean"));
    }
    Ok(e)
}

/// `flatten`: a same-class child in parentheses loses them.
fn flatten(mut e: Expr) -> Expr {
    if !is_connector(&e.class) {
        return e;
    }
    let class = e.class.clone();
    for (_, v) in e.args.iter_mut() {
        if let Arg::Expr(child) = v {
            let inner = unnest(child);
            if inner.class == class && child.is("Paren") {
                **child = inner.clone();
            }
        }
    }
    e
}

/// `_simplify_comparison` for two comparisons that share an operand.
fn simplify_comparison(e: &Expr, left: &Expr, right: &Expr, or: bool) -> Result<Option<Expr>, OptimizeError> {
    let is_cmp = |x: &Expr| is_comparison_class(&x.class) || x.is("Is");
    if !(is_cmp(left) && is_cmp(right)) {
        return Ok(None);
    }
    let largs = [left.child("this").expect("l"), left.child("expression").expect("r")];
    let rargs = [right.child("this").expect("l"), right.child("expression").expect("r")];
    let matching: Vec<&Expr> = largs.iter().copied().filter(|a| rargs.iter().any(|b| expr_eq(a, b))).collect();
    let columns: Vec<&Expr> = matching.iter().copied().filter(|m| !is_constant(m)).collect();
    if matching.is_empty() || columns.is_empty() {
        return Ok(None);
    }
    // `first(largs - columns)`: the set difference is unordered in Python; with both sides
    // equal there is nothing left and sqlglot keeps the expression.
    let lrest: Vec<&Expr> = largs.iter().copied().filter(|a| !columns.iter().any(|c| expr_eq(a, c))).collect();
    let rrest: Vec<&Expr> = rargs.iter().copied().filter(|a| !columns.iter().any(|c| expr_eq(a, c))).collect();
    if lrest.len() != 1 || rrest.len() != 1 {
        if lrest.is_empty() || rrest.is_empty() {
            return Ok(Some(e.clone()));
        }
        return Err(unsupported("comparisons whose operands match in an order Python's sets decide"));
    }
    let (l, r) = (lrest[0], rrest[0]);
    #[derive(PartialEq, PartialOrd)]
    enum V {
        N(f64),
        S(String),
    }
    let value = |x: &Expr| -> Option<V> {
        if x.is("Literal") && !x.flag("is_string") {
            x.str_arg("this").and_then(|t| t.parse::<f64>().ok()).map(V::N)
        } else if x.is("Literal") {
            x.str_arg("this").map(|t| V::S(t.to_string()))
        } else {
            None
        }
    };
    let (lv, rv) = match (value(l), value(r)) {
        (Some(V::N(a)), Some(V::N(b))) => (V::N(a), V::N(b)),
        (Some(V::S(a)), Some(V::S(b))) => (V::S(a), V::S(b)),
        // Otherwise sqlglot tries the bounds as dates, which only a cast gives.
        _ if matches!(l.class.as_str(), "Neg" | "Cast" | "TsOrDsToDate") || matches!(r.class.as_str(), "Neg" | "Cast" | "TsOrDsToDate") => {
            return Err(unsupported("comparing bounds that may be dates or negative numbers"));
        }
        _ => return Ok(None),
    };
    let lt_lte = |c: &str| matches!(c, "LT" | "LTE");
    let gt_gte = |c: &str| matches!(c, "GT" | "GTE");
    for ((a, av), (b, bv)) in [((left, &lv), (right, &rv)), ((right, &rv), (left, &lv))] {
        let (ac, bc) = (a.class.as_str(), b.class.as_str());
        if lt_lte(ac) && lt_lte(bc) {
            return Ok(Some(if if or { av > bv } else { av <= bv } { left.clone() } else { right.clone() }));
        }
        if gt_gte(ac) && gt_gte(bc) {
            return Ok(Some(if if or { av < bv } else { av >= bv } { left.clone() } else { right.clone() }));
        }
        if !or {
            if ac == "LT" && gt_gte(bc) {
                if av <= bv {
                    return Ok(Some(false_()));
                }
            } else if ac == "GT" && lt_lte(bc) {
                if av >= bv {
                    return Ok(Some(false_()));
                }
            } else if ac == "EQ" {
                match bc {
                    "LT" => return Ok(Some(if av >= bv { false_() } else { a.clone() })),
                    "LTE" => return Ok(Some(if av > bv { false_() } else { a.clone() })),
                    "GT" => return Ok(Some(if av <= bv { false_() } else { a.clone() })),
                    "GTE" => return Ok(Some(if av < bv { false_() } else { a.clone() })),
                    "NEQ" => return Ok(Some(if av == bv { false_() } else { a.clone() })),
                    _ => {}
                }
            }
        }
    }
    Ok(None)
}

fn connector_pair(e: &Expr, left: &Expr, right: &Expr) -> Result<Option<Expr>, OptimizeError> {
    if e.is("And") {
        if is_false(left) || is_false(right) || is_zero(left) || is_zero(right) {
            return Ok(Some(false_()));
        }
        if (is_null(left) && is_null(right)) || (is_null(left) && always_true(right)) || (always_true(left) && is_null(right)) {
            return Ok(Some(Expr::new("Null")));
        }
        if always_true(left) && always_true(right) {
            return Ok(Some(true_()));
        }
        if always_true(left) {
            return Ok(Some(right.clone()));
        }
        if always_true(right) {
            return Ok(Some(left.clone()));
        }
        simplify_comparison(e, left, right, false)
    } else {
        if always_true(left) || always_true(right) {
            return Ok(Some(true_()));
        }
        if (is_null(left) && is_null(right)) || (is_null(left) && always_false(right)) || (always_false(left) && is_null(right)) {
            return Ok(Some(Expr::new("Null")));
        }
        if is_false(left) {
            return Ok(Some(right.clone()));
        }
        if is_false(right) {
            return Ok(Some(left.clone()));
        }
        simplify_comparison(e, left, right, true)
    }
}

/// `_flat_simplify`: pairs of operands combined by `pair` until none combine.
fn flat_simplify(
    e: Expr,
    parent: Option<&str>,
    root: bool,
    pair: impl Fn(&Expr, &Expr, &Expr) -> Result<Option<Expr>, OptimizeError>,
) -> Result<Expr, OptimizeError> {
    if !(root || parent != Some(e.class.as_str())) {
        return Ok(e);
    }
    let mut queue: std::collections::VecDeque<Expr> = flatten_of(&e, false).into();
    let size = queue.len();
    let mut operands = Vec::new();
    while let Some(a) = queue.pop_front() {
        let mut combined = None;
        for (i, b) in queue.iter().enumerate() {
            if let Some(result) = pair(&e, &a, b)? {
                if !expr_eq(&result, &e) || result.class != e.class {
                    combined = Some((i, result));
                    break;
                }
            }
        }
        match combined {
            Some((i, result)) => {
                queue.remove(i);
                queue.push_front(result);
            }
            None => operands.push(a),
        }
    }
    if operands.len() < size {
        let mut it = operands.into_iter();
        let mut acc = it.next().expect("one operand at least");
        for b in it {
            acc = binary(&e.class, acc, b);
        }
        return Ok(acc);
    }
    Ok(e)
}

/// The types sqlglot would annotate as BOOLEAN, among the covered results.
fn is_boolean_typed(e: &Expr) -> bool {
    let e = unnest(e);
    is_predicate(&e.class) || matches!(e.class.as_str(), "Not" | "Boolean" | "And" | "Or")
}

fn simplify_connectors(e: Expr, parent: Option<&str>, root: bool) -> Result<Expr, OptimizeError> {
    if !is_connector(&e.class) {
        return Ok(e);
    }
    let result = flat_simplify(e, parent, root, connector_pair)?;
    // A connector reduced to a non-boolean value gets `AND TRUE` unless it sits in another
    // connector; that path is not reproduced.
    if !(is_connector(&result.class) || result.is("Boolean")) && !is_boolean_typed(&result) && !parent.is_some_and(is_connector) {
        return Err(unsupported("a connector reduced to a value that is not boolean"));
    }
    Ok(result)
}

fn simplify_literals(e: Expr, parent: Option<&str>, root: bool) -> Result<Expr, OptimizeError> {
    if is_binary(&e.class) && !is_connector(&e.class) {
        let l = e.child("this").expect("left");
        let r = e.child("expression").expect("right");
        if e.is("Is") && (l.is("Literal") || is_null(l)) && is_null(unnest(r)) {
            return Err(unsupported("IS NULL over a constant"));
        }
        if is_comparison_class(&e.class) || matches!(e.class.as_str(), "Is" | "Like" | "ILike" | "Glob") {
            if is_constant(l) && is_constant(r) && !is_null(l) && !is_null(r) {
                return Err(unsupported("comparing two constants"));
            }
            if parent == Some("If") && (is_null(l) || is_null(r)) {
                return Err(unsupported("a comparison with NULL as an IF condition"));
            }
            return Ok(e);
        }
        if matches!(e.class.as_str(), "Add" | "Sub" | "Mul" | "Div" | "Mod") {
            return flat_fold(e, parent, root);
        }
        return Err(unsupported(format!("simplifying {}", e.class)));
    }
    if e.is("Neg") {
        if e.child("this").is_some_and(|t| t.is("Neg")) {
            let inner = e.child("this").and_then(|t| t.child("this")).cloned().expect("operand");
            return Ok(inner);
        }
        return Ok(e);
    }
    Ok(e)
}

/// `_flat_simplify(expression, _simplify_binary)` for an arithmetic chain: pairs of integer
/// operands folded (`+` and `*` always, `-` when both sit under the same `-`; integer `/` and
/// `%` never), as sqlglot folds them.
fn flat_fold(e: Expr, parent: Option<&str>, root: bool) -> Result<Expr, OptimizeError> {
    if !(root || parent != Some(e.class.as_str())) {
        return Ok(e);
    }
    // Operands with the position of the chain node they hang under (`None` once folded).
    fn operands(e: &Expr, class: &str, id: &mut usize, out: &mut Vec<(Expr, Option<usize>)>) {
        let me = *id;
        *id += 1;
        for key in ["this", "expression"] {
            if let Some(c) = e.child(key) {
                if c.class == class {
                    operands(c, class, id, out);
                } else {
                    out.push((c.clone(), Some(me)));
                }
            }
        }
    }
    let mut list = Vec::new();
    operands(&e, &e.class, &mut 0, &mut list);
    let mut queue: std::collections::VecDeque<(Expr, Option<usize>)> = list.into();
    let size = queue.len();
    let mut kept = Vec::new();
    while let Some((a, pa)) = queue.pop_front() {
        let mut folded = None;
        for (i, (b, pb)) in queue.iter().enumerate() {
            let (Some(va), Some(vb)) = (int_value(&a)?, int_value(b)?) else {
                if (is_number(&a) && is_number(b)) || (a.is("Literal") && a.flag("is_string") && b.is("Literal") && b.flag("is_string")) {
                    // Two non-integer numbers, or two strings: not reproduced.
                    if !(int_value(&a)?.is_some() || int_value(b)?.is_some()) {
                        return Err(unsupported("arithmetic on constants that are not integers"));
                    }
                }
                continue;
            };
            let result = match e.class.as_str() {
                "Add" => va.checked_add(vb),
                "Mul" => va.checked_mul(vb),
                "Sub" if pa == *pb => va.checked_sub(vb),
                _ => continue,
            };
            let Some(result) = result else {
                return Err(unsupported("integer arithmetic beyond 128 bits"));
            };
            folded = Some((i, number(result)));
            break;
        }
        match folded {
            Some((i, result)) => {
                queue.remove(i);
                queue.push_front((result, None));
            }
            None => kept.push(a),
        }
    }
    if kept.len() < size {
        let mut it = kept.into_iter();
        let mut acc = it.next().expect("one operand at least");
        for b in it {
            acc = binary(&e.class, acc, b);
        }
        return Ok(acc);
    }
    Ok(e)
}

/// `simplify_equality`: `x + 1 = 3` becomes `x = 3 - 1` (and the same with `-`, or with the
/// number first in the sum), for a comparison whose right side is a number.
fn simplify_equality(e: Expr) -> Result<Expr, OptimizeError> {
    if !(is_comparison_class(&e.class) || e.is("Is")) {
        return Ok(e);
    }
    let l = e.child("this").expect("left");
    let r = e.child("expression").expect("right");
    let inverse = match l.class.as_str() {
        "Add" => "Sub",
        "Sub" => "Add",
        _ => return Ok(e),
    };
    if !is_number(r) {
        if r.is("Cast") || r.is("Date") {
            return Err(unsupported("simplify_equality with a date"));
        }
        return Ok(e);
    }
    let (a, b) = (l.child("this").expect("left"), l.child("expression").expect("right"));
    let (a, b) = if !is_number(a) && is_number(b) {
        (a, b)
    } else if !is_number(b) && is_number(a) {
        (b, a)
    } else {
        return Ok(e);
    };
    Ok(binary(&e.class, a.clone(), binary(inverse, r.clone(), b.clone())))
}

/// `simplify_conditionals`: a `CASE` or `IF` whose condition is a constant. Not reproduced:
/// such a query is refused; others are left as they are.
fn simplify_conditionals(e: Expr, parent: Option<&str>) -> Result<Expr, OptimizeError> {
    let constant = |c: Option<&Expr>| c.is_some_and(|c| always_true(c) || always_false(c));
    if e.is("Case") && e.list("ifs").iter().any(|i| constant(i.child("this"))) {
        return Err(unsupported("a CASE with a constant condition"));
    }
    if e.is("If") && parent != Some("Case") && constant(e.child("this")) {
        return Err(unsupported("an IF with a constant condition"));
    }
    Ok(e)
}

fn simplify_parens(e: Expr, parent: Option<&str>) -> Expr {
    if !e.is("Paren") {
        return e;
    }
    let this = e.child("this").expect("parenthesized").clone();
    let parent_c = parent.unwrap_or("");
    let parent_is_predicate = is_predicate(parent_c);
    if this.is("Select") {
        return e;
    }
    if is_predicate(&this.class) && !(parent_is_predicate || parent_c == "Neg" || (is_binary(parent_c) && !is_connector(parent_c))) {
        return this;
    }
    let parent_is_condition = is_condition(parent_c) || is_binary(parent_c);
    if !parent_is_condition
        || parent_c == "Paren"
        || (!is_binary(&this.class) && !(matches!(this.class.as_str(), "Not" | "Is") && parent_is_predicate))
        || (this.is("Add") && parent_c == "Add")
        || (this.is("Mul") && parent_c == "Mul")
        || (this.is("Mul") && matches!(parent_c, "Add" | "Sub"))
    {
        return this;
    }
    e
}

fn sort_comparison(e: Expr) -> Result<Expr, OptimizeError> {
    if lookup(COMPLEMENTS, &e.class).is_none() {
        return Ok(e);
    }
    let l = e.child("this").expect("left");
    let r = e.child("expression").expect("right");
    let (l_column, r_column) = (l.is("Column"), r.is("Column"));
    let (l_const, r_const) = (is_constant(l), is_constant(r));
    if (l_column && !r_column) || (r_const && !l_const) {
        return Ok(e);
    }
    if (r_column && !l_column) || (l_const && !r_const) || gen(l)? > gen(r)? {
        let class = lookup(INVERSES, &e.class).unwrap_or(&e.class).to_string();
        return Ok(binary(&class, r.clone(), l.clone()));
    }
    Ok(e)
}

/// One pass of `_simplify` over `e`, whose parent has class `parent`.
fn simplify_pass(e: Expr, parent: Option<&str>, root: bool, typed: bool) -> Result<Expr, OptimizeError> {
    if !simplifiable(&e.class) {
        return Ok(e);
    }
    // Pre-order. A rule that builds a new node hands the next rules a node with no parent
    // yet (it is attached afterwards), so they do not see the parent's class.
    let mut pre_parent = parent;
    let was_between = e.is("Between");
    let mut node = rewrite_between(e, parent);
    if was_between {
        pre_parent = None;
    }
    let (sorted, rebuilt) = uniq_sort(node, pre_parent, root)?;
    node = sorted;
    if rebuilt {
        pre_parent = None;
    }
    node = absorb_and_eliminate(node, pre_parent, root)?;
    node = simplify_conditionals(node, pre_parent)?;
    // Children, with this node as their parent.
    let class = node.class.clone();
    for (_, v) in node.args.iter_mut() {
        match v {
            Arg::Expr(child) => {
                let c = std::mem::replace(&mut **child, Expr::new("Null"));
                **child = simplify_pass(c, Some(&class), false, typed)?;
            }
            Arg::List(items) => {
                for child in items.iter_mut() {
                    let c = std::mem::replace(child, Expr::new("Null"));
                    *child = simplify_pass(c, Some(&class), false, typed)?;
                }
            }
            _ => {}
        }
    }
    // Post-order.
    node = simplify_not(node, typed)?;
    node = flatten(node);
    node = simplify_connectors(node, parent, root)?;
    node = simplify_literals(node, parent, root)?;
    node = simplify_equality(node)?;
    node = simplify_parens(node, parent);
    node = sort_comparison(node)?;
    Ok(node)
}

/// Whether the condition has a constant as an operand of `AND` or `OR`.
fn has_constant_operand(e: &Expr) -> bool {
    if is_connector(&e.class) && flatten_of(e, true).iter().any(|op| matches!(op.class.as_str(), "Boolean" | "Null" | "Literal")) {
        return true;
    }
    e.args.iter().any(|(_, v)| match v {
        Arg::Expr(c) => has_constant_operand(c),
        Arg::List(items) => items.iter().any(has_constant_operand),
        _ => false,
    })
}

/// `simplify(condition)` as `pushdown_predicates` calls it, before `annotate_types`: the
/// condition's nodes have no types yet, so a connector that reduces to one comparison keeps an
/// `AND TRUE` for a later pass. That only shows when the condition already has a constant
/// operand; such conditions are not reproduced.
pub fn simplify_untyped_condition(e: Expr, parent: Option<&str>) -> Result<Expr, OptimizeError> {
    if has_constant_operand(&e) {
        return Err(unsupported("simplifying a constant operand before types are known"));
    }
    simplify_while_changing(e, parent, false)
}

/// `while_changing(node, _simplify)` on a condition whose parent has class `parent`, its
/// nodes typed (`annotate_types` ran).
pub fn simplify_condition(e: Expr, parent: Option<&str>) -> Result<Expr, OptimizeError> {
    simplify_while_changing(e, parent, true)
}

fn simplify_while_changing(e: Expr, parent: Option<&str>, typed: bool) -> Result<Expr, OptimizeError> {
    covered(&e)?;
    let mut current = e;
    for _ in 0..100 {
        let next = simplify_pass(current.clone(), parent, true, typed)?;
        if expr_eq(&next, &current) {
            return Ok(next);
        }
        current = next;
    }
    Err(unsupported("a simplification that does not settle"))
}

/// `Simplifier.simplify(query)`: every top-most condition of the query simplified (group-by
/// expressions, and projections or a HAVING that contain one, are left as they are), then a
/// `WHERE TRUE` dropped and a join `ON TRUE` made a cross join.
pub fn simplify_query(select: &mut Expr) -> Result<(), OptimizeError> {
    if matches!(select.class.as_str(), "Union" | "Intersect" | "Except") {
        let class = select.class.clone();
        for (k, v) in select.args.iter_mut() {
            match (k.as_str(), v) {
                ("this" | "expression", Arg::Expr(side)) => simplify_query(side)?,
                (_, Arg::Expr(c)) => simplify_under(c, &class)?,
                (_, Arg::List(items)) => {
                    for c in items.iter_mut() {
                        simplify_under(c, &class)?;
                    }
                }
                _ => {}
            }
        }
        return Ok(());
    }
    // Group keys and the projections or HAVING containing one are final.
    let groups: Vec<Expr> = select.child("group").map(|g| g.list("expressions").to_vec()).unwrap_or_default();
    let contains_group = |e: &Expr| -> bool {
        fn walk(e: &Expr, groups: &[Expr]) -> bool {
            if groups.iter().any(|g| expr_eq(g, e)) {
                return true;
            }
            e.children().any(|c| walk(c, groups))
        }
        walk(e, &groups)
    };
    let final_projection: Vec<bool> = select.list("expressions").iter().map(|p| !groups.is_empty() && contains_group(p)).collect();
    let final_having = !groups.is_empty() && select.child("having").is_some_and(contains_group);

    let mut i = 0;
    for (k, v) in select.args.iter_mut() {
        match (k.as_str(), v) {
            ("with_", Arg::Expr(with)) => {
                if let Some(Arg::List(ctes)) = with.args.iter_mut().find(|(k, _)| k == "expressions").map(|(_, v)| v) {
                    for cte in ctes.iter_mut() {
                        if let Some(Arg::Expr(q)) = cte.args.iter_mut().find(|(k, _)| k == "this").map(|(_, v)| v) {
                            simplify_query(q)?;
                        }
                    }
                }
            }
            ("expressions", Arg::List(items)) => {
                for (p, is_final) in items.iter_mut().zip(&final_projection) {
                    if *is_final {
                        continue;
                    }
                    simplify_under(p, "Select")?;
                }
            }
            ("group", _) => {}
            ("having", Arg::Expr(h)) if final_having => {
                let _ = h;
            }
            (_, Arg::Expr(c)) => simplify_under(c, "Select")?,
            (_, Arg::List(items)) => {
                for c in items.iter_mut() {
                    simplify_under(c, "Select")?;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let _ = i;
    if select.child("where").and_then(|w| w.child("this")).is_some_and(always_true) {
        select.unset("where");
    }
    if let Some(Arg::List(joins)) = select.args.iter_mut().find(|(k, _)| k == "joins").map(|(_, v)| v) {
        for join in joins.iter_mut() {
            let on_true = join.child("on").is_some_and(always_true);
            let side = join.str_arg("side").map(crate::pystr::upper).unwrap_or_default();
            let kind = join.str_arg("kind").map(crate::pystr::upper).unwrap_or_default();
            let ok = matches!((side.as_str(), kind.as_str()), ("", "") | ("", "INNER") | ("RIGHT", "") | ("RIGHT", "OUTER"));
            if on_true && join.arg("using").is_none() && join.arg("method").is_none() && ok {
                join.unset("on");
                join.unset("side");
                join.set("kind", Arg::Str("CROSS".into()));
            }
        }
    }
    Ok(())
}

/// Walks a non-condition node (`Where`, `Alias`, `Ordered`, `Join`, ...) and simplifies the
/// top-most conditions under it.
fn simplify_under(e: &mut Expr, parent: &str) -> Result<(), OptimizeError> {
    if is_condition(&e.class) {
        let c = std::mem::replace(e, Expr::new("Null"));
        *e = simplify_condition(c, Some(parent))?;
        return Ok(());
    }
    if matches!(e.class.as_str(), "Select" | "Subquery" | "Union" | "Intersect" | "Except") {
        return Err(unsupported("simplifying a nested query"));
    }
    let class = e.class.clone();
    for (_, v) in e.args.iter_mut() {
        match v {
            Arg::Expr(c) => simplify_under(c, &class)?,
            Arg::List(items) => {
                for c in items.iter_mut() {
                    simplify_under(c, &class)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}
