//! The allow-listed callables: builtin functions, methods of str/list/tuple/dict and of regex
//! objects, and the modules `re`, `json`, `math` and `itertools`.

use std::rc::Rc;

use super::eval::{dict_insert, Ctx};
use super::format::{float_repr, format_value, round_float};
use super::pyre::{self, Mode};
use super::value::{from_value, int_float_cmp, py_cmp, py_eq, range_len, repr, Dict, Func, HKey, PyStr, PyVal, Set};
use super::{err, EResult};
use crate::py::json::{dumps, DumpOptions};
use crate::value::Value;

const BUILTINS: &[&str] = &[
    "abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "filter", "float", "format", "int",
    "isinstance", "len", "list", "map", "max", "min", "ord", "pow", "range", "repr", "reversed", "round", "set",
    "sorted", "str", "sum", "tuple", "zip",
];
const MODULES: &[&str] = &["itertools", "json", "math", "re"];
const STR_METHODS: &[&str] = &[
    "capitalize", "center", "count", "endswith", "find", "format", "index", "isalnum", "isalpha", "isdigit",
    "islower", "isnumeric", "isspace", "isupper", "join", "ljust", "lower", "lstrip", "partition", "removeprefix",
    "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
    "startswith", "strip", "swapcase", "title", "upper", "zfill", "casefold",
];
const SEQ_METHODS: &[&str] = &["count", "index"];
const DICT_METHODS: &[&str] = &["get", "items", "keys", "values"];
const MATCH_METHODS: &[&str] = &["end", "group", "groupdict", "groups", "span", "start"];
const PATTERN_METHODS: &[&str] = &["findall", "finditer", "fullmatch", "match", "search", "split", "sub"];
const RE_FNS: &[&str] = &["compile", "escape", "findall", "finditer", "fullmatch", "match", "search", "split", "sub"];
const MATH_FNS: &[&str] =
    &["ceil", "exp", "fabs", "floor", "isclose", "isinf", "isnan", "log", "log10", "log2", "pow", "sqrt", "trunc"];

fn find_static(list: &[&'static str], name: &str) -> Option<&'static str> {
    list.iter().copied().find(|n| *n == name)
}

/// The static name of an allowed builtin.
pub fn builtin_static(name: &str) -> Option<&'static str> {
    find_static(BUILTINS, name)
}

/// The static name of an allowed module.
pub fn module_static(name: &str) -> Option<&'static str> {
    find_static(MODULES, name)
}

fn no_attr(o: &PyVal, name: &str) -> super::Error {
    match o {
        PyVal::Module(m) => err(format!("module '{m}' has no attribute '{name}' (or it is not allowed)")),
        PyVal::Type(t) => err(format!("type object '{t}' has no attribute '{name}' (or it is not allowed)")),
        _ => err(format!("'{}' object has no attribute '{name}' (or it is not allowed)", o.type_name())),
    }
}

/// Attribute access `o.name`, limited to the allow-listed methods and constants.
pub fn get_attr(o: &PyVal, name: &str) -> EResult<PyVal> {
    let method = |list: &[&'static str]| -> EResult<PyVal> {
        match find_static(list, name) {
            Some(n) => Ok(PyVal::Func(Func::Method(Box::new(o.clone()), n))),
            None => Err(no_attr(o, name)),
        }
    };
    match o {
        PyVal::Str(_) => method(STR_METHODS),
        PyVal::List(_) | PyVal::Tuple(_) => method(SEQ_METHODS),
        PyVal::Dict(_) => method(DICT_METHODS),
        PyVal::Match(m) => match name {
            "string" => Ok(PyVal::Str(m.text.clone())),
            _ => method(MATCH_METHODS),
        },
        PyVal::Pattern(p) => match name {
            "pattern" => Ok(PyVal::Str(p.source.clone())),
            "flags" => Ok(PyVal::Int(p.flags)),
            "groups" => Ok(PyVal::Int(p.groups() as i64)),
            _ => method(PATTERN_METHODS),
        },
        PyVal::Float(f) if name == "is_integer" => {
            Ok(PyVal::Func(Func::Method(Box::new(PyVal::Float(*f)), "is_integer")))
        }
        PyVal::Type(t) => {
            let list: &[&'static str] = match *t {
                "str" => STR_METHODS,
                "list" | "tuple" => SEQ_METHODS,
                "dict" => DICT_METHODS,
                _ => &[],
            };
            match find_static(list, name) {
                Some(n) => Ok(PyVal::Func(Func::Unbound(t, n))),
                None => Err(no_attr(o, name)),
            }
        }
        PyVal::Module(m) => {
            let list: &[&'static str] = match *m {
                "re" => {
                    let flag = match name {
                        "I" | "IGNORECASE" => Some(pyre::IGNORECASE),
                        "M" | "MULTILINE" => Some(pyre::MULTILINE),
                        "S" | "DOTALL" => Some(pyre::DOTALL),
                        "X" | "VERBOSE" => Some(pyre::VERBOSE),
                        "U" | "UNICODE" => Some(32),
                        _ => None,
                    };
                    if let Some(f) = flag {
                        return Ok(PyVal::Int(f));
                    }
                    RE_FNS
                }
                "json" => &["dumps", "loads"],
                "math" => {
                    let c = match name {
                        "pi" => Some(std::f64::consts::PI),
                        "e" => Some(std::f64::consts::E),
                        "inf" => Some(f64::INFINITY),
                        "nan" => Some(f64::NAN),
                        "tau" => Some(std::f64::consts::TAU),
                        _ => None,
                    };
                    if let Some(c) = c {
                        return Ok(PyVal::Float(c));
                    }
                    MATH_FNS
                }
                "itertools" => &["product"],
                _ => &[],
            };
            match find_static(list, name) {
                Some(n) => Ok(PyVal::Func(Func::ModuleFn(m, n))),
                None => Err(no_attr(o, name)),
            }
        }
        _ => Err(no_attr(o, name)),
    }
}

/// Arguments of one call, with checked access by position or keyword.
struct Args<'s> {
    fname: &'s str,
    pos: Vec<PyVal>,
    kw: Vec<(PyStr, PyVal)>,
}

impl<'s> Args<'s> {
    fn new(fname: &'s str, pos: Vec<PyVal>, kw: Vec<(PyStr, PyVal)>) -> Self {
        Args { fname, pos, kw }
    }
    /// Checks arity and keyword names.
    fn check(&self, min: usize, max: usize, kw_names: &[&str]) -> EResult<()> {
        if self.pos.len() < min {
            return Err(err(format!(
                "{}() takes at least {min} positional argument(s) ({} given)",
                self.fname,
                self.pos.len()
            )));
        }
        if self.pos.len() > max {
            return Err(err(format!(
                "{}() takes at most {max} positional argument(s) ({} given)",
                self.fname,
                self.pos.len()
            )));
        }
        for (k, _) in &self.kw {
            if !kw_names.contains(&&**k) {
                return Err(err(format!("{}() got an unexpected keyword argument '{k}'", self.fname)));
            }
        }
        Ok(())
    }
    /// Argument by position `i` or keyword `name`.
    fn get(&self, i: usize, name: &str) -> Option<PyVal> {
        self.pos.get(i).cloned().or_else(|| self.kw.iter().find(|(k, _)| &**k == name).map(|(_, v)| v.clone()))
    }
    fn kw(&self, name: &str) -> Option<PyVal> {
        self.kw.iter().find(|(k, _)| &**k == name).map(|(_, v)| v.clone())
    }
    fn req(&self, i: usize, name: &str) -> EResult<PyVal> {
        self.get(i, name).ok_or_else(|| err(format!("{}() missing required argument '{name}'", self.fname)))
    }
    fn int_or(&self, i: usize, name: &str, default: i64) -> EResult<i64> {
        match self.get(i, name) {
            None | Some(PyVal::None) => Ok(default),
            Some(v) => v.as_int().ok_or_else(|| {
                err(format!("{}(): '{}' object cannot be interpreted as an integer", self.fname, v.type_name()))
            }),
        }
    }
    fn str_arg(&self, i: usize, name: &str) -> EResult<PyStr> {
        match self.req(i, name)? {
            PyVal::Str(s) => Ok(s),
            v => Err(err(format!("{}() argument '{name}' must be str, not {}", self.fname, v.type_name()))),
        }
    }
}

fn as_f64(v: &PyVal, f: &str) -> EResult<f64> {
    v.as_f64().ok_or_else(|| err(format!("{f}(): must be real number, not {}", v.type_name())))
}

