//! Text operators (Unitxt's `string_operators.py`, and the text field operators of
//! `processors.py` that cards use: `lower`, `upper`, `capitalize`).

use serde::Deserialize;

use crate::py::ops::{py_iter, py_str, py_strip, type_name};
use super::{FieldOperator, InstanceOperator};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// The string inside `v`, or Python's `AttributeError` for `method` on another type.
fn text<'a>(v: &'a Value, method: &str) -> Result<&'a str> {
    v.as_str().ok_or_else(|| Error::invalid(format!("'{}' object has no attribute '{method}'", type_name(v))))
}

/// `split`: `value.split(by)` (Unitxt's `Split`). Errors when `by` is empty or the value is not
/// a string.
#[derive(Debug, Deserialize)]
pub struct Split {
    /// `by`: the separator (a non-empty string).
    pub by: String,
}

impl FieldOperator for Split {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        if self.by.is_empty() {
            return Err(Error::invalid("empty separator"));
        }
        let s = text(&value, "split")?;
        Ok(Value::Array(s.split(self.by.as_str()).map(|p| Value::String(p.into())).collect()))
    }
}

/// `join`: `by.join(value)` (Unitxt's `Join`). Errors when an item is not a string.
#[derive(Debug, Deserialize)]
pub struct Join {
    /// `by`: put between the items.
    pub by: String,
}

impl FieldOperator for Join {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let items = py_iter(&value)?;
        let mut parts = Vec::with_capacity(items.len());
        for (i, it) in items.iter().enumerate() {
            match it {
                Value::String(s) => parts.push(s.as_str()),
                other => {
                    return Err(Error::invalid(format!(
                        "sequence item {i}: expected str instance, {} found",
                        type_name(other)
                    )))
                }
            }
        }
        Ok(Value::String(parts.join(&self.by).into()))
    }
}

/// `strip`: `value.strip()` (Unitxt's `Strip`).
#[derive(Debug, Deserialize)]
pub struct Strip {}

impl FieldOperator for Strip {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(Value::String(py_strip(text(&value, "strip")?).into()))
    }
}

/// `replace`: `value.replace(old, new)` (Unitxt's `Replace`).
#[derive(Debug, Deserialize)]
pub struct Replace {
    /// `old`: the substring replaced, every occurrence.
    pub old: String,
    /// `new`: what replaces it.
    pub new: String,
}

impl FieldOperator for Replace {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(Value::String(text(&value, "replace")?.replace(&self.old, &self.new).into()))
    }
}

/// `map_replace`: applies `value.replace(key, val)` for each `mapping` entry in order (Unitxt's
/// `MapReplace`).
#[derive(Debug, Deserialize)]
pub struct MapReplace {
    /// `mapping`: substring to replacement, applied one entry after the other in this order.
    pub mapping: crate::value::Map,
}

impl FieldOperator for MapReplace {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        if self.mapping.is_empty() {
            return Ok(value);
        }
        let mut s = text(&value, "replace")?.to_string();
        for (k, v) in &self.mapping {
            let v = v.as_str().ok_or_else(|| Error::invalid(format!("map_replace: the replacement for {k:?} is not a string")))?;
            s = s.replace(k.as_str(), v);
        }
        Ok(Value::String(s.into()))
    }
}

/// `lower`: `value.lower()` (Unitxt's `Lower`; `lower_case` too).
#[derive(Debug, Deserialize)]
pub struct Lower {}

impl FieldOperator for Lower {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(Value::String(text(&value, "lower")?.to_lowercase().into()))
    }
}

/// `upper`: `str(value).upper()` (Unitxt's `Upper`).
#[derive(Debug, Deserialize)]
pub struct Upper {}

impl FieldOperator for Upper {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(Value::String(py_str(&value).to_uppercase().into()))
    }
}

