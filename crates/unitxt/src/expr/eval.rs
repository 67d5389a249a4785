//! The tree-walking interpreter: names, operators, comprehensions, lambdas, f-strings, calls
//! and attribute access, with a step counter and a memory budget.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::ast::{BinOp, CmpOp, Comp, Const, DictItem, Elt, FPart, Node, Target, UnOp};
use super::builtins;
use super::format::format_value;
use super::value::{py_cmp, py_eq, range_item, range_len, range_position, repr, Dict, Func, Generator, Lambda, PyStr, PyVal, Set};
use super::{err, EResult};
use crate::value::Instance;

/// Default of the step budget ([`Limits::steps`]).
pub const MAX_STEPS: u64 = 10_000_000;
/// Default of the memory budget ([`Limits::bytes`]).
pub const MAX_BYTES: usize = 50 * 1024 * 1024;
/// Default of the depth budget ([`Limits::depth`]).
pub const MAX_CALL_DEPTH: usize = 50;
/// The deepest nesting of containers that the walks over a whole value (`repr`, `str`,
/// `json.dumps`, turning the result into an instance value) accept; deeper values are an
/// error, as Python's own recursion limit makes them one.
pub const MAX_NESTING: usize = 1000;
/// Bytes of text that cost one step when a builtin scans or builds text.
pub const BYTES_PER_STEP: usize = 64;

/// The budgets of one evaluation. Every evaluation starts with the full budgets; what an
/// operation will cost is charged before the operation runs (when its size is known up front)
/// and an operation that would go over a budget is an error of kind `Expression` instead.
///
/// - `steps` (`UNITXT_RS_EXPR_STEPS`, default [`MAX_STEPS`]): one step per node evaluated,
///   per loop iteration, per element a builtin visits or creates, per regex search, and per
///   [`BYTES_PER_STEP`] bytes of text scanned or built (a regex search is charged for the text
///   it examined, which one search bounds: the `regex` engine is linear in the text, and the
///   backtracking one stops at its backtrack limit).
/// - `bytes` (`UNITXT_RS_EXPR_BYTES`, default [`MAX_BYTES`]): bytes of strings and containers
///   created, 24 per container slot and the length of each string; a value shared several
///   times (`[s] * n`) counts its full size each time it is materialized (into the result,
///   `json.dumps`, `repr`/`str`).
/// - `depth` (`UNITXT_RS_EXPR_DEPTH`, default [`MAX_CALL_DEPTH`]): nesting of lambda calls.
///   Other recursion is bounded by fixed limits: the expression's own nesting
///   ([`super::ast::MAX_DEPTH`]), format specs nested in format specs (2, as in Python), and
///   nested containers ([`MAX_NESTING`]).
///
/// The environment variables are read once per process; a value that is not a positive
/// integer makes every evaluation fail with an error naming the variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The step budget.
    pub steps: u64,
    /// The memory budget in bytes.
    pub bytes: usize,
    /// The depth budget (nested lambda calls).
    pub depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { steps: MAX_STEPS, bytes: MAX_BYTES, depth: MAX_CALL_DEPTH }
    }
}

impl Limits {
    /// The budgets from the environment (`UNITXT_RS_EXPR_STEPS`, `UNITXT_RS_EXPR_BYTES`,
    /// `UNITXT_RS_EXPR_DEPTH`), read on the first call; unset variables keep the defaults.
    pub fn from_env() -> EResult<Limits> {
        static LIMITS: std::sync::OnceLock<Result<Limits, String>> = std::sync::OnceLock::new();
        LIMITS
            .get_or_init(|| {
                let var = |name: &str, default: u64| -> Result<u64, String> {
                    match std::env::var(name) {
                        Err(_) => Ok(default),
                        Ok(v) => match v.trim().parse::<u64>() {
                            Ok(n) if n > 0 => Ok(n),
                            _ => Err(format!("{name} must be a positive integer, not {v:?}")),
                        },
                    }
                };
                let d = Limits::default();
                Ok(Limits {
                    steps: var("UNITXT_RS_EXPR_STEPS", d.steps)?,
                    bytes: usize::try_from(var("UNITXT_RS_EXPR_BYTES", d.bytes as u64)?).unwrap_or(usize::MAX),
                    depth: usize::try_from(var("UNITXT_RS_EXPR_DEPTH", d.depth as u64)?).unwrap_or(usize::MAX),
                })
            })
            .clone()
            .map_err(err)
    }
}

/// State of one evaluation.
pub struct Ctx<'a> {
    globals: Option<&'a Instance>,
    converted: HashMap<String, PyVal>,
    /// Local bindings (comprehension variables, lambda parameters), innermost last.
    pub locals: Vec<(Arc<str>, PyVal)>,
    limits: Limits,
    steps: u64,
    bytes: usize,
    calls: usize,
}

/// The names every expression can use besides the instance's fields.
pub fn global_name(name: &str) -> Option<PyVal> {
    Some(match name {
        "re" | "json" | "math" | "itertools" => PyVal::Module(builtins::module_static(name)?),
        "str" | "int" | "float" | "bool" | "list" | "dict" | "tuple" | "set" | "range" => {
            PyVal::Type(builtins::builtin_static(name)?)
        }
        other => PyVal::Func(Func::Builtin(builtins::builtin_static(other)?)),
    })
}

impl<'a> Ctx<'a> {
    /// A fresh evaluation state over `globals` (an instance's fields), if any, with the
    /// budgets of [`Limits::from_env`].
    pub fn new(globals: Option<&'a Instance>) -> EResult<Self> {
        Ok(Self::with_limits(globals, Limits::from_env()?))
    }

    /// A fresh evaluation state with explicit budgets.
    pub fn with_limits(globals: Option<&'a Instance>, limits: Limits) -> Self {
        Ctx { globals, converted: HashMap::new(), locals: Vec::new(), limits, steps: 0, bytes: 0, calls: 0 }
    }

    /// Counts one step; errors when the step budget is exceeded.
    pub fn tick(&mut self) -> EResult<()> {
        self.tick_n(1)
    }