/// Parses an `int()` literal: `None` when it is not one, `Some(Err)` when it is one that does
/// not fit in the sandbox's 64-bit ints.
fn parse_int_str(s: &str, base: u32) -> Option<EResult<i64>> {
    let t = s.trim_matches(py_isspace);
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let t = if base == 16 {
        t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t)
    } else if base == 8 {
        t.strip_prefix("0o").or_else(|| t.strip_prefix("0O")).unwrap_or(t)
    } else if base == 2 {
        t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")).unwrap_or(t)
    } else {
        t
    };
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let digits: String = t.chars().filter(|c| *c != '_').map(|c| c.to_digit(10).and_then(|d| char::from_digit(d, 10)).unwrap_or(c)).collect();
    if !digits.chars().all(|c| c.is_digit(base)) {
        return None;
    }
    let signed = if neg { format!("-{digits}") } else { digits };
    Some(i64::from_str_radix(&signed, base).map_err(|_| super::eval::out_of_range("the int() of this string")))
}

fn parse_float_str(s: &str) -> Option<f64> {
    let t = s.trim_matches(py_isspace);
    if t.contains("__") || t.starts_with('_') || t.ends_with('_') {
        return None;
    }
    let t: String = t.chars().filter(|c| *c != '_').collect();
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        let v = if body == "nan" { f64::NAN } else { f64::INFINITY };
        return Some(if lower.starts_with('-') { -v } else { v });
    }
    if !body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-')) {
        return None;
    }
    t.parse().ok()
}

fn float_to_int(f: f64) -> EResult<i64> {
    if f.is_nan() {
        return Err(err("cannot convert float NaN to integer"));
    }
    if f.is_infinite() {
        return Err(err("cannot convert float infinity to integer"));
    }
    let t = f.trunc();
    // Exactly the floats in [-2^63, 2^63) convert.
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        return Err(super::eval::out_of_range("the int of this float"));
    }
    Ok(t as i64)
}

pub use crate::py::ops::is_py_space as py_isspace;

fn is_type(v: &PyVal, t: &str) -> bool {
    match t {
        "int" => matches!(v, PyVal::Int(_) | PyVal::Bool(_)),
        "range" => matches!(v, PyVal::Range(..)),
        other => v.type_name() == other,
    }
}

