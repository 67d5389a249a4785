//! The sandbox's own syntax tree, lowered from the Python parser's tree. Lowering rejects
//! everything outside the sandbox: statements, `await`/`yield`, `:=`, t-strings, complex
//! numbers, and attribute names starting with an underscore.

use std::sync::Arc;

use ruff_python_ast as ra;

use super::{err, EResult};

/// Binary arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+` (numbers add; strings, lists and tuples concatenate).
    Add,
    /// `-`.
    Sub,
    /// `*` (also repeats a sequence by an int).
    Mul,
    /// `/` (true division, always a float).
    Div,
    /// `//` (floor division).
    FloorDiv,
    /// `%` (modulo, or `%`-formatting of a string).
    Mod,
    /// `**`.
    Pow,
    /// `<<`.
    LShift,
    /// `>>`.
    RShift,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `&`.
    BitAnd,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`.
    Eq,
    /// `!=`.
    NotEq,
    /// `<`.
    Lt,
    /// `<=`.
    LtE,
    /// `>`.
    Gt,
    /// `>=`.
    GtE,
    /// `is`.
    Is,
    /// `is not`.
    IsNot,
    /// `in`.
    In,
    /// `not in`.
    NotIn,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `not x`.
    Not,
    /// `-x`.
    Neg,
    /// `+x`.
    Pos,
    /// `~x`.
    Invert,
}

/// An element of a list/tuple/set display or a positional call argument.
#[derive(Debug)]
pub enum Elt {
    /// A plain element `x`.
    One(Node),
    /// A starred element `*xs`, spliced in.
    Star(Node),
}

/// An item of a dict display: `k: v` or `**m`.
#[derive(Debug)]
pub enum DictItem {
    /// `k: v`.
    Pair(Node, Node),
    /// `**m`, the mapping's items spliced in.
    Unpack(Node),
}

/// One `for target in iter if cond...` clause.
#[derive(Debug)]
pub struct Comp {
    /// The name or names bound for each item.
    pub target: Target,
    /// The iterable.
    pub iter: Node,
    /// The `if` conditions, all of which must hold.
    pub ifs: Vec<Node>,
}

/// A binding target of a `for` clause or lambda parameter.
#[derive(Debug)]
pub enum Target {
    /// A single name.
    Name(Arc<str>),
    /// A tuple of targets, unpacked from each item (`for k, v in ...`).
    Unpack(Vec<Target>),
}

/// Lambda parameters: names with optional defaults.
#[derive(Debug)]
pub struct Params {
    /// Each parameter's name and its default value, in order.
    pub names: Vec<(Arc<str>, Option<Node>)>,
}

/// A part of an f-string.
#[derive(Debug)]
pub enum FPart {
    /// Literal text.
    Lit(String),
    /// A replacement field `{expr!conv:spec}`.
    Value {
        /// The expression whose value is formatted.
        expr: Node,
        /// The conversion after `!`: `r`, `s` or `a` (absent: none).
        conv: Option<char>,
        /// The format spec after `:`, itself made of f-string parts (empty: none).
        spec: Vec<FPart>,
        /// For `{expr=}`, the text echoed before the value.
        debug: Option<String>,
    },
}

/// An expression node.
#[derive(Debug)]
pub enum Node {
    /// A literal (`None`, a bool, number or string).
    Const(Const),
    /// A variable name: a comprehension or lambda binding, an instance field, or an allowed builtin or module.
    Name(Arc<str>),
    /// `[a, b, *c]`.
    List(Vec<Elt>),
    /// `(a, b, *c)`.
    Tuple(Vec<Elt>),
    /// `{a, b, *c}`.
    Set(Vec<Elt>),
    /// `{k: v, **m}`.
    Dict(Vec<DictItem>),
    /// `left op right`.
    BinOp(Box<Node>, BinOp, Box<Node>),
    /// `op operand`.
    Unary(UnOp, Box<Node>),
    /// `a and b and ...` (the first falsy operand, else the last).
    And(Vec<Node>),
    /// `a or b or ...` (the first truthy operand, else the last).
    Or(Vec<Node>),
    /// A comparison chain `a < b <= c`: the first operand and each (operator, operand).
    Compare(Box<Node>, Vec<(CmpOp, Node)>),
    /// `body if test else orelse`, stored as (test, body, orelse).
    IfExp(Box<Node>, Box<Node>, Box<Node>),
    /// `value.attr` (names starting with `_` are refused).
    Attr(Box<Node>, Arc<str>),
    /// `value[index]`.
    Subscript(Box<Node>, Box<Node>),
    /// `start:stop:step` inside a subscript.
    Slice(Option<Box<Node>>, Option<Box<Node>>, Option<Box<Node>>),
    /// `f(*args, name=value, **kwargs)`: the callee, positional arguments, and keyword arguments
    /// (`None` name for `**kwargs`).
    Call(Box<Node>, Vec<Elt>, Vec<(Option<Arc<str>>, Node)>),
    /// `[elt for ...]`.
    ListComp(Arc<Node>, Arc<Vec<Comp>>),
    /// `{elt for ...}`.
    SetComp(Arc<Node>, Arc<Vec<Comp>>),
    /// `{key: value for ...}`.
    DictComp(Arc<Node>, Arc<Node>, Arc<Vec<Comp>>),
    /// `(elt for ...)`, a lazy generator (its first iterable is evaluated at once, as in Python).
    GenExp(Arc<Node>, Arc<Vec<Comp>>),
    /// `lambda params: body`.
    Lambda(Arc<Params>, Arc<Node>),
    /// `f"..."`.
    FString(Vec<FPart>),
}

/// A literal constant.
#[derive(Debug, Clone)]
pub enum Const {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int` that fits in 64 bits.
    Int(i64),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(Arc<str>),
}