    /// Errors, before work of up to `n` steps starts (`what` says which), when the steps left
    /// in the budget could not pay for all of it; charges nothing.
    pub fn afford(&self, n: u64, what: &str) -> EResult<()> {
        let left = self.limits.steps.saturating_sub(self.steps);
        if n > left {
            return Err(err(format!(
                "evaluation exceeded the limit of {} steps: {what} may take {n} steps, {left} are left",
                self.limits.steps
            )));
        }
        Ok(())
    }

    /// Counts `n` steps; errors when the step budget is exceeded.
    pub fn tick_n(&mut self, n: u64) -> EResult<()> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limits.steps {
            return Err(err(format!("evaluation exceeded the limit of {} steps", self.limits.steps)));
        }
        Ok(())
    }

    /// Counts the steps of scanning or building `bytes` bytes of text.
    pub fn tick_text(&mut self, bytes: usize) -> EResult<()> {
        self.tick_n((bytes / BYTES_PER_STEP) as u64 + 1)
    }

    /// Charges `n` bytes of created data; errors when the memory budget is exceeded.
    pub fn charge(&mut self, n: usize) -> EResult<()> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.bytes {
            return Err(self.memory_error());
        }
        Ok(())
    }

    /// Charges `n` bytes given as a wide (possibly huge) count.
    pub fn charge_wide(&mut self, n: u128) -> EResult<()> {
        self.charge(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn memory_error(&self) -> super::Error {
        let b = self.limits.bytes;
        if b >= 1 << 20 {
            err(format!("evaluation exceeded the memory limit of {} MB", b >> 20))
        } else {
            err(format!("evaluation exceeded the memory limit of {b} bytes"))
        }
    }

    /// Bytes of the memory budget not yet used.
    pub fn bytes_left(&self) -> usize {
        self.limits.bytes.saturating_sub(self.bytes)
    }

    /// Charges the memory of materializing `v` in full (building the instance value of a
    /// result, or the tree `json.dumps` writes): every container slot and string counted each
    /// time it appears, however often it is shared. Errors before anything is built when that
    /// is over the memory budget, or when `v` is nested deeper than [`MAX_NESTING`]. Returns
    /// the size charged and how deep containers nest in `v` (0 for a scalar).
    pub fn charge_materialized(&mut self, v: &PyVal) -> EResult<(u128, usize)> {
        let mut memo = HashMap::new();
        let (n, height) = self.materialized_size(v, &mut memo, 0)?;
        self.charge_wide(n)?;
        Ok((n, height))
    }

    /// The full size of `v` in bytes and its container height (see
    /// [`Ctx::charge_materialized`]); each distinct container is walked once (`memo`, by
    /// address), costing a step per slot.
    fn materialized_size(
        &mut self,
        v: &PyVal,
        memo: &mut HashMap<usize, (u128, usize)>,
        depth: usize,
    ) -> EResult<(u128, usize)> {
        if depth > MAX_NESTING {
            return Err(err(format!("the value is nested more than {MAX_NESTING} levels deep")));
        }
        let key = match v {
            PyVal::List(x) | PyVal::Tuple(x) | PyVal::Iter(_, x) => Rc::as_ptr(x) as *const () as usize,
            PyVal::Dict(d) => Rc::as_ptr(d) as *const () as usize,
            PyVal::Set(x) => Rc::as_ptr(x) as *const () as usize,
            PyVal::Str(t) => return Ok((16 + t.len() as u128, 0)),
            PyVal::Range(a, b, st) => return Ok((16 + 24 * range_len(*a, *b, *st) as u128, 1)),
            _ => return Ok((16, 0)),
        };
        if let Some(n) = memo.get(&key) {
            return Ok(*n);
        }
        let (mut total, mut height): (u128, usize) = (16, 0);
        let mut add = |ctx: &mut Self, x: &PyVal, memo: &mut HashMap<usize, (u128, usize)>| -> EResult<()> {
            ctx.tick()?;
            let (n, h) = stacker::maybe_grow(super::ast::STACK_RED_ZONE, super::ast::STACK_GROW, || {
                ctx.materialized_size(x, memo, depth + 1)
            })?;
            total = total.saturating_add(24 + n);
            height = height.max(h);
            Ok(())
        };
        match v {
            PyVal::List(x) | PyVal::Tuple(x) | PyVal::Iter(_, x) => {
                for item in x.iter() {
                    add(self, item, memo)?;
                }
            }
            PyVal::Dict(d) => {
                for (k, item) in d.values() {
                    add(self, k, memo)?;
                    add(self, item, memo)?;
                }
            }
            PyVal::Set(x) => {
                for item in x.values() {
                    add(self, item, memo)?;
                }
            }
            _ => {}
        }
        memo.insert(key, (total, height + 1));
        Ok((total, height + 1))
    }

    /// `repr(v)` as a new string, charged; errors instead of building a text over the
    /// memory budget (a shared value repeated many times stops at the limit).
    pub fn repr_str(&mut self, v: &PyVal) -> EResult<String> {
        let limit = self.bytes_left();
        let s = super::value::repr_limited(v, limit).map_err(|e| self.repr_error(e))?;
        self.tick_text(s.len())?;
        Ok(s)
    }

    /// `str(v)` with the bounds of [`Ctx::repr_str`].
    pub fn to_str_str(&mut self, v: &PyVal) -> EResult<String> {
        let limit = self.bytes_left();
        let s = super::value::to_str_limited(v, limit).map_err(|e| self.repr_error(e))?;
        self.tick_text(s.len())?;
        Ok(s)
    }

    fn repr_error(&self, e: super::value::ReprStop) -> super::Error {
        match e {
            super::value::ReprStop::TooLong => self.memory_error(),
            super::value::ReprStop::TooDeep => {
                err(format!("the value is nested more than {MAX_NESTING} levels deep"))
            }
        }
    }

    /// Charges for a new string.
    pub fn new_str(&mut self, s: String) -> EResult<PyVal> {
        self.tick_text(s.len())?;
        self.charge(s.len() + 16)?;
        Ok(PyVal::str(s))
    }

    /// Charges for a new sequence of `n` elements (memory, and one step per element).
    pub fn charge_items(&mut self, n: usize) -> EResult<()> {
        self.charge(n.saturating_mul(24).saturating_add(16))?;
        self.tick_n(n as u64)
    }

    fn lookup(&mut self, name: &str) -> EResult<PyVal> {
        if let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| &**n == name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.converted.get(name) {
            return Ok(v.clone());
        }
        if let Some(g) = self.globals {
            if let Some(v) = g.get(name) {
                let pv = super::value::from_value(v)?;
                self.converted.insert(name.to_string(), pv.clone());
                return Ok(pv);
            }
        }
        global_name(name).ok_or_else(|| err(format!("name '{name}' is not defined")))
    }

    /// Evaluates a node (growing the stack on the heap for deep trees).
    pub fn eval(&mut self, node: &Node) -> EResult<PyVal> {
        stacker::maybe_grow(super::ast::STACK_RED_ZONE, super::ast::STACK_GROW, || self.eval_node(node))
    }

    fn eval_node(&mut self, node: &Node) -> EResult<PyVal> {
        self.tick()?;
        match node {
            Node::Const(c) => Ok(match c {
                Const::None => PyVal::None,
                Const::Bool(b) => PyVal::Bool(*b),
                Const::Int(i) => PyVal::Int(*i),
                Const::Float(f) => PyVal::Float(*f),
                Const::Str(s) => PyVal::str(&**s),
            }),
            Node::Name(n) => self.lookup(n),
            Node::List(elts) => {
                let v = self.eval_elts(elts)?;
                Ok(PyVal::list(v))
            }
            Node::Tuple(elts) => {
                let v = self.eval_elts(elts)?;
                Ok(PyVal::tuple(v))
            }
            Node::Set(elts) => {
                let v = self.eval_elts(elts)?;
                let mut s = Set::new();
                for x in v {
                    s.insert(x.hkey()?, x);
                }
                Ok(PyVal::Set(Rc::new(s)))
            }
            Node::Dict(items) => {
                let mut d = Dict::new();
                for it in items {
                    match it {
                        DictItem::Pair(k, v) => {
                            let k = self.eval(k)?;
                            let v = self.eval(v)?;
                            dict_insert(&mut d, k, v)?;
                        }
                        DictItem::Unpack(m) => match self.eval(m)? {
                            PyVal::Dict(m) => {
                                for (hk, kv) in m.iter() {
                                    d.insert(hk.clone(), kv.clone());
                                }
                            }
                            other => return Err(err(format!("'{}' object is not a mapping", other.type_name()))),
                        },
                    }
                }
                self.charge_items(d.len() * 2)?;
                Ok(PyVal::Dict(Rc::new(d)))
            }
            Node::BinOp(a, op, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                self.binop(*op, &a, &b)
            }
            Node::Unary(op, a) => {
                let a = self.eval(a)?;
                unary(*op, &a)
            }
            Node::And(vals) => {
                let mut last = PyVal::Bool(true);
                for v in vals {
                    last = self.eval(v)?;
                    if !last.truthy() {
                        return Ok(last);
                    }
                }
                Ok(last)
            }
            Node::Or(vals) => {
                let mut last = PyVal::Bool(false);
                for v in vals {
                    last = self.eval(v)?;
                    if last.truthy() {
                        return Ok(last);
                    }
                }
                Ok(last)
            }
            Node::Compare(first, rest) => {
                let mut left = self.eval(first)?;
                for (op, rn) in rest {
                    let right = self.eval(rn)?;
                    if !self.compare(*op, &left, &right)? {
                        return Ok(PyVal::Bool(false));
                    }
                    left = right;
                }
                Ok(PyVal::Bool(true))
            }
            Node::IfExp(t, a, b) => {
                if self.eval(t)?.truthy() {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            Node::Attr(obj, name) => {
                let o = self.eval(obj)?;
                builtins::get_attr(&o, name)
            }
            Node::Subscript(obj, idx) => {
                let o = self.eval(obj)?;
                if let Node::Slice(lo, hi, st) = &**idx {
                    let lo = self.eval_opt(lo)?;
                    let hi = self.eval_opt(hi)?;
                    let st = self.eval_opt(st)?;
                    self.slice(&o, &lo, &hi, &st)
                } else {
                    let i = self.eval(idx)?;
                    self.index(&o, &i)
                }
            }
            Node::Slice(..) => Err(err("a slice is only allowed inside brackets")),
            Node::Call(f, args, kws) => {
                let fv = self.eval(f)?;
                let args = self.eval_elts(args)?;
                let mut kwargs = Vec::with_capacity(kws.len());
                for (k, v) in kws {
                    let val = self.eval(v)?;
                    match k {
                        Some(k) => kwargs.push((PyStr::from(&**k), val)),
                        None => match val {
                            PyVal::Dict(d) => {
                                for (kk, vv) in d.values() {
                                    match kk {
                                        PyVal::Str(s) => kwargs.push((s.clone(), vv.clone())),
                                        _ => return Err(err("keywords must be strings")),
                                    }
                                }
                            }
                            other => {
                                return Err(err(format!(
                                    "argument after ** must be a mapping, not {}",
                                    other.type_name()
                                )))
                            }
                        },
                    }
                }
                self.call(&fv, args, kwargs)
            }
            Node::ListComp(elt, comps) => {
                let mut out = Vec::new();
                self.run_comp(comps, 0, &mut |ctx| {
                    let v = ctx.eval(elt)?;
                    out.push(v);
                    ctx.charge(24)?;
                    Ok(true)
                })?;
                Ok(PyVal::list(out))
            }
            Node::SetComp(elt, comps) => {
                let mut out = super::value::Set::new();
                self.run_comp(comps, 0, &mut |ctx| {
                    let v = ctx.eval(elt)?;
                    out.insert(v.hkey()?, v);
                    ctx.charge(24)?;
                    Ok(true)
                })?;
                Ok(PyVal::Set(Rc::new(out)))
            }
            Node::DictComp(k, v, comps) => {
                let mut out = Dict::new();
                self.run_comp(comps, 0, &mut |ctx| {
                    let kk = ctx.eval(k)?;
                    let vv = ctx.eval(v)?;
                    dict_insert(&mut out, kk, vv)?;
                    ctx.charge(48)?;
                    Ok(true)
                })?;
                Ok(PyVal::Dict(Rc::new(out)))
            }
            Node::GenExp(elt, comps) => {
                // Python evaluates the first iterable eagerly, where the generator is created.
                Ok(PyVal::Gen(Rc::new(Generator {
                    elt: elt.clone(),
                    comps: comps.clone(),
                    captured: self.locals.clone(),
                })))
            }
            Node::Lambda(params, body) => {
                let mut captured = self.locals.clone();
                // defaults are evaluated where the lambda is created
                for (name, default) in &params.names {
                    if let Some(d) = default {
                        let v = self.eval(d)?;
                        captured.push((format!("\u{0}default:{name}").into(), v));
                    }
                }
                Ok(PyVal::Lambda(Rc::new(Lambda { params: params.clone(), body: body.clone(), captured })))
            }
            Node::FString(parts) => {
                // Each replacement field was charged as it was formatted.
                let s = self.fstring(parts)?;
                Ok(PyVal::str(s))
            }
        }
    }

    fn eval_opt(&mut self, n: &Option<Box<Node>>) -> EResult<PyVal> {
        match n {
            Some(n) => self.eval(n),
            None => Ok(PyVal::None),
        }
    }

    fn eval_elts(&mut self, elts: &[Elt]) -> EResult<Vec<PyVal>> {
        let mut out = Vec::with_capacity(elts.len());
        for e in elts {
            match e {
                Elt::One(n) => out.push(self.eval(n)?),
                Elt::Star(n) => {
                    let v = self.eval(n)?;
                    out.extend(self.to_vec(&v)?);
                }
            }
        }
        self.charge_items(out.len())?;
        Ok(out)
    }

    fn fstring(&mut self, parts: &[FPart]) -> EResult<String> {
        let mut out = String::new();
        for p in parts {
            match p {
                FPart::Lit(s) => out.push_str(s),
                FPart::Value { expr, conv, spec, debug } => {
                    let v = self.eval(expr)?;
                    if let Some(d) = debug {
                        out.push_str(d);
                    }
                    let conv = match (conv, debug) {
                        (None, Some(_)) if spec.is_empty() => Some('r'),
                        (c, _) => *c,
                    };
                    let v = match conv {
                        Some('r') => PyVal::str(self.repr_str(&v)?),
                        Some('a') => PyVal::str(ascii(&self.repr_str(&v)?)),
                        Some(_) => PyVal::str(self.to_str_str(&v)?),
                        None => v,
                    };
                    let spec = self.fstring(spec)?;
                    let piece = format_value(&v, &spec, self.bytes_left())?;
                    self.tick_text(piece.len())?;
                    self.charge(piece.len())?;
                    out.push_str(&piece);
                }
            }
        }
        Ok(out)
    }

    /// Binds a loop target.
    fn bind(&mut self, t: &Target, v: PyVal) -> EResult<usize> {
        match t {
            Target::Name(n) => {
                self.locals.push((n.clone(), v));
                Ok(1)
            }
            Target::Unpack(ts) => {
                let items = self.to_vec(&v)?;
                if items.len() != ts.len() {
                    return Err(err(if items.len() > ts.len() {
                        format!("too many values to unpack (expected {})", ts.len())
                    } else {
                        format!("not enough values to unpack (expected {}, got {})", ts.len(), items.len())
                    }));
                }
                let mut n = 0;
                for (t, x) in ts.iter().zip(items) {
                    n += self.bind(t, x)?;
                }
                Ok(n)
            }
        }
    }

    /// Runs comprehension clauses from `idx`, calling `f` for each innermost binding; `f`
    /// returns false to stop. Returns false when stopped.
    pub fn run_comp(
        &mut self,
        comps: &[Comp],
        idx: usize,
        f: &mut dyn FnMut(&mut Ctx<'a>) -> EResult<bool>,
    ) -> EResult<bool> {
        if idx == comps.len() {
            return f(self);
        }
        let c = &comps[idx];
        let it = self.eval(&c.iter)?;
        let mut go = true;
        self.iterate(&it, &mut |ctx, v| {
            ctx.tick()?;
            let n = ctx.bind(&c.target, v)?;
            let mut ok = true;
            let mut result = Ok(true);
            for cond in &c.ifs {
                match ctx.eval(cond) {
                    Ok(x) if x.truthy() => {}
                    Ok(_) => {
                        ok = false;
                        break;
                    }
                    Err(e) => {
                        result = Err(e);
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                result = ctx.run_comp(comps, idx + 1, f);
            }
            let len = ctx.locals.len();
            ctx.locals.truncate(len - n);
            let cont = result?;
            if !cont {
                go = false;
            }
            Ok(cont)
        })?;
        Ok(go)
    }

    /// Iterates any iterable, calling `f` with each element until it returns false.
    pub fn iterate(&mut self, v: &PyVal, f: &mut dyn FnMut(&mut Ctx<'a>, PyVal) -> EResult<bool>) -> EResult<()> {
        match v {
            PyVal::List(x) | PyVal::Tuple(x) | PyVal::Iter(_, x) => {
                for item in x.iter() {
                    self.tick()?;
                    if !f(self, item.clone())? {
                        break;
                    }
                }
            }
            PyVal::Str(s) => {
                for c in s.chars() {
                    self.tick()?;
                    self.charge(20)?;
                    if !f(self, PyVal::str(c.to_string()))? {
                        break;
                    }
                }
            }
            PyVal::Dict(d) => {
                for (k, _) in d.values() {
                    self.tick()?;
                    if !f(self, k.clone())? {
                        break;
                    }
                }
            }
            PyVal::Set(s) => {
                for k in s.values() {
                    self.tick()?;
                    if !f(self, k.clone())? {
                        break;
                    }
                }
            }
            PyVal::Range(a, b, st) => {
                let n = range_len(*a, *b, *st);
                for i in 0..n {
                    self.tick()?;
                    if !f(self, PyVal::Int(range_item(*a, *st, i)))? {
                        break;
                    }
                }
            }
            PyVal::Gen(g) => {
                let mut outer = std::mem::replace(&mut self.locals, g.captured.clone());
                let elt = g.elt.clone();
                let res = self.run_comp(&g.comps, 0, &mut |ctx| {
                    let v = ctx.eval(&elt)?;
                    std::mem::swap(&mut ctx.locals, &mut outer);
                    let r = f(ctx, v);
                    std::mem::swap(&mut ctx.locals, &mut outer);
                    r
                });
                self.locals = outer;
                res?;
            }
            PyVal::Match(_) => return Err(err("'re.Match' object is not iterable")),
            other => return Err(err(format!("'{}' object is not iterable", other.type_name()))),
        }
        Ok(())
    }

    /// Collects an iterable into a vector.
    pub fn to_vec(&mut self, v: &PyVal) -> EResult<Vec<PyVal>> {
        if let PyVal::List(x) | PyVal::Tuple(x) | PyVal::Iter(_, x) = v {
            self.tick_n(x.len() as u64)?;
            return Ok(x.to_vec());
        }
        let known = match v {
            PyVal::Range(a, b, st) => Some(range_len(*a, *b, *st)),
            PyVal::Dict(d) => Some(d.len() as u64),
            PyVal::Set(x) => Some(x.len() as u64),
            _ => None,
        };
        if let Some(n) = known {
            // The size is known: charged before anything is built.
            self.charge_wide(n as u128 * 24)?;
            let mut out = Vec::with_capacity(n as usize);
            self.iterate(v, &mut |_, x| {
                out.push(x);
                Ok(true)
            })?;
            return Ok(out);
        }
        let mut out = Vec::new();
        self.iterate(v, &mut |ctx, x| {
            ctx.charge(24)?;
            out.push(x);
            Ok(true)
        })?;
        Ok(out)
    }

    /// Calls any callable.
    pub fn call(&mut self, f: &PyVal, args: Vec<PyVal>, kwargs: Vec<(PyStr, PyVal)>) -> EResult<PyVal> {
        self.tick()?;
        match f {
            PyVal::Func(Func::Builtin(name)) | PyVal::Type(name) => builtins::call_builtin(self, name, args, kwargs),
            PyVal::Func(Func::Method(recv, name)) => builtins::call_method(self, recv, name, args, kwargs),
            PyVal::Func(Func::Unbound(ty, name)) => {
                let mut args = args.into_iter();
                let recv = args.next().ok_or_else(|| err(format!("unbound method {ty}.{name}() needs an argument")))?;
                if recv.type_name() != *ty && !(*ty == "int" && matches!(recv, PyVal::Bool(_))) {
                    return Err(err(format!(
                        "descriptor '{name}' for '{ty}' objects doesn't apply to a '{}' object",
                        recv.type_name()
                    )));
                }
                builtins::call_method(self, &recv, name, args.collect(), kwargs)
            }
            PyVal::Func(Func::ModuleFn(m, n)) => builtins::call_module(self, m, n, args, kwargs),
            PyVal::Lambda(l) => self.call_lambda(l, args, kwargs),
            other => Err(err(format!("'{}' object is not callable", other.type_name()))),
        }
    }

    fn call_lambda(&mut self, l: &Rc<Lambda>, args: Vec<PyVal>, kwargs: Vec<(PyStr, PyVal)>) -> EResult<PyVal> {
        let np = l.params.names.len();
        if args.len() > np {
            return Err(err(format!("<lambda>() takes {np} positional arguments but {} were given", args.len())));
        }
        let mut bound: Vec<Option<PyVal>> = args.into_iter().map(Some).collect();
        bound.resize(np, None);
        for (k, v) in kwargs {
            let i = l.params.names.iter().position(|(n, _)| **n == *k).ok_or_else(|| {
                err(format!("<lambda>() got an unexpected keyword argument '{k}'"))
            })?;
            if bound[i].is_some() {
                return Err(err(format!("<lambda>() got multiple values for argument '{k}'")));
            }
            bound[i] = Some(v);
        }
        let mut frame = l.captured.clone();
        for ((name, _), v) in l.params.names.iter().zip(bound) {
            let v = match v {
                Some(v) => v,
                None => {
                    let key = format!("\u{0}default:{name}");
                    l.captured
                        .iter()
                        .rev()
                        .find(|(n, _)| **n == *key)
                        .map(|(_, v)| v.clone())
                        .ok_or_else(|| err(format!("<lambda>() missing required positional argument: '{name}'")))?
                }
            };
            frame.push((name.clone(), v));
        }
        if self.calls >= self.limits.depth {
            return Err(err("maximum recursion depth exceeded in the expression sandbox"));
        }
        self.calls += 1;
        let saved = std::mem::replace(&mut self.locals, frame);
        let r = self.eval(&l.body);
        self.locals = saved;
        self.calls -= 1;
        r
    }

    /// Python comparison operators.
    pub fn compare(&mut self, op: CmpOp, a: &PyVal, b: &PyVal) -> EResult<bool> {
        Ok(match op {
            CmpOp::Eq => py_eq(a, b),
            CmpOp::NotEq => !py_eq(a, b),
            CmpOp::Lt => py_cmp(a, b, "<")? == Some(Ordering::Less),
            CmpOp::LtE => matches!(py_cmp(a, b, "<=")?, Some(Ordering::Less | Ordering::Equal)),
            CmpOp::Gt => py_cmp(a, b, ">")? == Some(Ordering::Greater),
            CmpOp::GtE => matches!(py_cmp(a, b, ">=")?, Some(Ordering::Greater | Ordering::Equal)),
            CmpOp::Is => is_same(a, b),
            CmpOp::IsNot => !is_same(a, b),
            CmpOp::In => self.contains(b, a)?,
            CmpOp::NotIn => !self.contains(b, a)?,
        })
    }

    /// `item in container`.
    pub fn contains(&mut self, container: &PyVal, item: &PyVal) -> EResult<bool> {
        match container {
            PyVal::Str(s) => match item {
                PyVal::Str(x) => Ok(s.contains(&**x)),
                other => Err(err(format!("'in <string>' requires string as left operand, not {}", other.type_name()))),
            },
            PyVal::Dict(d) => Ok(d.contains_key(&item.hkey()?)),
            PyVal::Set(s) => Ok(s.contains_key(&item.hkey()?)),
            PyVal::Range(a, b, st) => Ok(match item.as_int() {
                Some(i) => range_position(*a, *b, *st, i).is_some(),
                // A float equal to an element is in the range too.
                None => match item.as_f64() {
                    Some(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => range_position(*a, *b, *st, f as i64).is_some(),
                    _ => false,
                },
            }),
            other => {
                let mut found = false;
                self.iterate(other, &mut |_, x| {
                    if py_eq(&x, item) {
                        found = true;
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                Ok(found)
            }
        }
    }

    /// `o[i]`.
    pub fn index(&mut self, o: &PyVal, i: &PyVal) -> EResult<PyVal> {
        let idx = |len: u64, what: &str| -> EResult<u64> {
            let k = i.as_int().ok_or_else(|| {
                err(format!("{what} indices must be integers or slices, not {}", i.type_name()))
            })?;
            let j = if k < 0 { k as i128 + len as i128 } else { k as i128 };
            if j < 0 || j >= len as i128 {
                return Err(err(format!("{what} index out of range")));
            }
            Ok(j as u64)
        };
        match o {
            PyVal::List(v) => Ok(v[idx(v.len() as u64, "list")? as usize].clone()),
            PyVal::Tuple(v) => Ok(v[idx(v.len() as u64, "tuple")? as usize].clone()),
            PyVal::Str(s) => {
                self.tick_text(s.len())?;
                let n = s.chars().count();
                let j = idx(n as u64, "string")? as usize;
                Ok(PyVal::str(s.chars().nth(j).map(String::from).unwrap_or_default()))
            }
            PyVal::Dict(d) => match d.get(&i.hkey()?) {
                Some((_, v)) => Ok(v.clone()),
                None => Err(err(format!("KeyError: {}", repr(i)))),
            },
            PyVal::Range(a, b, st) => {
                let j = idx(range_len(*a, *b, *st), "range object")?;
                Ok(PyVal::Int(range_item(*a, *st, j)))
            }
            PyVal::Match(m) => m.group(std::slice::from_ref(i)),
            other => Err(err(format!("'{}' object is not subscriptable", other.type_name()))),
        }
    }

    fn slice(&mut self, o: &PyVal, lo: &PyVal, hi: &PyVal, st: &PyVal) -> EResult<PyVal> {
        let get = |v: &PyVal| -> EResult<Option<i64>> {
            match v {
                PyVal::None => Ok(None),
                other => other
                    .as_int()
                    .map(Some)
                    .ok_or_else(|| err("slice indices must be integers or None or have an __index__ method")),
            }
        };
        let (lo, hi, st) = (get(lo)?, get(hi)?, get(st)?);
        match o {
            PyVal::List(v) | PyVal::Tuple(v) => {
                let sl = SliceIdx::new(v.len() as u64, lo, hi, st)?;
                self.charge_items(sl.count as usize)?;
                let out: Vec<PyVal> = sl.iter().map(|i| v[i as usize].clone()).collect();
                Ok(if matches!(o, PyVal::List(_)) { PyVal::list(out) } else { PyVal::tuple(out) })
            }
            PyVal::Str(s) => {
                self.tick_text(s.len())?;
                let chars: Vec<char> = s.chars().collect();
                self.charge(chars.len().saturating_mul(4))?;
                let sl = SliceIdx::new(chars.len() as u64, lo, hi, st)?;
                let out: String = sl.iter().map(|i| chars[i as usize]).collect();
                self.new_str(out)
            }
            PyVal::Range(a, b, rs) => {
                // As Python: a range of the selected elements, no list built.
                let sl = SliceIdx::new(range_len(*a, *b, *rs), lo, hi, st)?;
                let at = |k: i128| -> EResult<i64> {
                    i64::try_from(*a as i128 + k * *rs as i128)
                        .map_err(|_| out_of_range("a bound of the sliced range"))
                };
                let step = i64::try_from(sl.step * *rs as i128).map_err(|_| out_of_range("the step of the sliced range"))?;
                Ok(PyVal::Range(at(sl.start)?, at(sl.stop)?, step))
            }
            other => Err(err(format!("'{}' object is not subscriptable", other.type_name()))),
        }
    }

    /// Binary arithmetic with Python semantics.
    pub fn binop(&mut self, op: BinOp, a: &PyVal, b: &PyVal) -> EResult<PyVal> {
        use PyVal::*;
        if let (Some(x), Some(y)) = (a.num(), b.num()) {
            if matches!((a, b), (Bool(_), Bool(_))) && matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) {
                let (p, q) = (a.truthy(), b.truthy());
                return Ok(Bool(match op {
                    BinOp::BitAnd => p & q,
                    BinOp::BitOr => p | q,
                    _ => p ^ q,
                }));
            }
            return arith(op, x, y);
        }
        let unsupported = || {
            err(format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                op_symbol(op),
                a.type_name(),
                b.type_name()
            ))
        };
        match (op, a, b) {
            (BinOp::Add, Str(x), Str(y)) => {
                self.tick_text(x.len() + y.len())?;
                self.charge(x.len() + y.len() + 16)?;
                let mut s = String::with_capacity(x.len() + y.len());
                s.push_str(x);
                s.push_str(y);
                Ok(PyVal::str(s))
            }
            (BinOp::Add, List(x), List(y)) => {
                self.charge_items(x.len() + y.len())?;
                Ok(PyVal::list(x.iter().chain(y.iter()).cloned().collect()))
            }
            (BinOp::Add, Tuple(x), Tuple(y)) => {
                self.charge_items(x.len() + y.len())?;
                Ok(PyVal::tuple(x.iter().chain(y.iter()).cloned().collect()))
            }
            (BinOp::Mul, Str(_) | List(_) | Tuple(_), _) if b.as_int().is_some() => self.repeat(a, b.as_int().unwrap_or(0)),
            (BinOp::Mul, _, Str(_) | List(_) | Tuple(_)) if a.as_int().is_some() => self.repeat(b, a.as_int().unwrap_or(0)),
            (BinOp::Mod, Str(fmt), _) => {
                let s = builtins::percent_format(self, fmt, b)?;
                Ok(PyVal::str(s))
            }
            (BinOp::Sub | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor, Set(x), Set(y)) => {
                let mut out = super::value::Set::new();
                match op {
                    BinOp::Sub => out.extend(x.iter().filter(|(k, _)| !y.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone()))),
                    BinOp::BitAnd => out.extend(x.iter().filter(|(k, _)| y.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone()))),
                    BinOp::BitOr => {
                        out.extend(x.iter().map(|(k, v)| (k.clone(), v.clone())));
                        for (k, v) in y.iter() {
                            out.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                    _ => {
                        out.extend(x.iter().filter(|(k, _)| !y.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())));
                        out.extend(y.iter().filter(|(k, _)| !x.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())));
                    }
                }
                self.charge_items(out.len())?;
                Ok(PyVal::Set(Rc::new(out)))
            }
            (BinOp::BitOr, Dict(x), Dict(y)) => {
                let mut out = (**x).clone();
                for (k, kv) in y.iter() {
                    out.insert(k.clone(), kv.clone());
                }
                self.charge_items(out.len() * 2)?;
                Ok(PyVal::Dict(Rc::new(out)))
            }
            _ => Err(unsupported()),
        }
    }

    /// `seq * n`: the size of the result is charged before it is built, and repeating an
    /// empty sequence costs nothing however large `n` is.
    fn repeat(&mut self, seq: &PyVal, n: i64) -> EResult<PyVal> {
        let n = usize::try_from(n).unwrap_or(0);
        match seq {
            PyVal::Str(s) => {
                if s.is_empty() || n == 0 {
                    return Ok(PyVal::str(""));
                }
                let total = s.len().checked_mul(n).ok_or_else(|| self.memory_error())?;
                self.charge(total.saturating_add(16))?;
                self.tick_text(total)?;
                Ok(PyVal::str(s.repeat(n)))
            }
            PyVal::List(v) | PyVal::Tuple(v) => {
                let total = if v.is_empty() { 0 } else { v.len().checked_mul(n).ok_or_else(|| self.memory_error())? };
                self.charge_items(total)?;
                let mut out = Vec::with_capacity(total);
                for _ in 0..if total == 0 { 0 } else { n } {
                    out.extend(v.iter().cloned());
                }
                Ok(if matches!(seq, PyVal::List(_)) { PyVal::list(out) } else { PyVal::tuple(out) })
            }
            _ => Err(err("can't multiply sequence")),
        }
    }
}

/// Python's `ascii()` on top of a repr: non-ASCII characters escaped.
pub fn ascii(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let n = c as u32;
        if n < 0x80 {
            out.push(c)
        } else if n < 0x100 {
            out.push_str(&format!("\\x{n:02x}"))
        } else if n < 0x10000 {
            out.push_str(&format!("\\u{n:04x}"))
        } else {
            out.push_str(&format!("\\U{n:08x}"))
        }
    }
    out
}

/// Inserts into a dict, keeping the first key object and the last value (as Python does).
pub fn dict_insert(d: &mut Dict, k: PyVal, v: PyVal) -> EResult<()> {
    let hk = k.hkey()?;
    match d.get_mut(&hk) {
        Some(slot) => slot.1 = v,
        None => {
            d.insert(hk, (k, v));
        }
    }
    Ok(())
}

/// The elements `[lo:hi:st]` selects from a sequence of `len` elements, clamped as Python
/// clamps them (any i64 bound or step, no overflow): `count` positions from `start`, `step`
/// apart; `stop` is the adjusted end bound (what a sliced `range` keeps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceIdx {
    /// The first position.
    pub start: i128,
    /// The adjusted end bound (exclusive).
    pub stop: i128,
    /// The distance between positions (never zero).
    pub step: i128,
    /// How many positions are selected (at most `len`).
    pub count: u64,
}

impl SliceIdx {
    /// Resolves `[lo:hi:st]` over `len` elements; errors on a zero step.
    pub fn new(len: u64, lo: Option<i64>, hi: Option<i64>, st: Option<i64>) -> EResult<SliceIdx> {
        let step = st.unwrap_or(1) as i128;
        if step == 0 {
            return Err(err("slice step cannot be zero"));
        }
        let n = len as i128;
        let adjust = |v: i64| -> i128 {
            let v = v as i128;
            if v < 0 {
                let v = v + n;
                if v < 0 {
                    if step < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    v
                }
            } else if v >= n {
                if step < 0 {
                    n - 1
                } else {
                    n
                }
            } else {
                v
            }
        };
        let start = lo.map(adjust).unwrap_or(if step < 0 { n - 1 } else { 0 });
        let stop = hi.map(adjust).unwrap_or(if step < 0 { -1 } else { n });
        let count = if step > 0 && start < stop {
            (stop - start - 1) / step + 1
        } else if step < 0 && stop < start {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        };
        Ok(SliceIdx { start, stop, step, count: count as u64 })
    }

    /// The selected positions, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.count).map(move |k| (self.start + k as i128 * self.step) as u64)
    }
}

fn is_same(a: &PyVal, b: &PyVal) -> bool {
    use PyVal::*;
    match (a, b) {
        (None, None) => true,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) => x == y && (-5..=256).contains(x),
        (Str(x), Str(y)) => PyStr::ptr_eq(x, y) || x == y,
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => Rc::ptr_eq(x, y),
        (Dict(x), Dict(y)) => Rc::ptr_eq(x, y),
        (Type(x), Type(y)) | (Module(x), Module(y)) => x == y,
        _ => false,
    }
}

fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::FloorDiv => "//",
        BinOp::Mod => "%",
        BinOp::Pow => "** or pow()",
        BinOp::LShift => "<<",
        BinOp::RShift => ">>",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::BitAnd => "&",
    }
}

fn overflow() -> super::Error {
    err("integer overflow: the result is out of the range of the expression sandbox's 64-bit ints")
}

/// An error for an integer `what` that Python would compute but that is out of the range of
/// the sandbox's 64-bit ints.
pub fn out_of_range(what: &str) -> super::Error {
    err(format!("{what} is out of the range of the expression sandbox's 64-bit ints"))
}

/// Python float floor division and modulo (CPython's `float_divmod`).
pub fn float_divmod(a: f64, b: f64) -> EResult<(f64, f64)> {
    if b == 0.0 {
        return Err(err("float division by zero"));
    }
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(b);
    }
    let fd = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(a / b)
    };
    Ok((fd, m))
}

