//! A sandboxed evaluator of the Python expression language used by catalog artifacts
//! (`execute_expression`, `filter_by_expression`, `apply`).
//!
//! Source is parsed with Ruff's Python parser (`ruff_python_parser`) and lowered into our own
//! tree ([`ast`]), which rejects anything outside the sandbox. The interpreter ([`eval`]) has
//! its own value model ([`value`]) with Python semantics (ints vs floats, tuples, sets, dict
//! insertion order, truthiness, floor division and modulo signs). Only allow-listed builtins,
//! methods and the modules `re`, `json`, `math`, `itertools` are reachable ([`builtins`]);
//! there is no import, attribute access to `_` names, I/O or environment access. Each
//! evaluation is bounded in steps, bytes created and lambda nesting ([`eval::Limits`],
//! configurable with `UNITXT_RS_EXPR_STEPS`, `UNITXT_RS_EXPR_BYTES`, `UNITXT_RS_EXPR_DEPTH`):
//! what an operation will cost is charged before it runs, and going over a budget is an error,
//! never a hang, a panic or an abort.
//!
//! Differences from CPython kept on purpose: sets iterate in insertion order; ints are 64-bit
//! (a result out of their range is an error, never a wrapped number); `map`/`zip`/`filter` are
//! computed eagerly (generator expressions stay lazy); module names such as `re` are visible
//! without `imports_list`; `sorted` orders NaN after every number (CPython's order with NaN
//! depends on its sort's internals).

pub mod ast;
pub mod builtins;
pub mod eval;
pub mod format;
pub mod pyre;
pub mod value;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::value::{Instance, Value};

/// Result type inside the sandbox.
pub(crate) type EResult<T> = std::result::Result<T, Error>;

/// A sandbox error (kind `Expression`) with `msg`.
pub(crate) fn err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Expression, msg)
}

/// A parsed expression, ready to evaluate many times.
pub struct Expression {
    source: String,
    tree: Arc<ast::Node>,
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expression({:?})", self.source)
    }
}

impl Expression {
    /// Parses Python expression source. Errors (kind `Expression`) on syntax errors or
    /// constructs outside the sandbox.
    pub fn parse(src: &str) -> Result<Expression> {
        let tree = ast::parse(src).map_err(|e| e.context(format!("in expression {src:?}")))?;
        Ok(Expression { source: src.to_string(), tree: Arc::new(tree) })
    }

    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every name the expression mentions: instance fields, builtins, modules and bound names
    /// alike. The sandbox reaches an instance's fields only by name (it has no `globals()` or
    /// `vars()`), so these include every field an evaluation can read.
    pub fn names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.tree.visit(&mut |n| {
            if let ast::Node::Name(name) = n {
                out.push(name.to_string());
            }
            true
        });
        out
    }

    /// The keys `k` of the subscripts `var["k"]` (a string literal key) in the expression,
    /// when `var` appears only in such subscripts; `None` when it appears any other way (passed
    /// to a function, iterated, subscripted by a computed key, ...), which may read any key.
    pub fn string_keys_of(&self, var: &str) -> Option<Vec<String>> {
        let mut keys = Vec::new();
        let mut other_use = false;
        self.tree.visit(&mut |n| match n {
            ast::Node::Subscript(base, key) if matches!(&**base, ast::Node::Name(b) if &**b == var) => {
                match &**key {
                    ast::Node::Const(ast::Const::Str(k)) => keys.push(k.to_string()),
                    _ => other_use = true,
                }
                false
            }
            ast::Node::Name(b) if &**b == var => {
                other_use = true;
                false
            }
            _ => true,
        });
        (!other_use).then_some(keys)
    }

    /// Evaluates with `vars` as the local names (an instance's fields), within the budgets of
    /// [`eval::Limits::from_env`]. Errors (kind `Expression`) on failures or when a budget
    /// would be exceeded.
    pub fn eval(&self, vars: &Instance) -> Result<Value> {
        let limits = eval::Limits::from_env().map_err(|e| e.context(format!("in expression {:?}", self.source)))?;
        self.eval_with_limits(vars, limits)
    }

    /// [`Expression::eval`] within explicit budgets.
    pub fn eval_with_limits(&self, vars: &Instance, limits: eval::Limits) -> Result<Value> {
        let run = || -> EResult<Value> {
            let mut ctx = eval::Ctx::with_limits(Some(vars), limits);
            let v = ctx.eval(&self.tree)?;
            ctx.charge_materialized(&v)?;
            value::to_value(&v)
        };
        run()
            .map_err(|e| e.context(format!("in expression {:?}", self.source)))
    }
}

/// Calls an allow-listed function by its dotted Python name (`str.lower`, `json.loads`,
/// `len`, ...) with positional arguments: what Unitxt's `Apply` operator does.
pub fn call_function(dotted_name: &str, args: Vec<Value>) -> Result<Value> {
    let run = || -> EResult<Value> {
        let mut parts = dotted_name.split('.');
        let first = parts.next().unwrap_or_default();
        if first.starts_with('_') {
            return Err(err(format!("the name {first:?} is not allowed")));
        }
        let mut f = eval::global_name(first).ok_or_else(|| err(format!("unknown or disallowed function {first:?}")))?;
        for p in parts {
            if p.starts_with('_') {
                return Err(err(format!("access to the attribute {p:?} is not allowed")));
            }
            f = builtins::get_attr(&f, p)?;
        }
        let args = args.iter().map(value::from_value).collect::<EResult<Vec<_>>>()?;
        let mut ctx = eval::Ctx::new(None)?;
        let r = ctx.call(&f, args, vec![])?;
        ctx.charge_materialized(&r)?;
        value::to_value(&r)
    };
    run().map_err(|e| e.context(format!("in function {dotted_name:?}")))
}