/// Python's `<` for sorting, made a total order: as [`py_cmp`] for everything Python orders,
/// except that NaN (which Python leaves unordered, making its result depend on the sort's
/// internals) sorts after every number, or before them when its sign bit is set. Errors for
/// values Python refuses to order.
fn sort_cmp(a: &PyVal, b: &PyVal) -> EResult<std::cmp::Ordering> {
    use std::cmp::Ordering;
    let nan_rank = |f: f64| if f.is_sign_negative() { Ordering::Less } else { Ordering::Greater };
    if let (Some(x), Some(y)) = (a.num(), b.num()) {
        return Ok(match (x, y) {
            (Ok(i), Ok(j)) => i.cmp(&j),
            (Ok(i), Err(f)) => int_float_cmp(i, f).unwrap_or_else(|| nan_rank(f).reverse()),
            (Err(f), Ok(i)) => int_float_cmp(i, f).map(Ordering::reverse).unwrap_or_else(|| nan_rank(f)),
            (Err(f), Err(g)) => match (f.is_nan(), g.is_nan()) {
                (false, false) => f.partial_cmp(&g).unwrap_or(Ordering::Equal),
                (true, false) => nan_rank(f),
                (false, true) => nan_rank(g).reverse(),
                (true, true) => g.is_sign_negative().cmp(&f.is_sign_negative()),
            },
        });
    }
    match (a, b) {
        (PyVal::List(x), PyVal::List(y)) | (PyVal::Tuple(x), PyVal::Tuple(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                if py_eq(p, q) {
                    continue;
                }
                let o = sort_cmp(p, q)?;
                if o != Ordering::Equal {
                    return Ok(o);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        // Sets are only partially ordered (by inclusion): incomparable ones count as equal.
        _ => Ok(py_cmp(a, b, "<")?.unwrap_or(Ordering::Equal)),
    }
}

/// A stable merge sort of `idx` by `keys`, `descending` or not: never panics whatever the
/// comparisons say, and stops at the first comparison error.
fn merge_sort(idx: &mut [usize], keys: &[PyVal], descending: bool) -> EResult<()> {
    // Whether the element at position `j` (later) goes before the one at `i` (earlier): the
    // later one is compared first, as Python's sort does.
    let before = |j: usize, i: usize| -> EResult<bool> {
        let o = sort_cmp(&keys[j], &keys[i])?;
        Ok(if descending { o == std::cmp::Ordering::Greater } else { o == std::cmp::Ordering::Less })
    };
    let n = idx.len();
    let mut buf = idx.to_vec();
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if before(idx[j], idx[i])? {
                    buf[k] = idx[j];
                    j += 1;
                } else {
                    buf[k] = idx[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - i)].copy_from_slice(&idx[i..mid]);
            k += mid - i;
            buf[k..k + (hi - j)].copy_from_slice(&idx[j..hi]);
            lo = hi;
        }
        idx.copy_from_slice(&buf);
        width *= 2;
    }
    Ok(())
}

fn sort_values(ctx: &mut Ctx, items: Vec<PyVal>, key: Option<PyVal>, reverse: bool) -> EResult<Vec<PyVal>> {
    let n = items.len();
    // n * ceil(log2 n) comparisons at most, charged before sorting.
    let levels = usize::BITS - n.saturating_sub(1).leading_zeros();
    ctx.tick_n(n as u64 * levels as u64)?;
    ctx.charge_items(n)?;
    let keys = match &key {
        Some(PyVal::None) | None => items.clone(),
        Some(f) => {
            let mut ks = Vec::with_capacity(items.len());
            for x in &items {
                ks.push(ctx.call(f, vec![x.clone()], vec![])?);
            }
            ks
        }
    };
    let mut idx: Vec<usize> = (0..n).collect();
    merge_sort(&mut idx, &keys, reverse)?;
    Ok(idx.into_iter().map(|i| items[i].clone()).collect())
}

fn min_max(ctx: &mut Ctx, a: &Args, want_max: bool) -> EResult<PyVal> {
    a.check(1, usize::MAX, &["key", "default"])?;
    let items = if a.pos.len() == 1 { ctx.to_vec(&a.pos[0])? } else { a.pos.clone() };
    if items.is_empty() {
        return match a.kw("default") {
            Some(d) => Ok(d),
            None => Err(err(format!("{}() arg is an empty sequence", a.fname))),
        };
    }
    let key = a.kw("key").filter(|k| !matches!(k, PyVal::None));
    let mut best = items[0].clone();
    let mut best_key = match &key {
        Some(f) => ctx.call(f, vec![best.clone()], vec![])?,
        None => best.clone(),
    };
    for x in items.into_iter().skip(1) {
        let k = match &key {
            Some(f) => ctx.call(f, vec![x.clone()], vec![])?,
            None => x.clone(),
        };
        let better = if want_max {
            py_cmp(&k, &best_key, ">")? == Some(std::cmp::Ordering::Greater)
        } else {
            py_cmp(&k, &best_key, "<")? == Some(std::cmp::Ordering::Less)
        };
        if better {
            best = x;
            best_key = k;
        }
    }
    Ok(best)
}

fn to_dict(ctx: &mut Ctx, v: &PyVal) -> EResult<Dict> {
    if let PyVal::Dict(d) = v {
        return Ok((**d).clone());
    }
    let mut d = Dict::new();
    for item in ctx.to_vec(v)? {
        let pair = ctx.to_vec(&item)?;
        if pair.len() != 2 {
            return Err(err(format!(
                "dictionary update sequence element has length {}; 2 is required",
                pair.len()
            )));
        }
        let mut it = pair.into_iter();
        let (k, v) = (it.next().unwrap_or(PyVal::None), it.next().unwrap_or(PyVal::None));
        dict_insert(&mut d, k, v)?;
    }
    Ok(d)
}

/// Calls a builtin function or type by name.
pub fn call_builtin(ctx: &mut Ctx, name: &str, args: Vec<PyVal>, kwargs: Vec<(PyStr, PyVal)>) -> EResult<PyVal> {
    let a = Args::new(name, args, kwargs);
    match name {
        "len" => {
            a.check(1, 1, &[])?;
            let n = match &a.pos[0] {
                PyVal::Str(s) => {
                    ctx.tick_text(s.len())?;
                    s.chars().count()
                }
                PyVal::List(v) | PyVal::Tuple(v) => v.len(),
                PyVal::Iter(n, v) if n.starts_with("dict_") => v.len(),
                PyVal::Dict(d) => d.len(),
                PyVal::Set(s) => s.len(),
                PyVal::Range(x, y, z) => {
                    let n = range_len(*x, *y, *z);
                    return i64::try_from(n)
                        .map(PyVal::Int)
                        .map_err(|_| err("OverflowError: Python int too large to convert to C ssize_t"));
                }
                other => return Err(err(format!("object of type '{}' has no len()", other.type_name()))),
            };
            Ok(PyVal::Int(n as i64))
        }
        "str" => {
            a.check(0, 1, &[])?;
            match a.pos.first() {
                None => Ok(PyVal::str("")),
                Some(PyVal::Str(s)) => Ok(PyVal::Str(s.clone())),
                Some(v) => {
                    let s = ctx.to_str_str(v)?;
                    ctx.new_str(s)
                }
            }
        }
        "repr" => {
            a.check(1, 1, &[])?;
            let s = ctx.repr_str(&a.pos[0])?;
            ctx.new_str(s)
        }
        "format" => {
            a.check(1, 2, &[])?;
            let spec = match a.pos.get(1) {
                Some(PyVal::Str(s)) => s.to_string(),
                None => String::new(),
                Some(v) => return Err(err(format!("format() argument 2 must be str, not {}", v.type_name()))),
            };
            let s = format_value(&a.pos[0], &spec, ctx.bytes_left())?;
            ctx.new_str(s)
        }
        "int" => {
            a.check(0, 2, &["base"])?;
            let Some(v) = a.get(0, "x") else { return Ok(PyVal::Int(0)) };
            let base = a.get(1, "base");
            match (&v, base) {
                (PyVal::Str(s), b) => {
                    let base = match b {
                        Some(b) => b.as_int().ok_or_else(|| err("int() base must be an integer"))?,
                        None => 10,
                    };
                    if !(2..=36).contains(&base) {
                        return Err(err("int() base must be >= 2 and <= 36, or 0"));
                    }
                    match parse_int_str(s, base as u32) {
                        Some(r) => r.map(PyVal::Int),
                        None => Err(err(format!("invalid literal for int() with base {base}: {}", repr(&v)))),
                    }
                }
                (_, Some(_)) => Err(err("int() can't convert non-string with explicit base")),
                (PyVal::Int(i), None) => Ok(PyVal::Int(*i)),
                (PyVal::Bool(b), None) => Ok(PyVal::Int(*b as i64)),
                (PyVal::Float(f), None) => Ok(PyVal::Int(float_to_int(*f)?)),
                (other, None) => Err(err(format!(
                    "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                    other.type_name()
                ))),
            }
        }
        "float" => {
            a.check(0, 1, &[])?;
            match a.pos.first() {
                None => Ok(PyVal::Float(0.0)),
                Some(PyVal::Str(s)) => parse_float_str(s)
                    .map(PyVal::Float)
                    .ok_or_else(|| err(format!("could not convert string to float: {}", repr(&a.pos[0])))),
                Some(v) => v.as_f64().map(PyVal::Float).ok_or_else(|| {
                    err(format!("float() argument must be a string or a real number, not '{}'", v.type_name()))
                }),
            }
        }
        "bool" => {
            a.check(0, 1, &[])?;
            Ok(PyVal::Bool(a.pos.first().is_some_and(|v| v.truthy())))
        }
        "list" | "tuple" => {
            a.check(0, 1, &[])?;
            let v = match a.pos.first() {
                Some(x) => ctx.to_vec(x)?,
                None => vec![],
            };
            ctx.charge_items(v.len())?;
            Ok(if name == "list" { PyVal::list(v) } else { PyVal::tuple(v) })
        }
        "set" => {
            a.check(0, 1, &[])?;
            let mut s = Set::new();
            if let Some(x) = a.pos.first() {
                for v in ctx.to_vec(x)? {
                    s.insert(v.hkey()?, v);
                }
            }
            ctx.charge_items(s.len())?;
            Ok(PyVal::Set(Rc::new(s)))
        }
        "dict" => {
            if a.pos.len() > 1 {
                return Err(err(format!("dict expected at most 1 argument, got {}", a.pos.len())));
            }
            let mut d = match a.pos.first() {
                Some(x) => to_dict(ctx, x)?,
                None => Dict::new(),
            };
            for (k, v) in &a.kw {
                dict_insert(&mut d, PyVal::Str(k.clone()), v.clone())?;
            }
            ctx.charge_items(2 * d.len())?;
            Ok(PyVal::Dict(Rc::new(d)))
        }
        "range" => {
            a.check(1, 3, &[])?;
            let ints: Vec<i64> = a
                .pos
                .iter()
                .map(|v| {
                    v.as_int().ok_or_else(|| {
                        err(format!("'{}' object cannot be interpreted as an integer", v.type_name()))
                    })
                })
                .collect::<EResult<_>>()?;
            let (s, e, st) = match ints.as_slice() {
                [e] => (0, *e, 1),
                [s, e] => (*s, *e, 1),
                [s, e, st] => (*s, *e, *st),
                _ => (0, 0, 1),
            };
            if st == 0 {
                return Err(err("range() arg 3 must not be zero"));
            }
            Ok(PyVal::Range(s, e, st))
        }
        "zip" => {
            a.check(0, usize::MAX, &["strict"])?;
            let lists: Vec<Vec<PyVal>> = a.pos.iter().map(|x| ctx.to_vec(x)).collect::<EResult<_>>()?;
            let n = lists.iter().map(|l| l.len()).min().unwrap_or(0);
            if a.kw("strict").is_some_and(|s| s.truthy()) && lists.iter().any(|l| l.len() != n) {
                return Err(err("zip() arguments have different lengths"));
            }
            ctx.charge_items(n * (lists.len() + 1))?;
            let out = (0..n).map(|i| PyVal::tuple(lists.iter().map(|l| l[i].clone()).collect())).collect();
            Ok(PyVal::Iter("zip", Rc::new(out)))
        }
        "enumerate" => {
            a.check(1, 2, &["start"])?;
            let start = a.int_or(1, "start", 0)?;
            let items = ctx.to_vec(&a.req(0, "iterable")?)?;
            ctx.charge_items(items.len().saturating_mul(3))?;
            let mut out = Vec::with_capacity(items.len());
            for (i, x) in items.into_iter().enumerate() {
                let k = i64::try_from(i)
                    .ok()
                    .and_then(|i| start.checked_add(i))
                    .ok_or_else(|| super::eval::out_of_range("an enumerate() count"))?;
                out.push(PyVal::tuple(vec![PyVal::Int(k), x]));
            }
            Ok(PyVal::Iter("enumerate", Rc::new(out)))
        }
        "reversed" => {
            a.check(1, 1, &[])?;
            match &a.pos[0] {
                PyVal::List(_) | PyVal::Tuple(_) | PyVal::Str(_) | PyVal::Range(..) | PyVal::Iter("dict_keys", _) => {}
                PyVal::Dict(_) => {}
                other => return Err(err(format!("'{}' object is not reversible", other.type_name()))),
            }
            let mut items = ctx.to_vec(&a.pos[0])?;
            items.reverse();
            ctx.charge_items(items.len())?;
            Ok(PyVal::Iter("reversed", Rc::new(items)))
        }
        "sorted" => {
            a.check(1, 1, &["key", "reverse"])?;
            let items = ctx.to_vec(&a.pos[0])?;
            let rev = a.kw("reverse").is_some_and(|r| r.truthy());
            Ok(PyVal::list(sort_values(ctx, items, a.kw("key"), rev)?))
        }
        "min" => min_max(ctx, &a, false),
        "max" => min_max(ctx, &a, true),
        "sum" => {
            a.check(1, 2, &["start"])?;
            let mut acc = a.get(1, "start").unwrap_or(PyVal::Int(0));
            if matches!(acc, PyVal::Str(_)) {
                return Err(err("sum() can't sum strings [use ''.join(seq) instead]"));
            }
            let items = a.pos[0].clone();
            ctx.iterate(&items, &mut |ctx, x| {
                acc = ctx.binop(super::ast::BinOp::Add, &acc, &x)?;
                Ok(true)
            })?;
            Ok(acc)
        }
        "any" | "all" => {
            a.check(1, 1, &[])?;
            let want = name == "any";
            let mut result = !want;
            ctx.iterate(&a.pos[0], &mut |_, x| {
                if x.truthy() == want {
                    result = want;
                    return Ok(false);
                }
                Ok(true)
            })?;
            Ok(PyVal::Bool(result))
        }
        "round" => {
            a.check(1, 2, &["ndigits"])?;
            let x = a.req(0, "number")?;
            let nd = a.get(1, "ndigits").filter(|v| !matches!(v, PyVal::None));
            match (x.num(), nd) {
                (Some(Err(f)), None) => Ok(PyVal::Int(float_to_int(f.round_ties_even())?)),
                (Some(Err(f)), Some(n)) => {
                    let n = n.as_int().ok_or_else(|| err("round(): ndigits must be an integer"))?;
                    Ok(PyVal::Float(round_float(f, n)))
                }
                (Some(Ok(i)), None) => Ok(PyVal::Int(i)),
                (Some(Ok(i)), Some(n)) => {
                    let n = n.as_int().ok_or_else(|| err("round(): ndigits must be an integer"))?;
                    if n >= 0 {
                        Ok(PyVal::Int(i))
                    } else {
                        // In i128, with 10^30 standing for any larger power (beyond twice any i64,
                        // it rounds every i64 to 0 as the larger ones do).
                        let p = 10i128.pow(n.unsigned_abs().min(30) as u32);
                        let (i, r) = (i as i128, (i as i128).rem_euclid(p));
                        let q = (i - r) / p;
                        let q = if 2 * r > p || (2 * r == p && q % 2 != 0) { q + 1 } else { q };
                        i64::try_from(q * p).map(PyVal::Int).map_err(|_| super::eval::out_of_range("the result of round()"))
                    }
                }
                _ => Err(err(format!("type {} doesn't define __round__ method", x.type_name()))),
            }
        }
        "abs" => {
            a.check(1, 1, &[])?;
            match a.pos[0].num() {
                Some(Ok(i)) => i.checked_abs().map(PyVal::Int).ok_or_else(|| err("integer overflow")),
                Some(Err(f)) => Ok(PyVal::Float(f.abs())),
                None => Err(err(format!("bad operand type for abs(): '{}'", a.pos[0].type_name()))),
            }
        }
        "divmod" => {
            a.check(2, 2, &[])?;
            match (a.pos[0].num(), a.pos[1].num()) {
                (Some(Ok(x)), Some(Ok(y))) => {
                    let (q, r) = super::eval::int_divmod(x, y)?;
                    Ok(PyVal::tuple(vec![PyVal::Int(q), PyVal::Int(r)]))
                }
                (Some(_), Some(_)) => {
                    let (q, r) = super::eval::float_divmod(as_f64(&a.pos[0], "divmod")?, as_f64(&a.pos[1], "divmod")?)?;
                    Ok(PyVal::tuple(vec![PyVal::Float(q), PyVal::Float(r)]))
                }
                _ => Err(err("unsupported operand type(s) for divmod()")),
            }
        }
        "pow" => {
            a.check(2, 2, &[])?;
            ctx.binop(super::ast::BinOp::Pow, &a.pos[0], &a.pos[1])
        }
        "isinstance" => {
            a.check(2, 2, &[])?;
            let types = match &a.pos[1] {
                PyVal::Tuple(t) => t.to_vec(),
                other => vec![other.clone()],
            };
            let mut r = false;
            for t in &types {
                match t {
                    PyVal::Type(tn) => r |= is_type(&a.pos[0], tn),
                    _ => return Err(err("isinstance() arg 2 must be a type or tuple of types")),
                }
            }
            Ok(PyVal::Bool(r))
        }
        "map" => {
            a.check(2, usize::MAX, &[])?;
            let f = a.pos[0].clone();
            let lists: Vec<Vec<PyVal>> = a.pos[1..].iter().map(|x| ctx.to_vec(x)).collect::<EResult<_>>()?;
            let n = lists.iter().map(|l| l.len()).min().unwrap_or(0);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(ctx.call(&f, lists.iter().map(|l| l[i].clone()).collect(), vec![])?);
            }
            ctx.charge_items(n)?;
            Ok(PyVal::Iter("map", Rc::new(out)))
        }
        "filter" => {
            a.check(2, 2, &[])?;
            let f = a.pos[0].clone();
            let mut out = Vec::new();
            for x in ctx.to_vec(&a.pos[1])? {
                let keep = match &f {
                    PyVal::None => x.truthy(),
                    f => ctx.call(f, vec![x.clone()], vec![])?.truthy(),
                };
                if keep {
                    out.push(x);
                }
            }
            ctx.charge_items(out.len())?;
            Ok(PyVal::Iter("filter", Rc::new(out)))
        }
        "ord" => {
            a.check(1, 1, &[])?;
            match &a.pos[0] {
                PyVal::Str(s) if s.chars().count() == 1 => Ok(PyVal::Int(s.chars().next().map_or(0, |c| c as i64))),
                PyVal::Str(s) => Err(err(format!(
                    "ord() expected a character, but string of length {} found",
                    s.chars().count()
                ))),
                v => Err(err(format!("ord() expected string of length 1, but {} found", v.type_name()))),
            }
        }
        "chr" => {
            a.check(1, 1, &[])?;
            let i = a.int_or(0, "i", -1)?;
            let c = u32::try_from(i).ok().and_then(char::from_u32).ok_or_else(|| err("chr() arg not in range(0x110000)"))?;
            Ok(PyVal::str(c.to_string()))
        }
        other => Err(err(format!("the function '{other}' is not allowed"))),
    }
}

