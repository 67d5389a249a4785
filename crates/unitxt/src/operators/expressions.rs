//! Operators that evaluate Python code from the catalog in the sandboxed evaluator
//! ([`crate::expr`]): `execute_expression`, `apply`, and `literal_eval` (which only parses
//! literals, see [`super::literal`]).

use serde::{Deserialize, Deserializer};

use crate::py::dict_path::get_top;
use crate::py::ops::{py_strip, type_name};
use super::{FieldOperator, InstanceOperator};
use crate::error::{Error, Result};
use crate::expr::Expression;
use crate::py::dict_path::dict_set;
use crate::value::{Instance, Value};

/// `execute_expression`: evaluates `expression` with the instance's fields as variables and
/// stores the result at path `to_field` (Unitxt's `ExecuteExpression`). The modules in
/// `imports_list` are the ones the evaluator provides by name. The expression is parsed when
/// the artifact is built; evaluation errors name the expression.
pub struct ExecuteExpression {
    /// `expression`: the Python expression, over the instance's fields as variables.
    pub expression: String,
    /// `imports_list`: module names the expression may use (from those the evaluator provides).
    pub imports_list: Vec<String>,
    /// `to_field`: the path that receives the result.
    pub to_field: String,
    parsed: Expression,
}

#[derive(Deserialize)]
struct ExecuteExpressionArgs {
    expression: String,
    #[serde(default)]
    imports_list: Vec<String>,
    to_field: String,
}

impl<'de> Deserialize<'de> for ExecuteExpression {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let a = ExecuteExpressionArgs::deserialize(d)?;
        let parsed = Expression::parse(&a.expression).map_err(serde::de::Error::custom)?;
        Ok(ExecuteExpression { expression: a.expression, imports_list: a.imports_list, to_field: a.to_field, parsed })
    }
}

impl InstanceOperator for ExecuteExpression {
    /// The names in the expression (the only way it can reach a field) and the field written.
    fn fields_read(&self) -> crate::operators::FieldsRead {
        crate::operators::FieldsRead::of_paths([self.to_field.as_str()]).with(self.parsed.names())
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let v = self.parsed.eval(&instance).map_err(|e| e.context(format!("evaluating {:?}", self.expression)))?;
        dict_set(&mut instance, &self.to_field, v)?;
        Ok(instance)
    }
}

/// `apply`: calls the allow-listed function named `function` (`str.lower`, `json.dumps`, ...)
/// with the values of the top-level fields listed in `_argv`, and stores the result at
/// top-level `to_field` (Unitxt's `Apply`). Keyword arguments (`_kwargs`) are not supported.
#[derive(Debug, Deserialize)]
pub struct Apply {
    /// `function`: the dotted name of an allow-listed Python function.
    pub function: String,
    /// `to_field`: the top-level field that receives the result.
    pub to_field: String,
    /// `_argv`: the top-level fields whose values are the positional arguments, in order.
    #[serde(default, rename = "_argv")]
    pub argv: Vec<String>,
    /// `_kwargs`: must be absent or empty (keyword arguments are not supported).
    #[serde(default, rename = "_kwargs", deserialize_with = "no_kwargs")]
    pub kwargs: (),
}

fn no_kwargs<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<(), D::Error> {
    let m = crate::value::Map::deserialize(d)?;
    if m.is_empty() {
        Ok(())
    } else {
        Err(serde::de::Error::custom("apply: keyword arguments (`_kwargs`) are not supported"))
    }
}

impl InstanceOperator for Apply {
    /// The top-level fields passed to the function.
    fn fields_read(&self) -> crate::operators::FieldsRead {
        crate::operators::FieldsRead::Only(self.argv.clone())
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let args = self.argv.iter().map(|a| get_top(&instance, a).cloned()).collect::<Result<Vec<_>>>()?;
        let v = crate::expr::call_function(&self.function, args)
            .map_err(|e| e.context(format!("calling {:?}", self.function)))?;
        instance.insert(self.to_field.as_str().into(), v);
        Ok(instance)
    }
}

/// `literal_eval`: parses a string holding a Python literal (`"['a', 'b']"`) into the value
/// (Unitxt's `LiteralEval`). `None` and `""` pass through; other non-strings are errors.
#[derive(Debug, Deserialize)]
pub struct LiteralEval {}

impl FieldOperator for LiteralEval {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match &value {
            Value::Null => Ok(value),
            Value::String(s) if s.is_empty() => Ok(value),
            Value::String(s) => super::literal::literal_eval(py_strip(s)),
            other => Err(Error::invalid(format!(
                "literal_eval expects a string, got {}",
                type_name(other)
            ))),
        }
    }
}
