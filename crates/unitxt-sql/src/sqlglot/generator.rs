//! sqlglot's SQL generator (`sqlglot/generator.py`, `Generator`) for the default dialect,
//! without pretty-printing: `Expr.sql()` and `Expr.sql(normalize=True)`.
//!
//! Each node class is printed as sqlglot's `<class>_sql` method prints it; function classes
//! without a method of their own print as `NAME(arg, ...)` with their arguments in
//! `arg_types` order (`function_fallback_sql`). A class, or an argument of a class, that this
//! port does not print is [`Unsupported`], never guessed.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::ast::{Arg, Expr};
use super::generator_tables::{DATA_TYPES, FUNCS};
use crate::pystr;

/// The generator met a node class or argument it does not reproduce; the string names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sqlglot's generator is not reproduced for {0}")]
pub struct Unsupported(pub String);

/// Options of sqlglot's `Generator`, as far as they are reproduced.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `normalize=True`: unquoted identifiers are lower-cased.
    pub normalize: bool,
    /// `comments=False`: comments are left out.
    pub skip_comments: bool,
}

/// sqlglot's `expression.sql(dialect=None, **options)`: the SQL of `e`, stripped, comments
/// included.
pub fn sql(e: &Expr, options: Options) -> Result<String, Unsupported> {
    let g = Gen { o: options };
    Ok(pystr::strip(&g.sql(e)?).to_string())
}

/// A function class: its SQL name, its argument keys, and whether it has a method of its own.
type FuncInfo = (&'static str, &'static [&'static str], bool);

/// Function classes by name.
static FUNC_TABLE: LazyLock<HashMap<&'static str, FuncInfo>> =
    LazyLock::new(|| FUNCS.iter().map(|(c, n, a, m)| (*c, (*n, *a, *m))).collect());

/// Whether `class` is one of sqlglot's function classes (`exp.Func`).
pub(crate) fn is_function_class(class: &str) -> bool {
    FUNC_TABLE.contains_key(class)
}

/// The name `Func.sql_name()` gives a function class.
pub(crate) fn function_sql_name(class: &str) -> Option<&'static str> {
    FUNC_TABLE.get(class).map(|(n, _, _)| *n)
}

static TYPE_SQL: LazyLock<HashMap<&'static str, &'static str>> = LazyLock::new(|| DATA_TYPES.iter().copied().collect());

/// The classes whose comments `maybe_comment` drops (`EXCLUDE_COMMENTS`: `Binary` subclasses
/// and set operations): their comments are printed next to the operator instead.
fn comments_excluded(class: &str) -> bool {
    binary_op(class).is_some() || matches!(class, "Union" | "Intersect" | "Except" | "And" | "Or" | "Xor" | "Pow" | "Dot" | "Escape")
}

/// The classes whose comments go before them (`WITH_SEPARATED_COMMENTS`).
fn comments_separated(class: &str) -> bool {
    matches!(
        class,
        "Command" | "Create" | "Describe" | "Delete" | "Drop" | "From" | "Insert" | "Join" | "Order" | "Group" | "Having" | "Select" | "Union" | "Intersect" | "Except" | "Update" | "Where" | "With"
    )
}

/// The operator `binary()` prints for a binary class.
fn binary_op(class: &str) -> Option<&'static str> {
    Some(match class {
        "EQ" => "=",
        "NEQ" => "<>",
        "GT" => ">",
        "GTE" => ">=",
        "LT" => "<",
        "LTE" => "<=",
        "Add" => "+",
        "Sub" => "-",
        "Mul" => "*",
        "Mod" => "%",
        "DPipe" => "||",
        "Is" => "IS",
        "Glob" => "GLOB",
        "Escape" => "ESCAPE",
        "BitwiseRightShift" => ">>",
        "BitwiseLeftShift" => "<<",
        "BitwiseAnd" => "&",
        "BitwiseOr" => "|",
        "BitwiseXor" => "^",
        "NullSafeEQ" => "IS NOT DISTINCT FROM",
        "NullSafeNEQ" => "IS DISTINCT FROM",
        _ => return None,
    })
}

struct Gen {
    o: Options,
}