fn char_pos(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

/// Python-style `start`/`end` arguments resolved to a char window of `s`, returned as byte
/// offsets.
fn window(s: &str, a: &Args, i: usize) -> EResult<(usize, usize)> {
    let n = s.chars().count() as i64;
    let norm = |v: Option<PyVal>, d: i64| -> EResult<i64> {
        match v {
            None | Some(PyVal::None) => Ok(d),
            Some(v) => {
                let k = v.as_int().ok_or_else(|| err("slice indices must be integers or None"))?;
                Ok(if k < 0 { (k + n).max(0) } else { k.min(n) })
            }
        }
    };
    let st = norm(a.get(i, "start"), 0)?;
    let en = norm(a.get(i + 1, "end"), n)?;
    let byte = |k: i64| s.char_indices().nth(k as usize).map_or(s.len(), |(b, _)| b);
    if st > en {
        return Ok((byte(st), byte(st)));
    }
    Ok((byte(st), byte(en)))
}

fn split_ws(s: &str, maxsplit: i64, from_right: bool) -> Vec<PyVal> {
    let mut out: Vec<String> = Vec::new();
    if !from_right {
        let mut rest = s.trim_start_matches(py_isspace);
        while !rest.is_empty() {
            if maxsplit >= 0 && out.len() as i64 >= maxsplit {
                out.push(rest.to_string());
                break;
            }
            let end = rest.find(py_isspace).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = rest[end..].trim_start_matches(py_isspace);
        }
    } else {
        let mut rest = s.trim_end_matches(py_isspace);
        while !rest.is_empty() {
            if maxsplit >= 0 && out.len() as i64 >= maxsplit {
                out.push(rest.to_string());
                break;
            }
            let start = rest.rfind(py_isspace).map_or(0, |b| b + rest[b..].chars().next().map_or(1, |c| c.len_utf8()));
            out.push(rest[start..].to_string());
            rest = rest[..start].trim_end_matches(py_isspace);
        }
        out.reverse();
    }
    out.into_iter().map(PyVal::str).collect()
}

fn split_sep(s: &str, sep: &str, maxsplit: i64, from_right: bool) -> Vec<PyVal> {
    let parts: Vec<&str> = match (maxsplit < 0, from_right) {
        (true, _) => s.split(sep).collect(),
        (false, false) => s.splitn(maxsplit as usize + 1, sep).collect(),
        (false, true) => {
            let mut v: Vec<&str> = s.rsplitn(maxsplit as usize + 1, sep).collect();
            v.reverse();
            v
        }
    };
    parts.into_iter().map(PyVal::str).collect()
}

fn strip_chars(a: &Args) -> EResult<Option<Vec<char>>> {
    match a.get(0, "chars") {
        None | Some(PyVal::None) => Ok(None),
        Some(PyVal::Str(c)) => Ok(Some(c.chars().collect())),
        Some(v) => Err(err(format!("strip arg must be None or str, not {}", v.type_name()))),
    }
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn splitlines(s: &str, keep: bool) -> Vec<PyVal> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut cur = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_line_break(c) {
            let mut brk = c.to_string();
            if c == '\r' && chars.get(i + 1) == Some(&'\n') {
                brk.push('\n');
                i += 1;
            }
            if keep {
                cur.push_str(&brk);
            }
            out.push(PyVal::str(std::mem::take(&mut cur)));
        } else {
            cur.push(c);
        }
        i += 1;
    }
    if !cur.is_empty() {
        out.push(PyVal::str(cur));
    }
    out
}

fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase()
}

fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        prev_cased = is_cased(c);
    }
    out
}

fn prefixes(v: &PyVal, what: &str) -> EResult<Vec<PyStr>> {
    match v {
        PyVal::Str(s) => Ok(vec![s.clone()]),
        PyVal::Tuple(t) => t
            .iter()
            .map(|x| match x {
                PyVal::Str(s) => Ok(s.clone()),
                o => Err(err(format!("tuple for {what} must only contain str, not {}", o.type_name()))),
            })
            .collect(),
        o => Err(err(format!("{what} first arg must be str or a tuple of str, not {}", o.type_name()))),
    }
}