/// Python integer floor division and modulo.
pub fn int_divmod(a: i64, b: i64) -> EResult<(i64, i64)> {
    if b == 0 {
        return Err(err("integer division or modulo by zero"));
    }
    let q = a.checked_div(b).ok_or_else(overflow)?;
    let r = a - q * b;
    if r != 0 && ((r < 0) != (b < 0)) {
        Ok((q - 1, r + b))
    } else {
        Ok((q, r))
    }
}

fn arith(op: BinOp, x: Result<i64, f64>, y: Result<i64, f64>) -> EResult<PyVal> {
    use PyVal::{Float, Int};
    match (x, y) {
        (Ok(a), Ok(b)) => match op {
            BinOp::Add => a.checked_add(b).map(Int).ok_or_else(overflow),
            BinOp::Sub => a.checked_sub(b).map(Int).ok_or_else(overflow),
            BinOp::Mul => a.checked_mul(b).map(Int).ok_or_else(overflow),
            BinOp::Div => {
                if b == 0 {
                    Err(err("division by zero"))
                } else {
                    Ok(Float(a as f64 / b as f64))
                }
            }
            BinOp::FloorDiv => Ok(Int(int_divmod(a, b)?.0)),
            BinOp::Mod => Ok(Int(int_divmod(a, b)?.1)),
            BinOp::Pow => {
                if b < 0 {
                    if a == 0 {
                        return Err(err("0.0 cannot be raised to a negative power"));
                    }
                    Ok(Float((a as f64).powf(b as f64)))
                } else {
                    let e = u32::try_from(b).map_err(|_| overflow())?;
                    a.checked_pow(e).map(Int).ok_or_else(overflow)
                }
            }
            BinOp::LShift => {
                if b < 0 {
                    return Err(err("negative shift count"));
                }
                if a == 0 {
                    return Ok(Int(0));
                }
                if b >= 63 {
                    return Err(overflow());
                }
                let r = a.checked_mul(1i64 << b).ok_or_else(overflow)?;
                Ok(Int(r))
            }
            BinOp::RShift => {
                if b < 0 {
                    return Err(err("negative shift count"));
                }
                Ok(Int(a >> b.min(63)))
            }
            BinOp::BitAnd => Ok(Int(a & b)),
            BinOp::BitOr => Ok(Int(a | b)),
            BinOp::BitXor => Ok(Int(a ^ b)),
        },
        (x, y) => {
            let a = match x {
                Ok(i) => i as f64,
                Err(f) => f,
            };
            let b = match y {
                Ok(i) => i as f64,
                Err(f) => f,
            };
            match op {
                BinOp::Add => Ok(Float(a + b)),
                BinOp::Sub => Ok(Float(a - b)),
                BinOp::Mul => Ok(Float(a * b)),
                BinOp::Div => {
                    if b == 0.0 {
                        Err(err("float division by zero"))
                    } else {
                        Ok(Float(a / b))
                    }
                }
                BinOp::FloorDiv => Ok(Float(float_divmod(a, b)?.0)),
                BinOp::Mod => Ok(Float(float_divmod(a, b)?.1)),
                BinOp::Pow => {
                    if a == 0.0 && b < 0.0 {
                        return Err(err("0.0 cannot be raised to a negative power"));
                    }
                    if a < 0.0 && b.fract() != 0.0 && b.is_finite() {
                        return Err(err("a negative number raised to a fractional power is complex"));
                    }
                    let r = a.powf(b);
                    if r.is_infinite() && a.is_finite() && b.is_finite() {
                        return Err(err("OverflowError: (34, 'Numerical result out of range')"));
                    }
                    Ok(Float(r))
                }
                _ => Err(err(format!("unsupported operand type(s) for {}: 'float'", op_symbol(op)))),
            }
        }
    }
}

fn unary(op: UnOp, a: &PyVal) -> EResult<PyVal> {
    match (op, a.num()) {
        (UnOp::Not, _) => Ok(PyVal::Bool(!a.truthy())),
        (UnOp::Neg, Some(Ok(i))) => i.checked_neg().map(PyVal::Int).ok_or_else(overflow),
        (UnOp::Neg, Some(Err(f))) => Ok(PyVal::Float(-f)),
        (UnOp::Pos, Some(Ok(i))) => Ok(PyVal::Int(i)),
        (UnOp::Pos, Some(Err(f))) => Ok(PyVal::Float(f)),
        (UnOp::Invert, Some(Ok(i))) => Ok(PyVal::Int(!i)),
        _ => Err(err(format!("bad operand type for unary operator: '{}'", a.type_name()))),
    }
}
