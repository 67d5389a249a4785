//! The evaluator's own value model: richer than JSON (tuples, sets, ints vs floats, callables,
//! regex objects), converted to and from [`crate::value::Value`] at the sandbox boundary.

use std::cmp::Ordering;
use std::rc::Rc;
use std::sync::Arc;

use indexmap::IndexMap;

use super::ast::{Comp, Node, Params};
use super::format::float_repr;
use super::pyre::{MatchObj, Pattern};
use super::{err, EResult};
use crate::value::Value;

/// The text of a Python `str` value, shared between the values that hold it. It is an
/// `Rc<String>`, not an `Rc<str>`, so that a string built in a `String` (a repetition, a join, a
/// `re.sub`) becomes a value without its bytes being copied: making an `Rc<str>` copies them,
/// which doubled the peak memory of a result near the memory budget. Dereferences to `str`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PyStr(Rc<String>);

impl std::ops::Deref for PyStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}
impl AsRef<str> for PyStr {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}
impl std::borrow::Borrow<str> for PyStr {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}
impl From<String> for PyStr {
    fn from(s: String) -> PyStr {
        PyStr(Rc::new(s))
    }
}
impl From<&str> for PyStr {
    fn from(s: &str) -> PyStr {
        PyStr(Rc::new(s.to_string()))
    }
}
impl From<&String> for PyStr {
    fn from(s: &String) -> PyStr {
        PyStr(Rc::new(s.clone()))
    }
}
impl From<char> for PyStr {
    fn from(c: char) -> PyStr {
        PyStr(Rc::new(c.to_string()))
    }
}
impl std::fmt::Debug for PyStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0.as_str(), f)
    }
}
impl std::fmt::Display for PyStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}
impl PyStr {
    /// Whether two values share one text (Python's `is` for strings).
    pub fn ptr_eq(a: &PyStr, b: &PyStr) -> bool {
        Rc::ptr_eq(&a.0, &b.0)
    }
}

/// A hashable projection of a value, used as the key of dicts and sets. Numbers that compare
/// equal in Python (`1`, `1.0`, `True`) project to the same key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HKey {
    /// `None`.
    None,
    /// An int, a bool, or a float with an integral value.
    Int(i64),
    /// Any other float, by its bit pattern (every NaN the same).
    Float(u64),
    /// A string.
    Str(PyStr),
    /// A tuple, item by item.
    Tuple(Vec<HKey>),
}

/// An ordered dict: keys in insertion order, each with its original key value.
pub type Dict = IndexMap<HKey, (PyVal, PyVal)>;
/// An ordered set (iteration order is insertion order, a documented deviation from CPython).
pub type Set = IndexMap<HKey, PyVal>;