fn pad_str(s: &str, width: i64, fill: char, align: char) -> String {
    let n = s.chars().count() as i64;
    if width <= n {
        return s.to_string();
    }
    let total = (width - n) as usize;
    let (left, right) = match align {
        '<' => (0, total),
        '>' => (total, 0),
        _ => {
            // CPython's centering puts the extra fill on the right unless width is odd
            let left = total / 2 + (total & width as usize & 1);
            (left, total - left)
        }
    };
    let f = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    format!("{}{s}{}", f(left), f(right))
}

fn fill_char(a: &Args) -> EResult<char> {
    match a.get(1, "fillchar") {
        None => Ok(' '),
        Some(PyVal::Str(s)) if s.chars().count() == 1 => Ok(s.chars().next().unwrap_or(' ')),
        _ => Err(err("The fill character must be exactly one character long")),
    }
}

fn str_method(ctx: &mut Ctx, s: &PyStr, name: &str, a: Args) -> EResult<PyVal> {
    // Every method reads the text at most a few times.
    ctx.tick_text(s.len())?;
    match name {
        "lower" | "upper" | "casefold" | "swapcase" | "title" | "capitalize" => {
            a.check(0, 0, &[])?;
            let out = match name {
                "lower" | "casefold" => s.to_lowercase(),
                "upper" => s.to_uppercase(),
                "swapcase" => s
                    .chars()
                    .flat_map(|c| -> Vec<char> {
                        if c.is_uppercase() {
                            c.to_lowercase().collect()
                        } else {
                            c.to_uppercase().collect()
                        }
                    })
                    .collect(),
                "title" => title(s),
                _ => {
                    let mut cs = s.chars();
                    match cs.next() {
                        Some(f) => f.to_uppercase().chain(cs.as_str().to_lowercase().chars()).collect(),
                        None => String::new(),
                    }
                }
            };
            ctx.new_str(out)
        }
        "strip" | "lstrip" | "rstrip" => {
            a.check(0, 1, &[])?;
            let chars = strip_chars(&a)?;
            let pred = |c: char| match &chars {
                Some(cs) => cs.contains(&c),
                None => py_isspace(c),
            };
            let out = match name {
                "strip" => s.trim_matches(pred),
                "lstrip" => s.trim_start_matches(pred),
                _ => s.trim_end_matches(pred),
            };
            ctx.new_str(out.to_string())
        }
        "split" | "rsplit" => {
            a.check(0, 2, &["sep", "maxsplit"])?;
            let maxsplit = a.int_or(1, "maxsplit", -1)?;
            let parts = match a.get(0, "sep") {
                None | Some(PyVal::None) => split_ws(s, maxsplit, name == "rsplit"),
                Some(PyVal::Str(sep)) => {
                    if sep.is_empty() {
                        return Err(err("empty separator"));
                    }
                    split_sep(s, &sep, maxsplit, name == "rsplit")
                }
                Some(v) => return Err(err(format!("must be str or None, not {}", v.type_name()))),
            };
            ctx.charge(s.len())?;
            ctx.charge_items(parts.len())?;
            Ok(PyVal::list(parts))
        }
        "splitlines" => {
            a.check(0, 1, &["keepends"])?;
            let keep = a.get(0, "keepends").is_some_and(|k| k.truthy());
            let parts = splitlines(s, keep);
            ctx.charge(s.len())?;
            ctx.charge_items(parts.len())?;
            Ok(PyVal::list(parts))
        }
        "join" => {
            a.check(1, 1, &[])?;
            let items = ctx.to_vec(&a.pos[0])?;
            // The length is known before anything is copied: charged up front.
            let mut total = s.len().saturating_mul(items.len().saturating_sub(1));
            for x in &items {
                if let PyVal::Str(t) = x {
                    total = total.saturating_add(t.len());
                }
            }
            ctx.tick_text(total)?;
            ctx.charge(total.saturating_add(16))?;
            let mut out = String::with_capacity(total);
            for (i, x) in items.iter().enumerate() {
                match x {
                    PyVal::Str(t) => {
                        if i > 0 {
                            out.push_str(s);
                        }
                        out.push_str(t);
                    }
                    o => {
                        return Err(err(format!(
                            "sequence item {i}: expected str instance, {} found",
                            o.type_name()
                        )))
                    }
                }
            }
            Ok(PyVal::str(out))
        }
        "replace" => {
            a.check(2, 3, &["count"])?;
            let old = a.str_arg(0, "old")?;
            let new = a.str_arg(1, "new")?;
            let count = a.int_or(2, "count", -1)?;
            // A negative count replaces every occurrence, as in Python.
            let limit = usize::try_from(count).unwrap_or(usize::MAX);
            if old.is_empty() {
                ctx.charge(s.len() + (s.chars().count() + 1).saturating_mul(new.len()))?;
                return Ok(PyVal::str(s.replacen("", &new, limit)));
            }
            // One pass of memchr's vectorized substring search finds the occurrences (left to
            // right, not overlapping, as `str.replace` takes them): their number sets the
            // charge, their places the output. A match of a UTF-8 needle starts and ends on
            // character boundaries.
            let at: Vec<usize> = memchr::memmem::find_iter(s.as_bytes(), old.as_bytes()).collect();
            ctx.charge(s.len() + at.len().saturating_mul(new.len()))?;
            let taken = &at[..at.len().min(limit)];
            let mut out = String::with_capacity(s.len() + taken.len() * new.len());
            let mut last = 0;
            for &i in taken {
                out.push_str(&s[last..i]);
                out.push_str(&new);
                last = i + old.len();
            }
            out.push_str(&s[last..]);
            Ok(PyVal::str(out))
        }
        "startswith" | "endswith" => {
            a.check(1, 3, &[])?;
            let ps = prefixes(&a.pos[0], name)?;
            let (b0, b1) = window(s, &a, 1)?;
            let w = &s[b0..b1.max(b0)];
            let r = ps.iter().any(|p| if name == "startswith" { w.starts_with(&**p) } else { w.ends_with(&**p) });
            Ok(PyVal::Bool(r))
        }
        "find" | "index" | "rfind" | "rindex" | "count" => {
            a.check(1, 3, &[])?;
            let sub = a.str_arg(0, "sub")?;
            let (b0, b1) = window(s, &a, 1)?;
            let w = &s[b0..b1.max(b0)];
            if name == "count" {
                let n = if sub.is_empty() { w.chars().count() + 1 } else { w.matches(&*sub).count() };
                return Ok(PyVal::Int(n as i64));
            }
            let found = if name.starts_with('r') { w.rfind(&*sub) } else { w.find(&*sub) };
            match found {
                Some(b) => Ok(PyVal::Int(char_pos(s, b0 + b))),
                None if name.ends_with("find") => Ok(PyVal::Int(-1)),
                None => Err(err("substring not found")),
            }
        }
        "format" => {
            let out = str_format(ctx, s, &a.pos, &a.kw)?;
            Ok(PyVal::str(out))
        }
        "isdigit" | "isnumeric" | "isalpha" | "isalnum" | "isspace" => {
            a.check(0, 0, &[])?;
            let f: fn(char) -> bool = match name {
                "isdigit" | "isnumeric" => |c| c.is_numeric(),
                "isalpha" => |c| c.is_alphabetic(),
                "isalnum" => |c| c.is_alphanumeric(),
                _ => py_isspace,
            };
            Ok(PyVal::Bool(!s.is_empty() && s.chars().all(f)))
        }
        "islower" | "isupper" => {
            a.check(0, 0, &[])?;
            let cased: Vec<char> = s.chars().filter(|c| is_cased(*c)).collect();
            let ok = if name == "islower" {
                cased.iter().all(|c| c.is_lowercase())
            } else {
                cased.iter().all(|c| c.is_uppercase())
            };
            Ok(PyVal::Bool(!cased.is_empty() && ok))
        }
        "zfill" => {
            a.check(1, 1, &[])?;
            let w = a.int_or(0, "width", 0)?;
            let n = s.chars().count() as i64;
            if w <= n {
                return Ok(PyVal::Str(s.clone()));
            }
            ctx.charge(w as usize)?;
            let zeros = "0".repeat((w - n) as usize);
            let out = match s.chars().next() {
                Some(c @ ('+' | '-')) => format!("{c}{zeros}{}", &s[1..]),
                _ => format!("{zeros}{s}"),
            };
            Ok(PyVal::str(out))
        }
        "ljust" | "rjust" | "center" => {
            a.check(1, 2, &[])?;
            let w = a.int_or(0, "width", 0)?;
            ctx.charge(w.max(0) as usize)?;
            let align = match name {
                "ljust" => '<',
                "rjust" => '>',
                _ => '^',
            };
            Ok(PyVal::str(pad_str(s, w, fill_char(&a)?, align)))
        }
        "partition" | "rpartition" => {
            a.check(1, 1, &[])?;
            let sep = a.str_arg(0, "sep")?;
            if sep.is_empty() {
                return Err(err("empty separator"));
            }
            let found = if name == "partition" { s.find(&*sep) } else { s.rfind(&*sep) };
            let parts = match found {
                Some(b) => vec![PyVal::str(&s[..b]), PyVal::Str(sep.clone()), PyVal::str(&s[b + sep.len()..])],
                None if name == "partition" => vec![PyVal::Str(s.clone()), PyVal::str(""), PyVal::str("")],
                None => vec![PyVal::str(""), PyVal::str(""), PyVal::Str(s.clone())],
            };
            Ok(PyVal::tuple(parts))
        }
        "removeprefix" => {
            a.check(1, 1, &[])?;
            let p = a.str_arg(0, "prefix")?;
            Ok(PyVal::str(s.strip_prefix(&*p).unwrap_or(s)))
        }
        "removesuffix" => {
            a.check(1, 1, &[])?;
            let p = a.str_arg(0, "suffix")?;
            Ok(PyVal::str(s.strip_suffix(&*p).unwrap_or(s)))
        }
        other => Err(err(format!("str method '{other}' is not allowed"))),
    }
}