impl Gen {
    /// Fails unless every argument of `e` is one of `keys` (an empty list counts as unset; a
    /// `False` flag does not: some generators print it, `NOT INDEXED` for one).
    fn only(&self, e: &Expr, keys: &[&str]) -> Result<(), Unsupported> {
        for (k, v) in &e.args {
            let empty = matches!(v, Arg::List(l) if l.is_empty());
            if !empty && !keys.contains(&k.as_str()) {
                return Err(Unsupported(format!("argument `{k}` of {}", e.class)));
            }
        }
        Ok(())
    }

    /// `sql(expression)`: the node printed, then its comments (`maybe_comment`).
    fn sql(&self, e: &Expr) -> Result<String, Unsupported> {
        let s = self.dispatch(e)?;
        if e.is("Select") && e.child("with_").is_some() {
            return Ok(s);
        }
        Ok(self.maybe_comment(&s, Some(e), &e.comments, false))
    }

    /// `sql(expression, key)`: the child under `key` printed, or "" when unset.
    fn key(&self, e: &Expr, key: &str) -> Result<String, Unsupported> {
        match e.arg(key) {
            None => Ok(String::new()),
            Some(Arg::Expr(c)) => self.sql(c),
            Some(Arg::Str(s)) => Ok(s.clone()),
            Some(Arg::Bool(_)) | Some(Arg::List(_)) => Err(Unsupported(format!("argument `{key}` of {} as a value", e.class))),
        }
    }

    fn maybe_comment(&self, sql: &str, e: Option<&Expr>, comments: &[String], separated: bool) -> String {
        if self.o.skip_comments || comments.is_empty() || e.is_some_and(|e| comments_excluded(&e.class)) {
            return sql.to_string();
        }
        let parts: Vec<String> = comments.iter().filter(|c| !c.is_empty()).map(|c| format!("/*{}*/", sanitize_comment(c))).collect();
        if parts.is_empty() {
            return sql.to_string();
        }
        let comments_sql = parts.join(" ");
        if separated || e.is_some_and(|e| comments_separated(&e.class)) {
            return if sql.is_empty() || sql.starts_with(pystr::is_space) {
                format!(" {comments_sql}{sql}")
            } else {
                format!("{comments_sql} {sql}")
            };
        }
        format!("{sql} {comments_sql}")
    }

    /// `expressions(expression, key, flat=False, sep)`: the list under `key`, each item's
    /// comments after it.
    fn expressions(&self, e: &Expr, key: &str, sep: &str) -> Result<String, Unsupported> {
        let items = e.list(key);
        let n = items.len();
        let mut out = String::new();
        for (i, item) in items.iter().enumerate() {
            let s = self.dispatch(item)?;
            if s.is_empty() {
                continue;
            }
            let comments = self.maybe_comment("", Some(item), &item.comments, false);
            out.push_str(&s);
            out.push_str(&comments);
            if i + 1 < n {
                out.push_str(sep);
            }
        }
        Ok(out)
    }

    /// `expressions(..., flat=True)`: non-empty items joined by `sep`.
    fn flat(&self, items: &[Expr], sep: &str) -> Result<String, Unsupported> {
        let mut parts = Vec::new();
        for item in items {
            let s = self.sql(item)?;
            if !s.is_empty() {
                parts.push(s);
            }
        }
        Ok(parts.join(sep))
    }

    fn func(&self, name: &str, args: &[&Expr]) -> Result<String, Unsupported> {
        let mut parts = Vec::new();
        for a in args {
            parts.push(self.sql(a)?);
        }
        Ok(format!("{}({})", pystr::upper(name), parts.join(", ")))
    }

    fn binary(&self, e: &Expr, op: &str) -> Result<String, Unsupported> {
        // Left-deep chains of the same class print without recursion on the left side.
        let mut out = Vec::new();
        let mut stack: Vec<Item> = vec![Item::Node(e)];
        enum Item<'a> {
            Node(&'a Expr),
            Text(String),
            Missing,
        }
        while let Some(item) = stack.pop() {
            match item {
                Item::Node(node) if node.class == e.class => {
                    self.only(node, &["this", "expression", "negate", "safe", "typed"])?;
                    stack.push(node.child("expression").map(Item::Node).unwrap_or(Item::Missing));
                    stack.push(Item::Text(format!(" {} ", self.maybe_comment(op, None, &node.comments, false))));
                    stack.push(node.child("this").map(Item::Node).unwrap_or(Item::Missing));
                }
                Item::Node(node) => out.push(self.sql(node)?),
                Item::Text(t) => out.push(t),
                Item::Missing => {}
            }
        }
        Ok(out.concat())
    }