/// A callable that is not a user lambda.
#[derive(Clone, Debug)]
pub enum Func {
    /// A builtin function or type used as a function (`len`, `str`, `sorted`).
    Builtin(&'static str),
    /// A method bound to a receiver (`"a,b".split`).
    Method(Box<PyVal>, &'static str),
    /// An unbound method of a type (`str.lower`), called with the receiver first.
    Unbound(&'static str, &'static str),
    /// A function of an allowed module (`json.loads`, `re.search`).
    ModuleFn(&'static str, &'static str),
}

/// A lambda with the local scopes it captured.
#[derive(Debug)]
pub struct Lambda {
    /// The parameters and their defaults.
    pub params: Arc<Params>,
    /// The body expression.
    pub body: Arc<Node>,
    /// The local bindings visible where it was created (name and value).
    pub captured: Vec<(Arc<str>, PyVal)>,
}

/// A lazily evaluated generator expression.
#[derive(Debug)]
pub struct Generator {
    /// The expression yielded for each binding.
    pub elt: Arc<Node>,
    /// The `for ... in ... if ...` clauses, outermost first.
    pub comps: Arc<Vec<Comp>>,
    /// The local bindings visible where it was created (name and value).
    pub captured: Vec<(Arc<str>, PyVal)>,
}

/// A value inside the sandbox.
#[derive(Clone, Debug)]
pub enum PyVal {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int` (64-bit; overflow is an error).
    Int(i64),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(PyStr),
    /// A `list`.
    List(Rc<Vec<PyVal>>),
    /// A `tuple`.
    Tuple(Rc<Vec<PyVal>>),
    /// A `dict`, in insertion order.
    Dict(Rc<Dict>),
    /// A `set`, in insertion order.
    Set(Rc<Set>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// A materialized iterator (`map`, `zip`, `enumerate`, `reversed`, dict views, ...), with
    /// the name of its Python type for messages.
    Iter(&'static str, Rc<Vec<PyVal>>),
    /// A generator expression's iterator.
    Gen(Rc<Generator>),
    /// A builtin, method or module function.
    Func(Func),
    /// A `lambda`.
    Lambda(Rc<Lambda>),
    /// An allowed module (`itertools`, `json`, `math` or `re`), by name.
    Module(&'static str),
    /// A type name used as a value (`str`, `int`), e.g. in `isinstance(x, str)`.
    Type(&'static str),
    /// A compiled regular expression (`re.Pattern`).
    Pattern(Rc<Pattern>),
    /// A match (`re.Match`).
    Match(Rc<MatchObj>),
}

impl PyVal {
    /// A new str value.
    pub fn str(s: impl Into<PyStr>) -> PyVal {
        PyVal::Str(s.into())
    }
    /// A new list value.
    pub fn list(v: Vec<PyVal>) -> PyVal {
        PyVal::List(Rc::new(v))
    }
    /// A new tuple value.
    pub fn tuple(v: Vec<PyVal>) -> PyVal {
        PyVal::Tuple(Rc::new(v))
    }

    /// Python's `type(x).__name__`.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyVal::None => "NoneType",
            PyVal::Bool(_) => "bool",
            PyVal::Int(_) => "int",
            PyVal::Float(_) => "float",
            PyVal::Str(_) => "str",
            PyVal::List(_) => "list",
            PyVal::Tuple(_) => "tuple",
            PyVal::Dict(_) => "dict",
            PyVal::Set(_) => "set",
            PyVal::Range(..) => "range",
            PyVal::Iter(n, _) => n,
            PyVal::Gen(_) => "generator",
            PyVal::Func(Func::Method(..)) => "builtin_function_or_method",
            PyVal::Func(_) => "builtin_function_or_method",
            PyVal::Lambda(_) => "function",
            PyVal::Module(_) => "module",
            PyVal::Type(_) => "type",
            PyVal::Pattern(_) => "re.Pattern",
            PyVal::Match(_) => "re.Match",
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            PyVal::None => false,
            PyVal::Bool(b) => *b,
            PyVal::Int(i) => *i != 0,
            PyVal::Float(f) => *f != 0.0,
            PyVal::Str(s) => !s.is_empty(),
            PyVal::List(v) | PyVal::Tuple(v) => !v.is_empty(),
            PyVal::Dict(d) => !d.is_empty(),
            PyVal::Set(s) => !s.is_empty(),
            PyVal::Range(a, b, s) => range_len(*a, *b, *s) > 0,
            _ => true,
        }
    }

    /// The hash key of a hashable value; errors for unhashable ones (lists, dicts, sets).
    pub fn hkey(&self) -> EResult<HKey> {
        Ok(match self {
            PyVal::None => HKey::None,
            PyVal::Bool(b) => HKey::Int(*b as i64),
            PyVal::Int(i) => HKey::Int(*i),
            PyVal::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    HKey::Int(*f as i64)
                } else if f.is_nan() {
                    HKey::Float(f64::NAN.to_bits())
                } else {
                    HKey::Float(f.to_bits())
                }
            }
            PyVal::Str(s) => HKey::Str(s.clone()),
            PyVal::Tuple(t) => HKey::Tuple(t.iter().map(|x| x.hkey()).collect::<EResult<_>>()?),
            PyVal::Type(n) | PyVal::Module(n) => HKey::Str(format!("<{n}>").into()),
            other => return Err(err(format!("unhashable type: '{}'", other.type_name()))),
        })
    }

    /// Numeric view for arithmetic: ints (and bools) as `Ok(Ok(i))`, floats as `Ok(Err(f))`.
    pub fn num(&self) -> Option<Result<i64, f64>> {
        match self {
            PyVal::Bool(b) => Some(Ok(*b as i64)),
            PyVal::Int(i) => Some(Ok(*i)),
            PyVal::Float(f) => Some(Err(*f)),
            _ => None,
        }
    }

    /// As f64 when numeric.
    pub fn as_f64(&self) -> Option<f64> {
        self.num().map(|n| match n {
            Ok(i) => i as f64,
            Err(f) => f,
        })
    }

    /// As an integer index (ints and bools only).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            PyVal::Bool(b) => Some(*b as i64),
            PyVal::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// Number of elements of `range(a, b, s)` (`s` not zero). Up to 2^64 - 1, more than an `int`
/// of the sandbox holds: `len()` of such a range is an error, as in Python.
pub fn range_len(a: i64, b: i64, s: i64) -> u64 {
    let (a, b, s) = (a as i128, b as i128, s as i128);
    let n = if s > 0 && a < b {
        (b - a - 1) / s + 1
    } else if s < 0 && a > b {
        (a - b - 1) / (-s) + 1
    } else {
        0
    };
    // 0 <= n <= 2^64 - 1: the span of two i64 is below 2^64.
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The `i`-th element of `range(a, b, s)`, for `i` below its length (always an i64 then).
pub fn range_item(a: i64, s: i64, i: u64) -> i64 {
    let v = a as i128 + i as i128 * s as i128;
    i64::try_from(v).unwrap_or(if s > 0 { i64::MAX } else { i64::MIN })
}

/// The position of `x` in `range(a, b, s)`, if it is an element.
pub fn range_position(a: i64, b: i64, s: i64, x: i64) -> Option<u64> {
    let d = x as i128 - a as i128;
    let s = s as i128;
    if d % s != 0 {
        return Option::None;
    }
    let k = d / s;
    (k >= 0 && k < range_len(a, b, s as i64) as i128).then_some(k as u64)
}

/// Python `==`.
pub fn py_eq(a: &PyVal, b: &PyVal) -> bool {
    use PyVal::*;
    if let (Some(x), Some(y)) = (a.num(), b.num()) {
        return match (x, y) {
            (Ok(i), Ok(j)) => i == j,
            (Ok(i), Err(f)) | (Err(f), Ok(i)) => int_float_cmp(i, f) == Some(Ordering::Equal),
            (Err(f), Err(g)) => f == g,
        };
    }
    match (a, b) {
        (None, None) => true,
        (Str(x), Str(y)) => x == y,
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| py_eq(p, q))
        }
        (Dict(x), Dict(y)) => {
            x.len() == y.len() && x.iter().all(|(k, (_, v))| y.get(k).is_some_and(|(_, w)| py_eq(v, w)))
        }
        (Set(x), Set(y)) => x.len() == y.len() && x.keys().all(|k| y.contains_key(k)),
        (Range(a1, b1, s1), Range(a2, b2, s2)) => {
            let (l1, l2) = (range_len(*a1, *b1, *s1), range_len(*a2, *b2, *s2));
            l1 == l2 && (l1 == 0 || (a1 == a2 && (l1 == 1 || s1 == s2)))
        }
        (Type(x), Type(y)) | (Module(x), Module(y)) => x == y,
        (PyVal::Func(self::Func::Builtin(x)), PyVal::Func(self::Func::Builtin(y))) => x == y,
        (Lambda(x), Lambda(y)) => Rc::ptr_eq(x, y),
        (Pattern(x), Pattern(y)) => x.source == y.source && x.flags == y.flags,
        (Match(x), Match(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// Compares an int with a float exactly, `None` when the float is NaN.
pub fn int_float_cmp(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return Option::None;
    }
    // Every float in [-2^63, 2^63) truncates to an i64 exactly; the others are beyond all i64.
    if f >= 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    if f < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
        o => Some(o),
    }
}

/// Python ordering (`<`): numbers, strs, lists and tuples (lexicographic); `Ok(None)` when
/// unordered (NaN); errors for types that do not support ordering.
pub fn py_cmp(a: &PyVal, b: &PyVal, op: &str) -> EResult<Option<Ordering>> {
    use PyVal::*;
    if let (Some(x), Some(y)) = (a.num(), b.num()) {
        return Ok(match (x, y) {
            (Ok(i), Ok(j)) => Some(i.cmp(&j)),
            (Ok(i), Err(f)) => int_float_cmp(i, f),
            (Err(f), Ok(i)) => int_float_cmp(i, f).map(|o| o.reverse()),
            (Err(f), Err(g)) => f.partial_cmp(&g),
        });
    }
    match (a, b) {
        (Str(x), Str(y)) => Ok(Some(x.cmp(y))),
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                if !py_eq(p, q) {
                    return py_cmp(p, q, op);
                }
            }
            Ok(Some(x.len().cmp(&y.len())))
        }
        (Set(x), Set(y)) => {
            let sub = x.keys().all(|k| y.contains_key(k));
            let sup = y.keys().all(|k| x.contains_key(k));
            Ok(match (sub, sup) {
                (true, true) => Some(Ordering::Equal),
                (true, false) => Some(Ordering::Less),
                (false, true) => Some(Ordering::Greater),
                _ => Option::None,
            })
        }
        _ => Err(err(format!(
            "'{op}' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ))),
    }
}

/// The longest `repr` that error messages quote; longer ones end with `...`.
pub const MESSAGE_REPR_LIMIT: usize = 4096;

/// Python `repr(x)` for messages: at most about [`MESSAGE_REPR_LIMIT`] bytes (cut with `...`).
pub fn repr(v: &PyVal) -> String {
    let mut out = String::new();
    if write_repr(v, &mut out, MESSAGE_REPR_LIMIT, 0).is_err() {
        let mut cut = MESSAGE_REPR_LIMIT.min(out.len());
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("...");
    }
    out
}

/// Python `str(x)` for messages (see [`repr`]).
pub fn to_str(v: &PyVal) -> String {
    match v {
        PyVal::Str(s) => s.to_string(),
        other => repr(other),
    }
}

/// Why a bounded `repr` stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReprStop {
    /// The text would be longer than the limit.
    TooLong,
    /// The value is nested deeper than [`super::eval::MAX_NESTING`].
    TooDeep,
}

/// Python `repr(x)`, or an error when it would be longer than `limit` bytes or nested deeper
/// than [`super::eval::MAX_NESTING`]. The text is never built past the limit (a shared value
/// repeated many times stops as soon as the limit is reached).
pub fn repr_limited(v: &PyVal, limit: usize) -> Result<String, ReprStop> {
    precheck(v, limit)?;
    let mut out = String::new();
    write_repr(v, &mut out, limit, 0)?;
    Ok(out)
}

/// Python `str(x)` with the bounds of [`repr_limited`].
pub fn to_str_limited(v: &PyVal, limit: usize) -> Result<String, ReprStop> {
    match v {
        PyVal::Str(s) if s.len() <= limit => Ok(s.to_string()),
        PyVal::Str(_) => Err(ReprStop::TooLong),
        other => repr_limited(other, limit),
    }
}

/// A length that `repr(v)` is at least (in bytes), found without writing it: each distinct
/// container is walked once (`memo`, by address), so a shared value repeated many times costs
/// one visit per slot. `None` when `v` is nested deeper than [`super::eval::MAX_NESTING`].
pub fn repr_len_at_least(v: &PyVal, memo: &mut std::collections::HashMap<usize, u128>, depth: usize) -> Option<u128> {
    if depth > super::eval::MAX_NESTING {
        return Option::None;
    }
    let seq = |items: &mut dyn Iterator<Item = &PyVal>, memo: &mut std::collections::HashMap<usize, u128>| -> Option<u128> {
        let mut n: u128 = 2;
        for (i, x) in items.enumerate() {
            let sep = if i > 0 { 2 } else { 0 };
            let inner = stacker::maybe_grow(super::ast::STACK_RED_ZONE, super::ast::STACK_GROW, || {
                repr_len_at_least(x, memo, depth + 1)
            })?;
            n = n.saturating_add(sep + inner);
        }
        Some(n)
    };
    let key = match v {
        PyVal::Str(s) => return Some(s.len() as u128 + 2),
        PyVal::List(x) | PyVal::Tuple(x) => Rc::as_ptr(x) as *const () as usize,
        PyVal::Dict(d) => Rc::as_ptr(d) as *const () as usize,
        PyVal::Set(x) => Rc::as_ptr(x) as *const () as usize,
        _ => return Some(1),
    };
    if let Some(n) = memo.get(&key) {
        return Some(*n);
    }
    let n = match v {
        PyVal::List(x) | PyVal::Tuple(x) => seq(&mut x.iter(), memo)?,
        PyVal::Dict(d) => seq(&mut d.values().flat_map(|(k, v)| [k, v]), memo)?,
        PyVal::Set(x) => seq(&mut x.values(), memo)?,
        _ => 1,
    };
    memo.insert(key, n);
    Some(n)
}

/// Errors when `repr(v)` is surely longer than `limit` or too deep, before writing anything.
fn precheck(v: &PyVal, limit: usize) -> Result<(), ReprStop> {
    if !matches!(v, PyVal::List(_) | PyVal::Tuple(_) | PyVal::Dict(_) | PyVal::Set(_)) {
        return Ok(());
    }
    match repr_len_at_least(v, &mut std::collections::HashMap::new(), 0) {
        Option::None => Err(ReprStop::TooDeep),
        Some(n) if n > limit as u128 => Err(ReprStop::TooLong),
        Some(_) => Ok(()),
    }
}

fn write_seq(items: &[PyVal], open: &str, close: &str, out: &mut String, limit: usize, depth: usize) -> Result<(), ReprStop> {
    out.push_str(open);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(x, out, limit, depth + 1)?;
    }
    out.push_str(close);
    check_len(out, limit)
}

fn check_len(out: &str, limit: usize) -> Result<(), ReprStop> {
    if out.len() > limit {
        Err(ReprStop::TooLong)
    } else {
        Ok(())
    }
}

fn write_repr(v: &PyVal, out: &mut String, limit: usize, depth: usize) -> Result<(), ReprStop> {
    if depth > super::eval::MAX_NESTING {
        return Err(ReprStop::TooDeep);
    }
    check_len(out, limit)?;
    match v {
        PyVal::None => out.push_str("None"),
        PyVal::Bool(true) => out.push_str("True"),
        PyVal::Bool(false) => out.push_str("False"),
        PyVal::Int(i) => out.push_str(&i.to_string()),
        PyVal::Float(f) => out.push_str(&float_repr(*f)),
        PyVal::Str(s) => {
            // The repr is at least as long as the text.
            check_len(out, limit.saturating_sub(s.len()))?;
            out.push_str(&str_repr(s))
        }
        PyVal::List(v) => write_seq(v, "[", "]", out, limit, depth)?,
        PyVal::Tuple(v) => {
            if v.len() == 1 {
                out.push('(');
                write_repr(&v[0], out, limit, depth + 1)?;
                out.push_str(",)");
            } else {
                write_seq(v, "(", ")", out, limit, depth)?
            }
        }
        PyVal::Dict(d) => {
            out.push('{');
            for (i, (k, v)) in d.values().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, out, limit, depth + 1)?;
                out.push_str(": ");
                write_repr(v, out, limit, depth + 1)?;
            }
            out.push('}');
        }
        PyVal::Set(s) => {
            if s.is_empty() {
                out.push_str("set()");
            } else {
                out.push('{');
                for (i, x) in s.values().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_repr(x, out, limit, depth + 1)?;
                }
                out.push('}');
            }
        }
        PyVal::Range(a, b, s) => {
            if *s == 1 {
                out.push_str(&format!("range({a}, {b})"))
            } else {
                out.push_str(&format!("range({a}, {b}, {s})"))
            }
        }
        PyVal::Iter(n, _) => out.push_str(&format!("<{n} object>")),
        PyVal::Gen(_) => out.push_str("<generator object <genexpr>>"),
        PyVal::Func(Func::Builtin(n)) => out.push_str(&format!("<built-in function {n}>")),
        PyVal::Func(Func::Method(r, n)) => {
            out.push_str(&format!("<built-in method {n} of {} object>", r.type_name()))
        }
        PyVal::Func(Func::Unbound(t, n)) => out.push_str(&format!("<method '{n}' of '{t}' objects>")),
        PyVal::Func(Func::ModuleFn(m, n)) => out.push_str(&format!("<function {m}.{n}>")),
        PyVal::Lambda(_) => out.push_str("<function <lambda>>"),
        PyVal::Module(m) => out.push_str(&format!("<module '{m}'>")),
        PyVal::Type(t) => out.push_str(&format!("<class '{t}'>")),
        PyVal::Pattern(p) => {
            check_len(out, limit.saturating_sub(p.source.len()))?;
            out.push_str(&format!("re.compile({})", str_repr(&p.source)))
        }
        PyVal::Match(m) => {
            let (s, e) = m.span(0).unwrap_or((0, 0));
            let g = m.group_str(0).unwrap_or_default();
            check_len(out, limit.saturating_sub(g.len()))?;
            out.push_str(&format!("<re.Match object; span=({s}, {e}), match={}>", str_repr(&g)))
        }
    }
    check_len(out, limit)
}

/// Python `repr` of a str: single quotes unless the text has `'` and no `"`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c)
            }
            c if is_printable(c) => out.push(c),
            c => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"))
                } else if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"))
                } else {
                    out.push_str(&format!("\\U{n:08x}"))
                }
            }
        }
    }
    out.push(quote);
    out
}