/// Calls an allow-listed method on a receiver.
pub fn call_method(
    ctx: &mut Ctx,
    recv: &PyVal,
    name: &str,
    args: Vec<PyVal>,
    kwargs: Vec<(PyStr, PyVal)>,
) -> EResult<PyVal> {
    let a = Args::new(name, args, kwargs);
    match recv {
        PyVal::Str(s) => str_method(ctx, s, name, a),
        PyVal::List(v) | PyVal::Tuple(v) => match name {
            "count" => {
                a.check(1, 1, &[])?;
                ctx.tick_n(v.len() as u64)?;
                Ok(PyVal::Int(v.iter().filter(|x| py_eq(x, &a.pos[0])).count() as i64))
            }
            "index" => {
                a.check(1, 3, &[])?;
                ctx.tick_n(v.len() as u64)?;
                let n = v.len() as i64;
                let norm = |k: i64| if k < 0 { (k + n).max(0) } else { k.min(n) };
                let st = norm(a.int_or(1, "start", 0)?) as usize;
                let en = norm(a.int_or(2, "stop", n)?) as usize;
                (st..en.max(st))
                    .find(|&i| py_eq(&v[i], &a.pos[0]))
                    .map(|i| PyVal::Int(i as i64))
                    .ok_or_else(|| err(format!("{} is not in {}", repr(&a.pos[0]), recv.type_name())))
            }
            _ => Err(no_attr(recv, name)),
        },
        PyVal::Dict(d) => match name {
            "get" => {
                a.check(1, 2, &[])?;
                Ok(d.get(&a.pos[0].hkey()?).map(|(_, v)| v.clone()).unwrap_or_else(|| {
                    a.pos.get(1).cloned().unwrap_or(PyVal::None)
                }))
            }
            "keys" => {
                a.check(0, 0, &[])?;
                Ok(PyVal::Iter("dict_keys", Rc::new(d.values().map(|(k, _)| k.clone()).collect())))
            }
            "values" => {
                a.check(0, 0, &[])?;
                Ok(PyVal::Iter("dict_values", Rc::new(d.values().map(|(_, v)| v.clone()).collect())))
            }
            "items" => {
                a.check(0, 0, &[])?;
                ctx.charge_items(d.len() * 3)?;
                Ok(PyVal::Iter(
                    "dict_items",
                    Rc::new(d.values().map(|(k, v)| PyVal::tuple(vec![k.clone(), v.clone()])).collect()),
                ))
            }
            _ => Err(no_attr(recv, name)),
        },
        PyVal::Float(f) if name == "is_integer" => Ok(PyVal::Bool(f.is_finite() && f.fract() == 0.0)),
        PyVal::Match(m) => match name {
            "group" => m.group(&a.pos),
            "groups" => Ok(m.groups(&a.get(0, "default").unwrap_or(PyVal::None))),
            "groupdict" => m.groupdict(&a.get(0, "default").unwrap_or(PyVal::None)),
            "start" | "end" | "span" => {
                a.check(0, 1, &[])?;
                m.pos(name, a.pos.first())
            }
            _ => Err(no_attr(recv, name)),
        },
        PyVal::Pattern(p) => {
            let mut pos = vec![PyVal::Pattern(p.clone())];
            pos.extend(a.pos);
            re_call(ctx, name, Args::new(name, pos, a.kw), true)
        }
        _ => Err(no_attr(recv, name)),
    }
}

fn pattern_arg(a: &Args, flags_at: usize) -> EResult<Rc<pyre::Pattern>> {
    let flags = a.int_or(flags_at, "flags", 0)?;
    match a.req(0, "pattern")? {
        PyVal::Pattern(p) => Ok(p),
        PyVal::Str(s) => pyre::compile(&s, flags),
        v => Err(err(format!("first argument must be string or compiled pattern, not {}", v.type_name()))),
    }
}

fn re_call(ctx: &mut Ctx, name: &str, a: Args, _compiled: bool) -> EResult<PyVal> {
    match name {
        "compile" => {
            a.check(1, 2, &["flags"])?;
            Ok(PyVal::Pattern(pattern_arg(&a, 1)?))
        }
        "escape" => {
            a.check(1, 1, &[])?;
            let s = a.str_arg(0, "pattern")?;
            let mut out = String::new();
            for c in s.chars() {
                if !(c.is_alphanumeric() || c == '_' || !c.is_ascii()) {
                    out.push('\\');
                }
                out.push(c);
            }
            ctx.new_str(out)
        }
        "search" | "match" | "fullmatch" => {
            a.check(2, 3, &["flags", "string"])?;
            let p = pattern_arg(&a, 2)?;
            let text = pyre::text_arg(&a.req(1, "string")?, name)?;
            let mode = match name {
                "search" => Mode::Search,
                "match" => Mode::Match,
                _ => Mode::Full,
            };
            Ok(match p.run(ctx, mode, &text)? {
                Some(m) => PyVal::Match(Rc::new(m)),
                None => PyVal::None,
            })
        }
        "findall" => {
            a.check(2, 3, &["flags", "string"])?;
            let p = pattern_arg(&a, 2)?;
            let text = pyre::text_arg(&a.req(1, "string")?, name)?;
            Ok(PyVal::list(pyre::findall(ctx, &p, &text)?))
        }
        "finditer" => {
            a.check(2, 3, &["flags", "string"])?;
            let p = pattern_arg(&a, 2)?;
            let text = pyre::text_arg(&a.req(1, "string")?, name)?;
            let out: Vec<PyVal> = p.all(ctx, &text, 0, false)?.into_iter().map(|m| PyVal::Match(Rc::new(m))).collect();
            ctx.charge_items(out.len())?;
            Ok(PyVal::Iter("callable_iterator", Rc::new(out)))
        }
        "split" => {
            a.check(2, 4, &["maxsplit", "flags", "string"])?;
            let p = pattern_arg(&a, 3)?;
            let text = pyre::text_arg(&a.req(1, "string")?, name)?;
            let maxsplit = a.int_or(2, "maxsplit", 0)?.max(0) as usize;
            Ok(PyVal::list(pyre::split(ctx, &p, &text, maxsplit)?))
        }
        "sub" => {
            a.check(3, 5, &["count", "flags", "string", "repl"])?;
            let p = pattern_arg(&a, 4)?;
            let repl = a.req(1, "repl")?;
            let text = pyre::text_arg(&a.req(2, "string")?, name)?;
            let count = a.int_or(3, "count", 0)?.max(0) as usize;
            let out = match repl {
                PyVal::Str(t) => pyre::sub(ctx, &p, &text, count, &mut |ctx, m| m.expand(&t, ctx.bytes_left()))?,
                f => pyre::sub(ctx, &p, &text, count, &mut |ctx, m| match ctx.call(&f, vec![PyVal::Match(m)], vec![])? {
                    PyVal::Str(s) => Ok(s.to_string()),
                    o => Err(err(format!("expected str instance, {} found", o.type_name()))),
                })?,
            };
            Ok(PyVal::str(out))
        }
        other => Err(err(format!("re.{other} is not allowed"))),
    }
}