    fn connector(&self, e: &Expr) -> Result<String, Unsupported> {
        enum Item<'a> {
            Node(&'a Expr),
            Op(String),
        }
        let mut stack = vec![Item::Node(e)];
        let mut sqls: Vec<String> = Vec::new();
        let mut ops: Vec<String> = Vec::new();
        while let Some(item) = stack.pop() {
            match item {
                Item::Node(node) if matches!(node.class.as_str(), "And" | "Or" | "Xor") => {
                    self.only(node, &["this", "expression"])?;
                    let mut op = pystr::upper(&node.class);
                    let comments: &[String] = if self.o.skip_comments { &[] } else { &node.comments };
                    for c in comments.iter().filter(|c| !c.is_empty()) {
                        op.push_str(&format!(" /*{}*/", sanitize_comment(c)));
                    }
                    let (Some(l), Some(r)) = (node.child("this"), node.child("expression")) else {
                        return Err(Unsupported(format!("{} without both sides", node.class)));
                    };
                    stack.push(Item::Node(r));
                    stack.push(Item::Op(op.clone()));
                    stack.push(Item::Node(l));
                    if !ops.contains(&op) {
                        ops.push(op);
                    }
                }
                Item::Node(node) => {
                    let s = self.sql(node)?;
                    if sqls.last().is_some_and(|l| ops.contains(l)) {
                        let last = sqls.last_mut().expect("checked");
                        last.push(' ');
                        last.push_str(&s);
                    } else {
                        sqls.push(s);
                    }
                }
                Item::Op(op) => {
                    // `sqls.append` of a string popped from the stack: it is not an expression,
                    // so it is printed as itself.
                    if sqls.last().is_some_and(|l| ops.contains(l)) {
                        let last = sqls.last_mut().expect("checked");
                        last.push(' ');
                        last.push_str(&op);
                    } else {
                        sqls.push(op);
                    }
                }
            }
        }
        Ok(sqls.join(" "))
    }

    fn wrap(&self, e: &Expr) -> Result<String, Unsupported> {
        let inner = if matches!(e.class.as_str(), "Select" | "Union" | "Intersect" | "Except") {
            self.sql(e)?
        } else {
            self.key(e, "this")?
        };
        if inner.is_empty() {
            return Ok("()".into());
        }
        Ok(format!("({inner})"))
    }

    /// `query_modifiers(expression, *sqls)`.
    fn query_modifiers(&self, e: &Expr, sqls: Vec<String>) -> Result<String, Unsupported> {
        let mut parts = sqls;
        for j in e.list("joins") {
            parts.push(self.sql(j)?);
        }
        for k in ["where", "group", "having", "order", "limit", "offset"] {
            parts.push(self.key(e, k)?);
        }
        Ok(parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().concat())
    }

    fn prepend_ctes(&self, e: &Expr, sql: String) -> Result<String, Unsupported> {
        let with = self.key(e, "with_")?;
        Ok(if with.is_empty() { sql } else { format!("{with} {sql}") })
    }

    fn identifier(&self, e: &Expr) -> Result<String, Unsupported> {
        self.only(e, &["this", "quoted"])?;
        let text = e.str_arg("this").unwrap_or_default();
        let quoted = e.flag("quoted");
        let lower = pystr::lower(text);
        let text = if self.o.normalize && !quoted { lower } else { text.to_string() };
        let text = text.replace('"', "\"\"");
        if quoted || text.chars().next().is_some_and(pystr::is_digit) {
            Ok(format!("\"{text}\""))
        } else {
            Ok(text)
        }
    }