/// Parses Python expression source into the sandbox tree.
pub fn parse(src: &str) -> EResult<Node> {
    // The Python parser accepts leading/trailing whitespace and newlines inside brackets, as
    // `eval` does; `eval` also strips leading spaces and tabs.
    let trimmed = src.trim_start_matches([' ', '\t']);
    if bracket_depth(trimmed) > MAX_DEPTH {
        return Err(err(format!("the expression is nested more than {MAX_DEPTH} levels deep")));
    }
    let parsed = ruff_python_parser::parse_expression(trimmed).map_err(|e| err(format!("syntax error: {e}")))?;
    lower(parsed.expr())
}

/// The deepest nesting the sandbox accepts (brackets in the source, nodes in the tree).
pub const MAX_DEPTH: usize = 100;

/// Maximum bracket nesting of the source, ignoring brackets inside string literals.
fn bracket_depth(src: &str) -> usize {
    let (mut depth, mut max, mut quote): (usize, usize, Option<char>) = (0, 0, None);
    let mut escaped = false;
    for c in src.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    max
}

/// When less than this much stack is left, recursion continues on a new heap-allocated segment.
pub const STACK_RED_ZONE: usize = 128 * 1024;
/// Size of each new stack segment.
pub const STACK_GROW: usize = 2 * 1024 * 1024;