/// Converts a value for `json.dumps`: tuples become lists, dict keys follow Python's json
/// rules (`1` → `"1"`, `True` → `"true"`, `None` → `"null"`).
fn json_value(v: &PyVal) -> EResult<Value> {
    match v {
        PyVal::Dict(d) => {
            let mut m = crate::value::Map::with_capacity(d.len());
            for (k, v) in d.values() {
                let key = match k {
                    PyVal::Str(s) => s.to_string(),
                    PyVal::Bool(b) => (if *b { "true" } else { "false" }).to_string(),
                    PyVal::None => "null".to_string(),
                    PyVal::Int(i) => i.to_string(),
                    PyVal::Float(f) => float_repr(*f),
                    o => return Err(err(format!("keys must be str, int, float, bool or None, not {}", o.type_name()))),
                };
                m.insert(key.into(), json_value(v)?);
            }
            Ok(Value::Object(m))
        }
        PyVal::List(x) | PyVal::Tuple(x) => Ok(Value::Array(x.iter().map(json_value).collect::<EResult<_>>()?)),
        PyVal::Set(_) | PyVal::Iter(..) | PyVal::Range(..) | PyVal::Gen(_) => {
            Err(err(format!("Object of type {} is not JSON serializable", v.type_name())))
        }
        other => super::value::to_value(other),
    }
}

/// Calls a function of an allowed module.
pub fn call_module(
    ctx: &mut Ctx,
    module: &str,
    name: &str,
    args: Vec<PyVal>,
    kwargs: Vec<(PyStr, PyVal)>,
) -> EResult<PyVal> {
    let a = Args::new(name, args, kwargs);
    match module {
        "re" => re_call(ctx, name, a, false),
        "json" => match name {
            "loads" => {
                a.check(1, 1, &[])?;
                let s = a.str_arg(0, "s")?;
                ctx.tick_text(s.len())?;
                ctx.charge(s.len().saturating_mul(2))?;
                let v: Value = serde_json::from_str(&s).map_err(|e| err(format!("json.decoder.JSONDecodeError: {e}")))?;
                from_value(&v)
            }
            "dumps" => {
                a.check(1, 1, &["ensure_ascii", "sort_keys", "indent"])?;
                // The tree is built in full (shared values as often as they appear): charged
                // before it is, and so is the indentation (each slot on its own line, indented
                // up to the nesting depth), which can outgrow the tree.
                let (size, height) = ctx.charge_materialized(&a.pos[0])?;
                if let Some(PyVal::Int(k)) = a.kw("indent") {
                    let lines = size / 24 + 1;
                    ctx.charge_wide(lines.saturating_mul(1 + k.max(0) as u128 * height as u128))?;
                }
                let v = json_value(&a.pos[0])?;
                let mut o = DumpOptions::default();
                if let Some(x) = a.kw("ensure_ascii") {
                    o.ensure_ascii = x.truthy();
                }
                if let Some(x) = a.kw("sort_keys") {
                    o.sort_keys = x.truthy();
                }
                match a.kw("indent") {
                    None | Some(PyVal::None) => {}
                    Some(x) => o.indent = Some(x.as_int().ok_or_else(|| err("indent must be an int"))?.max(0) as usize),
                }
                ctx.new_str(dumps(&v, o))
            }
            _ => Err(err(format!("json.{name} is not allowed"))),
        },
        "math" => math_call(&a, name),
        "itertools" => {
            a.check(0, usize::MAX, &["repeat"])?;
            let repeat = a.int_or(usize::MAX, "repeat", 1)?;
            let repeat = usize::try_from(repeat).map_err(|_| err("repeat argument cannot be negative"))?;
            let mut pools = Vec::with_capacity(a.pos.len());
            for x in &a.pos {
                pools.push(ctx.to_vec(x)?);
            }
            // Python lists every pool (`repeat` times over) first: that list is charged, then
            // the number of tuples and their size, all before any tuple is built.
            let npools = pools.len().checked_mul(repeat).ok_or_else(|| err("MemoryError: itertools.product() needs too many pools"))?;
            ctx.charge_items(npools)?;
            let base = pools.iter().fold(1u128, |acc, p| acc.saturating_mul(p.len() as u128));
            let count: u128 = match base {
                0 if npools > 0 => 0,
                0 | 1 => 1,
                b => b.checked_pow(u32::try_from(repeat).unwrap_or(u32::MAX)).unwrap_or(u128::MAX),
            };
            let per_tuple = 16 + 24 + 24 * npools as u128;
            ctx.charge_wide(count.saturating_mul(per_tuple))?;
            ctx.tick_n(u64::try_from(count.saturating_mul(npools as u128 + 1)).unwrap_or(u64::MAX))?;
            let pool = |k: usize| &pools[k % pools.len()];
            let mut out = Vec::with_capacity(count as usize);
            let mut digits = vec![0usize; npools];
            for _ in 0..count {
                out.push(PyVal::tuple((0..npools).map(|k| pool(k)[digits[k]].clone()).collect()));
                // The next combination: the rightmost position advances fastest.
                for k in (0..npools).rev() {
                    digits[k] += 1;
                    if digits[k] < pool(k).len() {
                        break;
                    }
                    digits[k] = 0;
                }
            }
            Ok(PyVal::Iter("itertools.product", Rc::new(out)))
        }
        _ => Err(err(format!("module '{module}' is not allowed"))),
    }
}

fn math_call(a: &Args, name: &str) -> EResult<PyVal> {
    let x = || -> EResult<f64> { as_f64(&a.req(0, "x")?, name) };
    let domain = || err("math domain error");
    match name {
        "floor" | "ceil" | "trunc" => {
            a.check(1, 1, &[])?;
            if let Some(i) = a.pos[0].as_int() {
                return Ok(PyVal::Int(i));
            }
            let f = x()?;
            let r = match name {
                "floor" => f.floor(),
                "ceil" => f.ceil(),
                _ => f.trunc(),
            };
            Ok(PyVal::Int(float_to_int(r)?))
        }
        "sqrt" => {
            a.check(1, 1, &[])?;
            let f = x()?;
            if f < 0.0 {
                return Err(domain());
            }
            Ok(PyVal::Float(f.sqrt()))
        }
        "exp" => {
            a.check(1, 1, &[])?;
            let r = x()?.exp();
            if r.is_infinite() && x()?.is_finite() {
                return Err(err("math range error"));
            }
            Ok(PyVal::Float(r))
        }
        "log" | "log10" | "log2" => {
            a.check(1, if name == "log" { 2 } else { 1 }, &[])?;
            let f = x()?;
            if f <= 0.0 {
                return Err(domain());
            }
            let r = match (name, a.pos.get(1)) {
                ("log10", _) => f.log10(),
                ("log2", _) => f.log2(),
                (_, Some(b)) => {
                    let b = as_f64(b, name)?;
                    if b <= 0.0 {
                        return Err(domain());
                    }
                    if b == 1.0 {
                        return Err(err("float division by zero"));
                    }
                    f.ln() / b.ln()
                }
                _ => f.ln(),
            };
            Ok(PyVal::Float(r))
        }
        "pow" => {
            a.check(2, 2, &[])?;
            let (b, e) = (x()?, as_f64(&a.pos[1], name)?);
            if b == 0.0 && e < 0.0 || b < 0.0 && e.fract() != 0.0 && e.is_finite() {
                return Err(domain());
            }
            Ok(PyVal::Float(b.powf(e)))
        }
        "fabs" => {
            a.check(1, 1, &[])?;
            Ok(PyVal::Float(x()?.abs()))
        }
        "isnan" => {
            a.check(1, 1, &[])?;
            Ok(PyVal::Bool(x()?.is_nan()))
        }
        "isinf" => {
            a.check(1, 1, &[])?;
            Ok(PyVal::Bool(x()?.is_infinite()))
        }
        "isclose" => {
            a.check(2, 2, &["rel_tol", "abs_tol"])?;
            let (p, q) = (x()?, as_f64(&a.pos[1], name)?);
            let rel = a.kw("rel_tol").and_then(|v| v.as_f64()).unwrap_or(1e-9);
            let abs = a.kw("abs_tol").and_then(|v| v.as_f64()).unwrap_or(0.0);
            if p == q {
                return Ok(PyVal::Bool(true));
            }
            if p.is_infinite() || q.is_infinite() {
                return Ok(PyVal::Bool(false));
            }
            let d = (p - q).abs();
            Ok(PyVal::Bool(d <= (rel * q.abs()).max(rel * p.abs()) || d <= abs))
        }
        _ => Err(err(format!("math.{name} is not allowed"))),
    }
}

/// `str.format(*args, **kwargs)`: `{}`, `{0}`, `{name}`, `{0[key]}`, `{x.attr}` are not
/// supported beyond indexing; conversions `!r`/`!s` and format specs are. A spec may itself
/// hold replacement fields, nested at most two levels as in Python ("Max string recursion
/// exceeded"); fields are numbered automatically across the levels, as Python numbers them.
/// Each replacement is charged to `ctx` before it is appended.
pub fn str_format(ctx: &mut Ctx, fmt: &str, args: &[PyVal], kwargs: &[(PyStr, PyVal)]) -> EResult<String> {
    let mut auto = 0usize;
    format_level(ctx, fmt, args, kwargs, 2, &mut auto)
}