    fn set_operations(&self, e: &Expr) -> Result<String, Unsupported> {
        // Unions nest on the left: print them iteratively, as sqlglot does with a stack.
        let mut sqls = Vec::new();
        enum Item<'a> {
            Node(&'a Expr),
            Text(String),
        }
        let mut stack = vec![Item::Node(e)];
        while let Some(item) = stack.pop() {
            match item {
                Item::Node(node) if matches!(node.class.as_str(), "Union" | "Intersect" | "Except") => {
                    let allowed: &[&str] = if std::ptr::eq(node, e) {
                        &["this", "expression", "distinct", "with_", "order", "limit", "offset"]
                    } else {
                        &["this", "expression", "distinct"]
                    };
                    self.only(node, allowed)?;
                    let name = pystr::upper(&node.class);
                    // Every set operation is DISTINCT by default in the default dialect.
                    let op = match node.arg("distinct") {
                        Some(Arg::Bool(false)) => format!("{name} ALL"),
                        _ => name,
                    };
                    let (Some(l), Some(r)) = (node.child("this"), node.child("expression")) else {
                        return Err(Unsupported(format!("{} without both sides", node.class)));
                    };
                    stack.push(Item::Node(r));
                    stack.push(Item::Text(self.maybe_comment(&op, Some(node), &node.comments, true)));
                    stack.push(Item::Node(l));
                }
                Item::Node(node) => sqls.push(self.sql(node)?),
                Item::Text(t) => sqls.push(t),
            }
        }
        let this = sqls.join(" ");
        let this = self.query_modifiers(e, vec![this])?;
        self.prepend_ctes(e, this)
    }

