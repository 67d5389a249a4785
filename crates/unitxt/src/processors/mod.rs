//! Postprocessors (Unitxt's `processors.py` and the catalog's `processors/` folder): operators
//! applied to the `prediction` and `references` fields before metrics.
//!
//! Most catalog processors are a [`post_process::PostProcess`] wrapping one field operator; the
//! field operators specific to postprocessing live here, one file per family. Generic field
//! operators (`lower`, `cast`, `regex_parser`, ...) come from [`crate::operators`].

pub mod closest;
pub mod judgments;
pub mod json;
pub mod post_process;
pub mod text;

#[cfg(test)]
mod oracle_tests;

pub use post_process::Postprocessors;

use std::collections::HashMap;
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::expr::Expression;
use crate::py::ops::type_name;
use crate::value::{Instance, Value};

thread_local! {
    /// A bounded cache: the parsed form of each fixed expression source given to [`eval_py`]
    /// (string literals in this crate, so at most one entry per call site), per thread, so
    /// that a processor does not parse its expression again for every prediction.
    static EXPRS: std::cell::RefCell<HashMap<&'static str, Rc<Expression>>> = Default::default();
}

/// Evaluates the fixed Python expression `src` (parsed once per thread) with `vars` as its
/// names. Used for the processors whose behaviour is defined by Python's `re` module.
pub(crate) fn eval_py(src: &'static str, vars: &[(&str, Value)]) -> Result<Value> {
    let expr = EXPRS.with(|m| -> Result<Rc<Expression>> {
        if let Some(e) = m.borrow().get(src) {
            return Ok(e.clone());
        }
        let e = Rc::new(Expression::parse(src)?);
        m.borrow_mut().insert(src, e.clone());
        Ok(e)
    })?;
    let mut inst = Instance::new();
    for (k, v) in vars {
        inst.insert(crate::value::Key::from(&**k), v.clone());
    }
    expr.eval(&inst)
}

/// The value as a string, or the error Python raises when a string method is called on
/// something else.
pub(crate) fn as_text<'a>(v: &'a Value, what: &str) -> Result<&'a str> {
    v.as_str().ok_or_else(|| Error::invalid(format!("{what} expects a string, got '{}'", type_name(v))))
}

/// Wraps an already built [`crate::operators::FieldOperator`] (a processor whose struct is a
/// preset, not deserialized directly) with the field settings and stream scope read from `v`,
/// as the operator of type `t` (see [`crate::operators::field_operator`]).
pub fn field_op_with<T: crate::operators::FieldOperator + 'static>(
    t: &str,
    v: &Value,
    op: T,
) -> Result<std::sync::Arc<dyn crate::operators::Operator>> {
    crate::operators::field_operator(t, v, || Ok(op))
}