fn format_level(
    ctx: &mut Ctx,
    fmt: &str,
    args: &[PyVal],
    kwargs: &[(PyStr, PyVal)],
    levels: usize,
    auto: &mut usize,
) -> EResult<String> {
    if levels == 0 {
        return Err(err("Max string recursion exceeded"));
    }
    ctx.tick_text(fmt.len())?;
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            if chars.get(i + 1) == Some(&'{') {
                out.push('{');
                i += 2;
                continue;
            }
            // find the matching close brace, allowing one level of nesting in the spec
            let mut depth = 1;
            let mut j = i + 1;
            while j < chars.len() && depth > 0 {
                match chars[j] {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            if depth != 0 {
                return Err(err("Single '{' encountered in format string"));
            }
            let field: String = chars[i + 1..j - 1].iter().collect();
            let (head, spec) = match field.find(':') {
                Some(p) => (field[..p].to_string(), field[p + 1..].to_string()),
                None => (field.clone(), String::new()),
            };
            let (head, conv) = match head.find('!') {
                Some(p) => (head[..p].to_string(), head[p + 1..].chars().next()),
                None => (head, None),
            };
            let name_end = head.find(['[', '.']).unwrap_or(head.len());
            let (name, rest) = head.split_at(name_end);
            // The field's value first, then its spec's fields (Python's order for numbering).
            let mut v = if name.is_empty() {
                let v = args.get(*auto).cloned().ok_or_else(|| {
                    err(format!("Replacement index {} out of range for positional args tuple", *auto))
                })?;
                *auto += 1;
                v
            } else if let Ok(k) = name.parse::<usize>() {
                args.get(k).cloned().ok_or_else(|| err(format!("Replacement index {k} out of range")))?
            } else {
                kwargs.iter().find(|(k, _)| &**k == name).map(|(_, v)| v.clone()).ok_or_else(|| err(format!("KeyError: '{name}'")))?
            };
            let mut rest = rest;
            while let Some(r) = rest.strip_prefix('[') {
                let end = r.find(']').ok_or_else(|| err("Missing ']' in format string"))?;
                let key = &r[..end];
                let kv = match key.parse::<i64>() {
                    Ok(k) => PyVal::Int(k),
                    Err(_) => PyVal::str(key),
                };
                v = match &v {
                    PyVal::List(x) | PyVal::Tuple(x) => {
                        let k = kv.as_int().ok_or_else(|| err("list indices must be integers"))?;
                        x.get(k as usize).cloned().ok_or_else(|| err("list index out of range"))?
                    }
                    PyVal::Dict(d) => d.get(&kv.hkey()?).map(|(_, v)| v.clone()).ok_or_else(|| err(format!("KeyError: {}", repr(&kv))))?,
                    o => return Err(err(format!("'{}' object is not subscriptable", o.type_name()))),
                };
                rest = &r[end + 1..];
            }
            if !rest.is_empty() {
                return Err(err("attribute access in format fields is not allowed"));
            }
            let spec = if spec.contains('{') { format_level(ctx, &spec, args, kwargs, levels - 1, auto)? } else { spec };
            let v = match conv {
                Some('r') => PyVal::str(ctx.repr_str(&v)?),
                Some('s') => PyVal::str(ctx.to_str_str(&v)?),
                Some('a') => PyVal::str(super::eval::ascii(&ctx.repr_str(&v)?)),
                None => v,
                Some(o) => return Err(err(format!("Unknown conversion specifier {o}"))),
            };
            let piece = format_value(&v, &spec, ctx.bytes_left())?;
            ctx.tick_text(piece.len())?;
            ctx.charge(piece.len())?;
            out.push_str(&piece);
            i = j;
        } else if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(err("Single '}' encountered in format string"));
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

/// printf-style `fmt % args` for `%s %r %d %i %f %e %g %x %o %c %%` with flags, width and
/// precision, and `%(name)s` with a dict.
///
/// Each conversion is charged to `ctx` before it is appended.
pub fn percent_format(ctx: &mut Ctx, fmt: &str, args: &PyVal) -> EResult<String> {
    ctx.tick_text(fmt.len())?;
    let (items, mapping): (Vec<PyVal>, Option<&Dict>) = match args {
        PyVal::Tuple(t) => (t.to_vec(), None),
        PyVal::Dict(d) => (vec![args.clone()], Some(&**d)),
        other => (vec![other.clone()], None),
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut next = 0usize;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut key = None;
        if chars.get(i) == Some(&'(') {
            let end = chars[i..].iter().position(|c| *c == ')').ok_or_else(|| err("incomplete format key"))? + i;
            key = Some(chars[i + 1..end].iter().collect::<String>());
            i = end + 1;
        }
        let mut flags = String::new();
        while let Some(c @ ('-' | '+' | ' ' | '#' | '0')) = chars.get(i) {
            flags.push(*c);
            i += 1;
        }
        let mut width = String::new();
        while let Some(c) = chars.get(i).filter(|c| c.is_ascii_digit()) {
            width.push(*c);
            i += 1;
        }
        let mut prec = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            let mut p = String::new();
            while let Some(c) = chars.get(i).filter(|c| c.is_ascii_digit()) {
                p.push(*c);
                i += 1;
            }
            prec = Some(if p.is_empty() { "0".to_string() } else { p });
        }
        let ty = *chars.get(i).ok_or_else(|| err("incomplete format"))?;
        i += 1;
        if ty == '%' {
            out.push('%');
            continue;
        }
        let v = match (&key, mapping) {
            (Some(k), Some(d)) => d
                .get(&HKey::Str(k.as_str().into()))
                .map(|(_, v)| v.clone())
                .ok_or_else(|| err(format!("KeyError: '{k}'")))?,
            (Some(_), None) => return Err(err("format requires a mapping")),
            (None, _) => {
                let v = items.get(next).cloned().ok_or_else(|| err("not enough arguments for format string"))?;
                next += 1;
                v
            }
        };
        let mut spec = String::new();
        if flags.contains('-') {
            spec.push('<');
        } else if !matches!(ty, 's' | 'r' | 'a' | 'c') {
            spec.push('>');
        }
        if flags.contains('+') {
            spec.push('+');
        } else if flags.contains(' ') {
            spec.push(' ');
        }
        if flags.contains('#') {
            spec.push('#');
        }
        if flags.contains('0') && !flags.contains('-') && !matches!(ty, 's' | 'r' | 'a' | 'c') {
            spec.clear();
            if flags.contains('+') {
                spec.push('+');
            } else if flags.contains(' ') {
                spec.push(' ');
            }
            spec.push('0');
        }
        spec.push_str(&width);
        let rendered = match ty {
            's' | 'r' | 'a' => {
                let s = match ty {
                    's' => ctx.to_str_str(&v)?,
                    'r' => ctx.repr_str(&v)?,
                    _ => super::eval::ascii(&ctx.repr_str(&v)?),
                };
                let s = match &prec {
                    Some(p) => s.chars().take(p.parse().unwrap_or(usize::MAX)).collect(),
                    None => s,
                };
                if !flags.contains('-') {
                    spec = format!(">{width}");
                }
                format_value(&PyVal::str(s), &spec, usize::MAX)?
            }
            'd' | 'i' | 'u' => {
                let n = match v.num() {
                    Some(Ok(i)) => i,
                    Some(Err(f)) => float_to_int(f)?,
                    None => return Err(err(format!("%{ty} format: a real number is required, not {}", v.type_name()))),
                };
                format_value(&PyVal::Int(n), &spec, usize::MAX)?
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let f = v.as_f64().ok_or_else(|| err(format!("must be real number, not {}", v.type_name())))?;
                spec.push('.');
                spec.push_str(prec.as_deref().unwrap_or("6"));
                spec.push(ty);
                format_value(&PyVal::Float(f), &spec, usize::MAX)?
            }
            'x' | 'X' | 'o' => {
                let n = v.as_int().ok_or_else(|| err(format!("%{ty} format: an integer is required")))?;
                spec.push(ty);
                format_value(&PyVal::Int(n), &spec, usize::MAX)?
            }
            'c' => match &v {
                PyVal::Str(s) if s.chars().count() == 1 => s.to_string(),
                o => {
                    let n = o.as_int().ok_or_else(|| err("%c requires int or char"))?;
                    format_value(&PyVal::Int(n), "c", usize::MAX)?
                }
            },
            o => return Err(err(format!("unsupported format character '{o}'"))),
        };
        ctx.tick_text(rendered.len())?;
        ctx.charge(rendered.len())?;
        out.push_str(&rendered);
    }
    if mapping.is_none() && next < items.len() {
        return Err(err("not all arguments converted during string formatting"));
    }
    Ok(out)
}
