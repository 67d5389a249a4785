//! A sandboxed evaluator of the Python expression language used by catalog artifacts
//! (`execute_expression`, `filter_by_expression`, `apply`).

use crate::error::Result;
use crate::value::{Instance, Value};

/// A parsed expression, ready to evaluate many times.
pub struct Expression {
    // filled in by the implementation
}

impl Expression {
    /// Parses Python expression source. Errors (kind `Expression`) on syntax errors or
    /// constructs outside the sandbox.
    pub fn parse(_src: &str) -> Result<Expression> {
        unimplemented!("expr::Expression::parse")
    }
    /// Evaluates with `vars` as the local names (an instance's fields). Errors (kind
    /// `Expression`) on failures or when the time or memory bound is exceeded.
    pub fn eval(&self, _vars: &Instance) -> Result<Value> {
        unimplemented!("expr::Expression::eval")
    }
}

/// Calls an allow-listed function by its dotted Python name (`str.lower`, `json.loads`,
/// `len`, ...) with positional arguments: what Unitxt's `Apply` operator does.
pub fn call_function(_dotted_name: &str, _args: Vec<Value>) -> Result<Value> {
    unimplemented!("expr::call_function")
}