thread_local! {
    /// Not a cache: how deep [`lower`] is nested on this thread, to refuse expressions nested
    /// more than `2 * MAX_DEPTH` levels (0 again when the outermost call returns).
    static LOWER_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn lower_box(e: &ra::Expr) -> EResult<Box<Node>> {
    Ok(Box::new(lower(e)?))
}

fn lower_elts(elts: &[ra::Expr]) -> EResult<Vec<Elt>> {
    elts.iter()
        .map(|e| match e {
            ra::Expr::Starred(s) => Ok(Elt::Star(lower(&s.value)?)),
            other => Ok(Elt::One(lower(other)?)),
        })
        .collect()
}

fn lower_target(e: &ra::Expr) -> EResult<Target> {
    match e {
        ra::Expr::Name(n) => Ok(Target::Name(n.id.as_str().into())),
        ra::Expr::Tuple(t) => Ok(Target::Unpack(t.elts.iter().map(lower_target).collect::<EResult<_>>()?)),
        ra::Expr::List(t) => Ok(Target::Unpack(t.elts.iter().map(lower_target).collect::<EResult<_>>()?)),
        _ => Err(err("only names and tuples of names can be loop targets in the sandbox")),
    }
}

fn lower_comps(gens: &[ra::Comprehension]) -> EResult<Arc<Vec<Comp>>> {
    let mut out = Vec::with_capacity(gens.len());
    for g in gens {
        if g.is_async {
            return Err(err("async comprehensions are not allowed"));
        }
        out.push(Comp {
            target: lower_target(&g.target)?,
            iter: lower(&g.iter)?,
            ifs: g.ifs.iter().map(lower).collect::<EResult<_>>()?,
        });
    }
    Ok(Arc::new(out))
}

fn lower_fstring_elements(elems: &ra::InterpolatedStringElements, out: &mut Vec<FPart>) -> EResult<()> {
    for el in elems {
        match el {
            ra::InterpolatedStringElement::Literal(l) => out.push(FPart::Lit(l.value.to_string())),
            ra::InterpolatedStringElement::Interpolation(i) => {
                let conv = match i.conversion {
                    ra::ConversionFlag::None => None,
                    ra::ConversionFlag::Str => Some('s'),
                    ra::ConversionFlag::Repr => Some('r'),
                    ra::ConversionFlag::Ascii => Some('a'),
                };
                let mut spec = Vec::new();
                if let Some(s) = &i.format_spec {
                    lower_fstring_elements(&s.elements, &mut spec)?;
                }
                let debug = i.debug_text.as_ref().map(|d| format!("{}{}{}", d.leading(), d.expression(), d.trailing()));
                out.push(FPart::Value { expr: lower(&i.expression)?, conv, spec, debug });
            }
        }
    }
    Ok(())
}

/// Lowers one parser expression; errors when the tree is deeper than [`MAX_DEPTH`] (operator
/// chains such as `1+1+...+1` nest one level per operator).
pub fn lower(e: &ra::Expr) -> EResult<Node> {
    let depth = LOWER_DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    let r = if depth > 2 * MAX_DEPTH {
        Err(err(format!("the expression is nested more than {} levels deep", 2 * MAX_DEPTH)))
    } else {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_GROW, || lower_node(e))
    };
    LOWER_DEPTH.with(|d| d.set(d.get() - 1));
    r
}