    fn dispatch(&self, e: &Expr) -> Result<String, Unsupported> {
        let class = e.class.as_str();
        if let Some(op) = binary_op(class) {
            return self.binary(e, op);
        }
        match class {
            "And" | "Or" | "Xor" => self.connector(e),
            "Div" => {
                self.only(e, &["this", "expression", "typed", "safe"])?;
                if e.flag("typed") || e.flag("safe") {
                    return Err(Unsupported("a typed or safe Div".into()));
                }
                self.binary(e, "/")
            }
            "Like" | "ILike" => {
                self.only(e, &["this", "expression", "negate"])?;
                if e.child("expression").is_some_and(|r| r.is("All") || r.is("Any")) {
                    return Err(Unsupported("LIKE ANY/ALL".into()));
                }
                let op = if class == "Like" { "LIKE" } else { "ILIKE" };
                let op = if e.flag("negate") { format!("NOT {op}") } else { op.to_string() };
                self.binary(e, &op)
            }
            "Identifier" => self.identifier(e),
            "Column" => {
                self.only(e, &["this", "table", "db", "catalog"])?;
                let mut parts = Vec::new();
                for k in ["catalog", "db", "table", "this"] {
                    if let Some(c) = e.child(k) {
                        parts.push(self.sql(c)?);
                    }
                }
                Ok(parts.join("."))
            }
            "Literal" => {
                self.only(e, &["this", "is_string"])?;
                let text = e.str_arg("this").unwrap_or_default();
                if e.flag("is_string") {
                    Ok(format!("'{}'", text.replace('\'', "''")))
                } else {
                    Ok(text.to_string())
                }
            }
            "Null" => Ok("NULL".into()),
            "Boolean" => Ok(if e.flag("this") { "TRUE" } else { "FALSE" }.into()),
            "Star" => {
                self.only(e, &[])?;
                Ok("*".into())
            }
            "Var" => self.key(e, "this"),
            "Placeholder" => {
                self.only(e, &["this"])?;
                match e.str_arg("this") {
                    Some(name) if !name.is_empty() => Ok(format!(":{name}")),
                    _ => Ok("?".into()),
                }
            }
            "Parameter" => Ok(format!("@{}", self.key(e, "this")?)),
            "Dot" => Ok(format!("{}.{}", self.key(e, "this")?, self.key(e, "expression")?)),
            "Alias" => {
                self.only(e, &["this", "alias"])?;
                let alias = self.key(e, "alias")?;
                let alias = if alias.is_empty() { alias } else { format!(" AS {alias}") };
                Ok(format!("{}{alias}", self.key(e, "this")?))
            }
            "Paren" => {
                self.only(e, &["this"])?;
                Ok(format!("({})", self.key(e, "this")?))
            }
            "Not" => Ok(format!("NOT {}", self.key(e, "this")?)),
            "Neg" => {
                let this = self.key(e, "this")?;
                let sep = if this.starts_with('-') { " " } else { "" };
                Ok(format!("-{sep}{this}"))
            }
            "Tuple" => Ok(format!("({})", self.expressions(e, "expressions", ", ")?)),
            "In" => {
                self.only(e, &["this", "expressions", "query", "field"])?;
                let in_sql = if let Some(q) = e.child("query") {
                    self.sql(q)?
                } else if let Some(f) = e.child("field") {
                    self.sql(f)?
                } else {
                    format!("({})", self.expressions(e, "expressions", ", ")?)
                };
                Ok(format!("{} IN {in_sql}", self.key(e, "this")?))
            }
            "Between" => {
                self.only(e, &["this", "low", "high"])?;
                Ok(format!("{} BETWEEN {} AND {}", self.key(e, "this")?, self.key(e, "low")?, self.key(e, "high")?))
            }
            "Exists" => {
                self.only(e, &["this"])?;
                Ok(format!("EXISTS{}", self.wrap(e)?))
            }
            "Case" => {
                self.only(e, &["this", "ifs", "default"])?;
                let this = self.key(e, "this")?;
                let mut parts = vec![if this.is_empty() { "CASE".to_string() } else { format!("CASE {this}") }];
                for w in e.list("ifs") {
                    self.only(w, &["this", "true", "false"])?;
                    if !w.is("If") || w.child("false").is_some() {
                        return Err(Unsupported("a CASE branch that is not a plain If".into()));
                    }
                    parts.push(format!("WHEN {}", self.key(w, "this")?));
                    parts.push(format!("THEN {}", self.key(w, "true")?));
                }
                let default = self.key(e, "default")?;
                if !default.is_empty() {
                    parts.push(format!("ELSE {default}"));
                }
                parts.push("END".into());
                Ok(parts.join(" "))
            }
            "If" => {
                // `if_sql` prints IF(c, a, b) as a CASE with one branch; the If node inside
                // that CASE is printed as a branch, without its `false`.
                self.only(e, &["this", "true", "false"])?;
                let mut parts = vec!["CASE".to_string(), format!("WHEN {}", self.key(e, "this")?), format!("THEN {}", self.key(e, "true")?)];
                let default = self.key(e, "false")?;
                if !default.is_empty() {
                    parts.push(format!("ELSE {default}"));
                }
                parts.push("END".into());
                Ok(parts.join(" "))
            }
            "Cast" | "TryCast" => {
                self.only(e, &["this", "to"])?;
                let to = self.key(e, "to")?;
                let to = if to.is_empty() { to } else { format!(" {to}") };
                let prefix = if class == "TryCast" { "TRY_" } else { "" };
                Ok(format!("{prefix}CAST({} AS{to})", self.key(e, "this")?))
            }
            "DataType" => {
                self.only(e, &["this", "expressions", "nested"])?;
                if e.flag("nested") {
                    return Err(Unsupported("a nested DataType".into()));
                }
                let name = e.str_arg("this").unwrap_or_default();
                let Some(type_sql) = TYPE_SQL.get(name) else {
                    return Err(Unsupported(format!("data type {name}")));
                };
                if matches!(name, "USERDEFINED" | "CHARACTER_SET" | "INTERVAL") {
                    return Err(Unsupported(format!("data type {name}")));
                }
                let interior = self.flat(e.list("expressions"), ", ")?;
                if interior.is_empty() {
                    Ok(type_sql.to_string())
                } else {
                    Ok(format!("{type_sql}({interior})"))
                }
            }
            "DataTypeParam" => {
                self.only(e, &["this"])?;
                self.key(e, "this")
            }
            "Distinct" => {
                self.only(e, &["expressions"])?;
                let this = self.flat(e.list("expressions"), ", ")?;
                Ok(if this.is_empty() { "DISTINCT".into() } else { format!("DISTINCT {this}") })
            }
            "Anonymous" => {
                self.only(e, &["this", "expressions"])?;
                let name = self.key(e, "this")?;
                let args: Vec<&Expr> = e.list("expressions").iter().collect();
                self.func(&name, &args)
            }
            "Trim" => {
                self.only(e, &["this", "expression", "position"])?;
                let name = match e.str_arg("position") {
                    Some("LEADING") => "LTRIM",
                    Some("TRAILING") => "RTRIM",
                    Some(_) => "TRIM",
                    None if e.child("position").is_some() => return Err(Unsupported("TRIM position".into())),
                    None => "TRIM",
                };
                let args: Vec<&Expr> = ["this", "expression"].iter().filter_map(|k| e.child(k)).collect();
                self.func(name, &args)
            }
            "Table" => {
                self.only(e, &["this", "db", "catalog", "alias"])?;
                let mut parts = Vec::new();
                for k in ["catalog", "db", "this"] {
                    if let Some(c) = e.child(k) {
                        parts.push(self.sql(c)?);
                    }
                }
                let alias = self.key(e, "alias")?;
                let alias = if alias.is_empty() { alias } else { format!(" AS {alias}") };
                Ok(format!("{}{alias}", parts.join(".")))
            }
            "TableAlias" => {
                self.only(e, &["this", "columns"])?;
                let alias = self.key(e, "this")?;
                if alias.is_empty() {
                    return Err(Unsupported("a TableAlias without a name".into()));
                }
                let columns = self.flat(e.list("columns"), ", ")?;
                Ok(if columns.is_empty() { alias } else { format!("{alias}({columns})") })
            }
            "From" => {
                self.only(e, &["this"])?;
                Ok(format!(" FROM {}", self.key(e, "this")?))
            }
            "Join" => {
                self.only(e, &["this", "on", "kind", "side", "method", "using"])?;
                let op_sql: Vec<String> = ["method", "side", "kind"].iter().filter_map(|k| e.str_arg(k)).filter(|s| !s.is_empty()).map(pystr::upper).collect();
                let op_sql = op_sql.join(" ");
                let mut on_sql = self.key(e, "on")?;
                let using = e.list("using");
                if on_sql.is_empty() && !using.is_empty() {
                    on_sql = self.flat(using, ", ")?;
                }
                let this_sql = self.key(e, "this")?;
                if !on_sql.is_empty() {
                    on_sql = if using.is_empty() { format!(" ON {on_sql}") } else { format!(" USING ({on_sql})") };
                } else if op_sql.is_empty() {
                    return Ok(format!(", {this_sql}"));
                }
                let op_sql = if op_sql == "STRAIGHT_JOIN" {
                    op_sql
                } else if op_sql.is_empty() {
                    "JOIN".into()
                } else {
                    format!("{op_sql} JOIN")
                };
                Ok(format!(" {op_sql} {this_sql}{on_sql}"))
            }
            "Where" | "Having" => {
                self.only(e, &["this"])?;
                let kw = if class == "Where" { "WHERE" } else { "HAVING" };
                Ok(format!(" {kw} {}", self.key(e, "this")?))
            }
            "Group" => {
                self.only(e, &["expressions"])?;
                let items = self.expressions(e, "expressions", ", ")?;
                Ok(format!(" GROUP BY{}{items}", if items.is_empty() { "" } else { " " }))
            }
            "Order" => {
                self.only(e, &["expressions"])?;
                let items = self.expressions(e, "expressions", ", ")?;
                Ok(format!(" ORDER BY{}{items}", if items.is_empty() { "" } else { " " }))
            }
            "Ordered" => {
                self.only(e, &["this", "desc", "nulls_first"])?;
                let this = self.key(e, "this")?;
                let desc = e.arg("desc");
                let sort = match desc {
                    Some(Arg::Bool(true)) => " DESC",
                    Some(Arg::Bool(false)) => " ASC",
                    _ => "",
                };
                let is_desc = matches!(desc, Some(Arg::Bool(true)));
                let nulls_first = e.flag("nulls_first");
                // The default dialect's NULL_ORDERING is "nulls_are_small".
                let nulls = if nulls_first && is_desc {
                    " NULLS FIRST"
                } else if !nulls_first && !is_desc {
                    " NULLS LAST"
                } else {
                    ""
                };
                Ok(format!("{this}{sort}{nulls}"))
            }
            "Limit" => {
                self.only(e, &["expression", "offset"])?;
                let mut args = Vec::new();
                for k in ["offset", "expression"] {
                    if let Some(c) = e.child(k) {
                        args.push(self.sql(c)?);
                    }
                }
                Ok(format!(" LIMIT {}", args.join(", ")))
            }
            "Offset" => {
                self.only(e, &["expression"])?;
                Ok(format!(" OFFSET {}", self.key(e, "expression")?))
            }
            "Subquery" => {
                self.only(e, &["this", "alias", "joins", "where", "group", "having", "order", "limit", "offset", "with_"])?;
                let alias = self.key(e, "alias")?;
                let alias = if alias.is_empty() { alias } else { format!(" AS {alias}") };
                let sql = self.query_modifiers(e, vec![self.wrap(e)?, alias])?;
                self.prepend_ctes(e, sql)
            }
            "Union" | "Intersect" | "Except" => self.set_operations(e),
            "With" => {
                self.only(e, &["expressions", "recursive"])?;
                let recursive = if e.flag("recursive") { "RECURSIVE " } else { "" };
                Ok(format!("WITH {recursive}{}", self.flat(e.list("expressions"), ", ")?))
            }
            "CTE" => {
                self.only(e, &["this", "alias"])?;
                if !e.comments.is_empty() {
                    return Err(Unsupported("a commented CTE".into()));
                }
                Ok(format!("{} AS {}", self.key(e, "alias")?, self.wrap(e)?))
            }
            "Select" => self.select(e),
            _ => self.function(e),
        }
    }