/// An approximation of Python's `str.isprintable` for one character: control characters,
/// separators other than the ASCII space, and unassigned/private code points are escaped.
fn is_printable(c: char) -> bool {
    let n = c as u32;
    if n < 0x20 || (0x7f..0xa0).contains(&n) {
        return false;
    }
    if c == ' ' {
        return true;
    }
    if c.is_whitespace() {
        return false;
    }
    !matches!(n, 0xad | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x206f | 0xfeff | 0xd800..=0xdfff
        | 0xe000..=0xf8ff | 0xfff9..=0xfffb | 0xf0000..)
}

/// Converts an engine value into a sandbox value.
pub fn from_value(v: &Value) -> EResult<PyVal> {
    Ok(match v {
        Value::Null => PyVal::None,
        Value::Bool(b) => PyVal::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                PyVal::Int(i)
            } else if n.is_u64() {
                return Err(err(format!("integer {n} is too large for the expression sandbox")));
            } else {
                PyVal::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => PyVal::str(s.as_str()),
        Value::Array(a) => PyVal::list(a.iter().map(from_value).collect::<EResult<_>>()?),
        Value::Object(m) => {
            let mut d = Dict::with_capacity(m.len());
            for (k, v) in m {
                let key: PyStr = k.as_str().into();
                d.insert(HKey::Str(key.clone()), (PyVal::Str(key), from_value(v)?));
            }
            PyVal::Dict(Rc::new(d))
        }
    })
}