fn lower_node(e: &ra::Expr) -> EResult<Node> {
    use ra::Expr as E;
    Ok(match e {
        E::BoolOp(b) => {
            let vals = b.values.iter().map(lower).collect::<EResult<Vec<_>>>()?;
            match b.op {
                ra::BoolOp::And => Node::And(vals),
                ra::BoolOp::Or => Node::Or(vals),
            }
        }
        E::BinOp(b) => {
            let op = match b.op {
                ra::Operator::Add => BinOp::Add,
                ra::Operator::Sub => BinOp::Sub,
                ra::Operator::Mult => BinOp::Mul,
                ra::Operator::Div => BinOp::Div,
                ra::Operator::FloorDiv => BinOp::FloorDiv,
                ra::Operator::Mod => BinOp::Mod,
                ra::Operator::Pow => BinOp::Pow,
                ra::Operator::LShift => BinOp::LShift,
                ra::Operator::RShift => BinOp::RShift,
                ra::Operator::BitOr => BinOp::BitOr,
                ra::Operator::BitXor => BinOp::BitXor,
                ra::Operator::BitAnd => BinOp::BitAnd,
                ra::Operator::MatMult => return Err(err("the operator @ is not supported")),
            };
            Node::BinOp(lower_box(&b.left)?, op, lower_box(&b.right)?)
        }
        E::UnaryOp(u) => {
            let op = match u.op {
                ra::UnaryOp::Not => UnOp::Not,
                ra::UnaryOp::USub => UnOp::Neg,
                ra::UnaryOp::UAdd => UnOp::Pos,
                ra::UnaryOp::Invert => UnOp::Invert,
            };
            Node::Unary(op, lower_box(&u.operand)?)
        }
        E::Lambda(l) => {
            let mut names = Vec::new();
            if let Some(p) = &l.parameters {
                if p.vararg.is_some() || p.kwarg.is_some() || !p.kwonlyargs.is_empty() {
                    return Err(err("lambdas with *args, **kwargs or keyword-only parameters are not supported"));
                }
                for a in p.posonlyargs.iter().chain(p.args.iter()) {
                    let d = match &a.default {
                        Some(d) => Some(lower(d)?),
                        None => None,
                    };
                    names.push((a.parameter.name.id.as_str().into(), d));
                }
            }
            Node::Lambda(Arc::new(Params { names }), Arc::new(lower(&l.body)?))
        }
        E::If(i) => Node::IfExp(lower_box(&i.test)?, lower_box(&i.body)?, lower_box(&i.orelse)?),
        E::Dict(d) => {
            let mut items = Vec::with_capacity(d.items.len());
            for it in &d.items {
                items.push(match &it.key {
                    Some(k) => DictItem::Pair(lower(k)?, lower(&it.value)?),
                    None => DictItem::Unpack(lower(&it.value)?),
                });
            }
            Node::Dict(items)
        }
        E::Set(s) => Node::Set(lower_elts(&s.elts)?),
        E::ListComp(c) => Node::ListComp(Arc::new(lower(&c.elt)?), lower_comps(&c.generators)?),
        E::SetComp(c) => Node::SetComp(Arc::new(lower(&c.elt)?), lower_comps(&c.generators)?),
        E::DictComp(c) => {
            let key = c.key.as_deref().ok_or_else(|| err("dict comprehension without a key"))?;
            Node::DictComp(Arc::new(lower(key)?), Arc::new(lower(&c.value)?), lower_comps(&c.generators)?)
        }
        E::Generator(g) => Node::GenExp(Arc::new(lower(&g.elt)?), lower_comps(&g.generators)?),
        E::Compare(c) => {
            let mut rest = Vec::with_capacity(c.ops.len());
            for (op, rhs) in c.ops.iter().zip(c.comparators.iter()) {
                let op = match op {
                    ra::CmpOp::Eq => CmpOp::Eq,
                    ra::CmpOp::NotEq => CmpOp::NotEq,
                    ra::CmpOp::Lt => CmpOp::Lt,
                    ra::CmpOp::LtE => CmpOp::LtE,
                    ra::CmpOp::Gt => CmpOp::Gt,
                    ra::CmpOp::GtE => CmpOp::GtE,
                    ra::CmpOp::Is => CmpOp::Is,
                    ra::CmpOp::IsNot => CmpOp::IsNot,
                    ra::CmpOp::In => CmpOp::In,
                    ra::CmpOp::NotIn => CmpOp::NotIn,
                };
                rest.push((op, lower(rhs)?));
            }
            Node::Compare(lower_box(&c.left)?, rest)
        }
        E::Call(c) => {
            let args = lower_elts(&c.arguments.args)?;
            let mut kws = Vec::with_capacity(c.arguments.keywords.len());
            for k in c.arguments.keywords.iter() {
                kws.push((k.arg.as_ref().map(|a| Arc::from(a.id.as_str())), lower(&k.value)?));
            }
            Node::Call(lower_box(&c.func)?, args, kws)
        }
        E::FString(f) => {
            let mut parts = Vec::new();
            for p in f.value.iter() {
                match p {
                    ra::FStringPart::Literal(l) => parts.push(FPart::Lit(l.value.to_string())),
                    ra::FStringPart::FString(fs) => lower_fstring_elements(&fs.elements, &mut parts)?,
                }
            }
            Node::FString(parts)
        }
        E::StringLiteral(s) => Node::Const(Const::Str(s.value.to_str().into())),
        E::NumberLiteral(n) => match &n.value {
            ra::Number::Int(i) => match i.as_i64() {
                Some(v) => Node::Const(Const::Int(v)),
                None => return Err(err(format!("integer literal {i} is too large for the sandbox"))),
            },
            ra::Number::Float(f) => Node::Const(Const::Float(*f)),
            ra::Number::Complex { .. } => return Err(err("complex numbers are not supported")),
        },
        E::BooleanLiteral(b) => Node::Const(Const::Bool(b.value)),
        E::NoneLiteral(_) => Node::Const(Const::None),
        E::Attribute(a) => {
            let name = a.attr.id.as_str();
            if name.starts_with('_') {
                return Err(err(format!("access to the attribute {name:?} is not allowed")));
            }
            Node::Attr(lower_box(&a.value)?, name.into())
        }
        E::Subscript(s) => Node::Subscript(lower_box(&s.value)?, lower_box(&s.slice)?),
        E::Name(n) => {
            let name = n.id.as_str();
            if name.starts_with("__") {
                return Err(err(format!("the name {name:?} is not allowed")));
            }
            Node::Name(name.into())
        }
        E::List(l) => Node::List(lower_elts(&l.elts)?),
        E::Tuple(t) => Node::Tuple(lower_elts(&t.elts)?),
        E::Slice(s) => {
            let opt = |x: &Option<Box<ra::Expr>>| -> EResult<Option<Box<Node>>> {
                match x {
                    Some(v) => Ok(Some(lower_box(v)?)),
                    None => Ok(None),
                }
            };
            Node::Slice(opt(&s.lower)?, opt(&s.upper)?, opt(&s.step)?)
        }
        E::Starred(_) => return Err(err("a starred expression is only allowed in calls and displays")),
        E::BytesLiteral(_) => return Err(err("bytes literals are not supported")),
        E::Named(_) => return Err(err("assignment expressions (:=) are not allowed")),
        E::Await(_) | E::Yield(_) | E::YieldFrom(_) => return Err(err("await/yield are not allowed")),
        E::TString(_) => return Err(err("t-strings are not supported")),
        E::EllipsisLiteral(_) => return Err(err("the ellipsis literal is not supported")),
        E::IpyEscapeCommand(_) => return Err(err("IPython escape commands are not supported")),
    })
}