    fn select(&self, e: &Expr) -> Result<String, Unsupported> {
        self.only(e, &["distinct", "expressions", "from_", "joins", "where", "group", "having", "order", "limit", "offset", "with_"])?;
        let distinct = self.key(e, "distinct")?;
        let distinct = if distinct.is_empty() { distinct } else { format!(" {distinct}") };
        let expressions = self.expressions(e, "expressions", ", ")?;
        let expressions = if expressions.is_empty() { expressions } else { format!(" {expressions}") };
        let from = match e.child("from_") {
            Some(f) => self.dispatch(f)?,
            None => String::new(),
        };
        let mut sql = self.query_modifiers(e, vec![format!("SELECT{distinct}{expressions}"), from])?;
        if e.child("with_").is_some() {
            // With CTEs, the SELECT's comments go after the CTEs, before `SELECT` (and `sql`
            // does not print them again).
            sql = self.maybe_comment(&sql, Some(e), &e.comments, false);
        }
        self.prepend_ctes(e, sql)
    }

    fn function(&self, e: &Expr) -> Result<String, Unsupported> {
        let Some((name, arg_keys, custom)) = FUNC_TABLE.get(e.class.as_str()) else {
            return Err(Unsupported(format!("class {}", e.class)));
        };
        if *custom {
            return Err(Unsupported(format!("the printing of {}", e.class)));
        }
        for (k, _) in &e.args {
            if !arg_keys.contains(&k.as_str()) {
                return Err(Unsupported(format!("argument `{k}` of {}", e.class)));
            }
        }
        let mut args: Vec<&Expr> = Vec::new();
        for k in arg_keys.iter() {
            match e.arg(k) {
                Some(Arg::Expr(c)) => args.push(c),
                Some(Arg::List(l)) => args.extend(l.iter()),
                Some(Arg::Bool(_)) | None => {}
                Some(Arg::Str(_)) => return Err(Unsupported(format!("string argument `{k}` of {}", e.class))),
            }
        }
        self.func(name, &args)
    }
}

/// `sanitize_comment`: a space inside each end of the comment unless it already has one, and
/// `*/` and `/*` broken up.
fn sanitize_comment(comment: &str) -> String {
    let mut c = comment.to_string();
    if c.chars().next().is_some_and(|ch| !pystr::is_space(ch)) {
        c.insert(0, ' ');
    }
    if c.chars().last().is_some_and(|ch| !pystr::is_space(ch)) {
        c.push(' ');
    }
    c.replace("*/", "* /").replace("/*", "/ *")
}
