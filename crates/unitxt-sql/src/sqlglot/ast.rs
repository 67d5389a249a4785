//! sqlglot's syntax tree (`sqlglot.expressions`): a node is its class name, its `args` in
//! insertion order, and the comments attached to it.
//!
//! The tree is generic, like sqlglot's `Expr.args` dict, so that the parser, the generator
//! and the optimizer rules read and write the same keys sqlglot's code does (`this`,
//! `expression`, `expressions`, `from_`, `joins`, ...).

/// One value in a node's `args`: a child node, a list of them, a string, or a flag.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A child expression.
    Expr(Box<Expr>),
    /// A list of child expressions (`expressions`, `joins`).
    List(Vec<Expr>),
    /// A string value (an `Identifier`'s or `Literal`'s `this`, a `DataType`'s type name).
    Str(String),
    /// A flag (`quoted`, `is_string`, `desc`).
    Bool(bool),
}

/// A node of sqlglot's tree: `class` is the Python class name (`Select`, `Column`, `EQ`),
/// `args` its non-`None` arguments in the order sqlglot set them.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// The sqlglot class name.
    pub class: String,
    /// The arguments, by sqlglot's key.
    pub args: Vec<(String, Arg)>,
    /// Comments attached to the node, without their delimiters.
    pub comments: Vec<String>,
}

/// Trees from long operator chains (`1 + 1 + ...`) are deep: they are dropped with a stack of
/// their own instead of recursion, which would overflow the thread's stack.
impl Drop for Expr {
    fn drop(&mut self) {
        fn take_children(e: &mut Expr, stack: &mut Vec<Expr>) {
            for (_, v) in e.args.iter_mut() {
                match v {
                    Arg::Expr(b) => stack.push(std::mem::replace(&mut **b, Expr::empty())),
                    Arg::List(items) => stack.append(items),
                    _ => {}
                }
            }
        }
        let mut stack = Vec::new();
        take_children(self, &mut stack);
        while let Some(mut e) = stack.pop() {
            take_children(&mut e, &mut stack);
        }
    }
}

impl Expr {
    /// A placeholder node that owns nothing (no allocation).
    fn empty() -> Expr {
        Expr { class: String::new(), args: Vec::new(), comments: Vec::new() }
    }

    /// The number of levels of the tree (a leaf is 1), counted without recursion.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            max = max.max(d);
            for (_, v) in &e.args {
                match v {
                    Arg::Expr(c) => stack.push((c, d + 1)),
                    Arg::List(items) => stack.extend(items.iter().map(|c| (c, d + 1))),
                    _ => {}
                }
            }
        }
        max
    }

    /// A node of class `class` with no arguments.
    pub fn new(class: &str) -> Expr {
        Expr { class: class.to_string(), args: Vec::new(), comments: Vec::new() }
    }

    /// The argument `key`, if set.
    pub fn arg(&self, key: &str) -> Option<&Arg> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The child expression under `key`, if that argument is one.
    pub fn child(&self, key: &str) -> Option<&Expr> {
        match self.arg(key) {
            Some(Arg::Expr(e)) => Some(e),
            _ => None,
        }
    }

    /// The child expression under `key`, mutable.
    pub fn child_mut(&mut self, key: &str) -> Option<&mut Expr> {
        match self.args.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v) {
            Some(Arg::Expr(c)) => Some(c),
            _ => None,
        }
    }

    /// The list under `key`, mutable, if that argument is one.
    pub fn list_mut(&mut self, key: &str) -> Option<&mut Vec<Expr>> {
        match self.args.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v) {
            Some(Arg::List(items)) => Some(items),
            _ => None,
        }
    }

    /// The child expressions in argument order, lists expanded (sqlglot's
    /// `Expr.iter_expressions()`).
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        self.args.iter().flat_map(|(_, v)| match v {
            Arg::Expr(c) => std::slice::from_ref(&**c),
            Arg::List(items) => items.as_slice(),
            _ => &[],
        })
    }

    /// Whether this node or one under it has class `class`.
    pub fn contains_class(&self, class: &str) -> bool {
        self.class == class || self.children().any(|c| c.contains_class(class))
    }

    /// The list under `key` (empty when unset or not a list).
    pub fn list(&self, key: &str) -> &[Expr] {
        match self.arg(key) {
            Some(Arg::List(v)) => v,
            _ => &[],
        }
    }

    /// The string under `key`, if that argument is one.
    pub fn str_arg(&self, key: &str) -> Option<&str> {
        match self.arg(key) {
            Some(Arg::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// Whether the flag `key` is set and true.
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.arg(key), Some(Arg::Bool(true)))
    }

    /// Sets `key` to `value`, replacing an earlier value in its place, as `Expr.set` does.
    pub fn set(&mut self, key: &str, value: Arg) {
        if let Some(slot) = self.args.iter_mut().find(|(k, _)| k == key) {
            slot.1 = value;
        } else {
            self.args.push((key.to_string(), value));
        }
    }

    /// Removes `key` (sqlglot's `set(key, None)`).
    pub fn unset(&mut self, key: &str) {
        self.args.retain(|(k, _)| k != key);
    }

    /// Builder form of [`Expr::set`].
    pub fn with(mut self, key: &str, value: Arg) -> Expr {
        self.set(key, value);
        self
    }

    /// Builder: sets `key` to a child expression.
    pub fn with_expr(self, key: &str, e: Expr) -> Expr {
        self.with(key, Arg::Expr(Box::new(e)))
    }

    /// Is this node of class `class`?
    pub fn is(&self, class: &str) -> bool {
        self.class == class
    }

    /// The node as JSON in the shape `testdata/sqlglot_gen.py` dumps sqlglot's trees:
    /// `{"class", "args", "comments"}` with `None` and empty-list arguments left out (a `False`
    /// flag is kept: sqlglot tells an explicit `ASC` or `UNION ALL` by it),
    /// and no `args` or `comments` key when there are none.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        out.push_str("{\"class\":");
        json_str(&self.class, out);
        let mut first = true;
        for (k, v) in &self.args {
            if matches!(v, Arg::List(l) if l.is_empty()) {
                continue;
            }
            out.push_str(if first { ",\"args\":{" } else { "," });
            first = false;
            json_str(k, out);
            out.push(':');
            match v {
                Arg::Expr(e) => e.write_json(out),
                Arg::List(l) => {
                    out.push('[');
                    for (i, e) in l.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        e.write_json(out);
                    }
                    out.push(']');
                }
                Arg::Str(s) => json_str(s, out),
                Arg::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            }
        }
        if !first {
            out.push('}');
        }
        if !self.comments.is_empty() {
            out.push_str(",\"comments\":[");
            for (i, c) in self.comments.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_str(c, out);
            }
            out.push(']');
        }
        out.push('}');
    }
}

fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