impl Node {
    /// Calls `f` on this node and, when `f` returns true, on its sub-expressions, depth first
    /// (lambda defaults and bodies, comprehension iterables, conditions and elements,
    /// f-string fields and format specs included).
    pub fn visit<'a>(&'a self, f: &mut dyn FnMut(&'a Node) -> bool) {
        if !f(self) {
            return;
        }
        fn elts<'a>(v: &'a [Elt], f: &mut dyn FnMut(&'a Node) -> bool) {
            for e in v {
                match e {
                    Elt::One(n) | Elt::Star(n) => n.visit(f),
                }
            }
        }
        fn comps<'a>(v: &'a [Comp], f: &mut dyn FnMut(&'a Node) -> bool) {
            for c in v {
                c.iter.visit(f);
                for n in &c.ifs {
                    n.visit(f);
                }
            }
        }
        fn parts<'a>(v: &'a [FPart], f: &mut dyn FnMut(&'a Node) -> bool) {
            for p in v {
                if let FPart::Value { expr, spec, .. } = p {
                    expr.visit(f);
                    parts(spec, f);
                }
            }
        }
        match self {
            Node::Const(_) | Node::Name(_) => {}
            Node::List(v) | Node::Tuple(v) | Node::Set(v) => elts(v, f),
            Node::Dict(items) => {
                for i in items {
                    match i {
                        DictItem::Pair(k, v) => {
                            k.visit(f);
                            v.visit(f);
                        }
                        DictItem::Unpack(m) => m.visit(f),
                    }
                }
            }
            Node::BinOp(a, _, b) | Node::Subscript(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Node::Unary(_, a) | Node::Attr(a, _) => a.visit(f),
            Node::And(v) | Node::Or(v) => v.iter().for_each(|n| n.visit(f)),
            Node::Compare(a, rest) => {
                a.visit(f);
                rest.iter().for_each(|(_, n)| n.visit(f));
            }
            Node::IfExp(a, b, c) => {
                a.visit(f);
                b.visit(f);
                c.visit(f);
            }
            Node::Slice(a, b, c) => [a, b, c].into_iter().flatten().for_each(|n| n.visit(f)),
            Node::Call(callee, args, kwargs) => {
                callee.visit(f);
                elts(args, f);
                kwargs.iter().for_each(|(_, n)| n.visit(f));
            }
            Node::ListComp(e, c) | Node::SetComp(e, c) | Node::GenExp(e, c) => {
                comps(c, f);
                e.visit(f);
            }
            Node::DictComp(k, v, c) => {
                comps(c, f);
                k.visit(f);
                v.visit(f);
            }
            Node::Lambda(params, body) => {
                params.names.iter().filter_map(|(_, d)| d.as_ref()).for_each(|n| n.visit(f));
                body.visit(f);
            }
            Node::FString(p) => parts(p, f),
        }
    }
}