/// Converts a sandbox value back to an engine value: tuples, sets, ranges and iterators become
/// arrays; dict keys that are not strs become their `str()`. Errors for NaN/infinite floats
/// and for callables, modules and regex objects.
pub fn to_value(v: &PyVal) -> EResult<Value> {
    Ok(match v {
        PyVal::None => Value::Null,
        PyVal::Bool(b) => Value::Bool(*b),
        PyVal::Int(i) => Value::from(*i),
        PyVal::Float(f) => Value::Number(crate::value::Number::float(*f)),
        PyVal::Str(s) => Value::String(crate::value::Str::from(&**s)),
        PyVal::List(v) | PyVal::Tuple(v) | PyVal::Iter(_, v) => {
            Value::Array(v.iter().map(to_value).collect::<EResult<_>>()?)
        }
        PyVal::Set(s) => Value::Array(s.values().map(to_value).collect::<EResult<_>>()?),
        PyVal::Range(a, b, s) => {
            let n = range_len(*a, *b, *s);
            Value::Array((0..n).map(|i| Value::from(range_item(*a, *s, i))).collect())
        }
        PyVal::Dict(d) => {
            let mut m = crate::value::Map::with_capacity(d.len());
            for (k, v) in d.values() {
                m.insert(to_str(k).into(), to_value(v)?);
            }
            Value::Object(m)
        }
        other => {
            return Err(err(format!(
                "a value of type '{}' cannot be stored in an instance",
                other.type_name()
            )))
        }
    })
}