/// `capitalize`: `value.capitalize()`: first character upper case, the rest lower case
/// (Unitxt's `Capitalize`).
#[derive(Debug, Deserialize)]
pub struct Capitalize {}

impl FieldOperator for Capitalize {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let s = text(&value, "capitalize")?;
        let mut chars = s.chars();
        let out = match chars.next() {
            Some(c) => c.to_uppercase().chain(chars.as_str().to_lowercase().chars()).collect(),
            None => String::new(),
        };
        Ok(Value::String(out.into()))
    }
}

/// `format_text`: stores `text.format(**instance)` at top-level `to_field` (Unitxt's
/// `FormatText`), with all of `str.format` (see [`python_format`]).
#[derive(Debug, Deserialize)]
pub struct FormatText {
    /// `to_field`: the top-level field that receives the text.
    pub to_field: String,
    /// `text`: the format string, over the instance's fields.
    pub text: crate::py::str_format::FormatString,
}

impl InstanceOperator for FormatText {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let s = python_format(&self.text, &instance)?;
        instance.insert(self.to_field.as_str().into(), Value::String(s.into()));
        Ok(instance)
    }
}

/// Python's `template.format(**fields)`, through the templates' [`py_format`]: a missing field
/// is a not-found error (`KeyError`), a malformed string or spec an invalid-input error.
///
/// [`py_format`]: crate::py::str_format::py_format
pub fn python_format(template: &crate::py::str_format::FormatString, fields: &Instance) -> Result<String> {
    use crate::py::str_format::FormatError;
    template.format(fields).map_err(|e| match e {
        FormatError::Key(k) => Error::not_found(format!("KeyError: {k:?}")),
        FormatError::Other(m) => Error::invalid(m),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn run<F: FieldOperator>(op: F, v: Value) -> Result<Value> {
        op.process_value(v, &Instance::new())
    }

    // Expected values from Python 3.11 str methods, as Unitxt's operators call them.
    #[test]
    fn string_methods() {
        assert_eq!(run(Split { by: ", ".into() }, json!("a, b,c")).unwrap(), json!(["a", "b,c"]));
        assert_eq!(run(Join { by: "-".into() }, json!(["a", "b"])).unwrap(), json!("a-b"));
        assert!(run(Join { by: "-".into() }, json!(["a", 1])).is_err());
        assert_eq!(run(Strip {}, json!("\u{1c} x \n")).unwrap(), json!("x"));
        assert_eq!(run(Replace { old: "".into(), new: "-".into() }, json!("ab")).unwrap(), json!("-a-b-"));
        assert_eq!(run(Lower {}, json!("ÀB")).unwrap(), json!("àb"));
        assert!(run(Lower {}, json!(1)).is_err());
        assert_eq!(run(Capitalize {}, json!("hELLO wORLD")).unwrap(), json!("Hello world"));
        let m = json!({"<a>": "x", "x": "y"});
        let mr = MapReplace { mapping: m.as_object().unwrap().clone() };
        assert_eq!(run(mr, json!("<a>-x")).unwrap(), json!("y-y"));
    }

    #[test]
    fn format_text() {
        let inst = json!({"capability": "math", "task": "add", "d": {"k": "v"}, "l": ["p", "q"]});
        let inst = inst.as_object().unwrap();
        // Python: "{capability}-{task} {{x}} {d[k]} {l[1]}".format(**inst) == "math-add {x} v q"
        assert_eq!(python_format(&"{capability}-{task} {{x}} {d[k]} {l[1]}".into(), inst).unwrap(), "math-add {x} v q");
        assert!(python_format(&"{missing}".into(), inst).is_err());
        assert!(python_format(&"{capability".into(), inst).is_err());
        // Format specs, as in CPython: "{task:>5}|{capability!r:^8}".format(**inst) == "  add| 'math' "
        assert_eq!(python_format(&"{task:>5}|{capability!r:^8}".into(), inst).unwrap(), "  add| 'math' ");
    }
}
