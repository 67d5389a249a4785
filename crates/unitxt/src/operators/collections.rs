//! Per-instance collection operators (Unitxt's `collections_operators.py`, and
//! `dict_of_lists_to_pairs` from `processors.py`). Tuples and sets are JSON lists.

use serde::Deserialize;

use super::fields::zip_values;
use crate::py::ops::{py_contains, py_getitem, py_iter, py_slice, type_name};
use super::{FieldOperator, InstanceOperator};
use crate::error::{Error, Result, ResultExt};
use crate::py::dict_path::{dict_get, dict_set};
use crate::value::{Instance, Value};

/// `dictify`: `dict(zip(with_keys, value))` (Unitxt's `Dictify`).
#[derive(Debug, Deserialize)]
pub struct Dictify {
    /// `with_keys`: the keys given to the value's items, in order.
    pub with_keys: Vec<String>,
}

impl FieldOperator for Dictify {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let items = py_iter(&value)?;
        let mut m = Instance::new();
        for (k, v) in self.with_keys.iter().zip(items) {
            m.insert(k.as_str().into(), v);
        }
        Ok(Value::Object(m))
    }
}

/// `zip`: `list(zip(*values))` of the lists at paths `fields`, stored at path `to_field`
/// (Unitxt's `Zip`).
#[derive(Debug, Deserialize)]
pub struct Zip {
    /// `fields`: the paths of the lists zipped, in order.
    pub fields: Vec<String>,
    /// `to_field`: the path that receives the zipped list.
    pub to_field: String,
}

impl InstanceOperator for Zip {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        zip_fields(instance, &self.fields, &self.to_field, None)
    }
}

/// `zip_longest`: like [`Zip`], padding shorter lists with `fill_value` (Unitxt's
/// `ZipLongest`).
#[derive(Debug, Deserialize)]
pub struct ZipLongest {
    /// `fields`: the paths of the lists zipped, in order.
    pub fields: Vec<String>,
    /// `to_field`: the path that receives the zipped list.
    pub to_field: String,
    /// `fill_value`: pads the shorter lists (default `null`).
    #[serde(default)]
    pub fill_value: Value,
}

impl InstanceOperator for ZipLongest {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        zip_fields(instance, &self.fields, &self.to_field, Some(&self.fill_value))
    }
}

fn zip_fields(mut instance: Instance, fields: &[String], to: &str, fill: Option<&Value>) -> Result<Instance> {
    let lists =
        fields.iter().map(|f| py_iter(&*dict_get(&instance, f)?).ctx(format!("field {f:?}"))).collect::<Result<Vec<_>>>()?;
    dict_set(&mut instance, to, zip_values(&lists, fill))?;
    Ok(instance)
}

/// `dict_to_tuples_list`: `list(value.items())` as `[key, value]` pairs (Unitxt's
/// `DictToTuplesList`).
#[derive(Debug, Deserialize)]
pub struct DictToTuplesList {}

impl FieldOperator for DictToTuplesList {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match value {
            Value::Object(m) => Ok(Value::Array(m.into_iter().map(|(k, v)| Value::Array(vec![Value::String(k.into()), v])).collect())),
            other => Err(Error::invalid(format!("'{}' object has no attribute 'items'", type_name(&other)))),
        }
    }
}

/// `flatten`: flattens nested lists into one list (Unitxt's `Flatten`).
#[derive(Debug, Deserialize)]
pub struct Flatten {}

fn flatten_into(v: Vec<Value>, out: &mut Vec<Value>) {
    for x in v {
        match x {
            Value::Array(a) => flatten_into(a, out),
            other => out.push(other),
        }
    }
}

impl FieldOperator for Flatten {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match value {
            Value::Array(a) => {
                let mut out = Vec::new();
                flatten_into(a, &mut out);
                Ok(Value::Array(out))
            }
            other => Err(Error::invalid(format!("flatten needs a list, got {}", type_name(&other)))),
        }
    }
}

/// The container `wrap` puts a value in.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inside {
    /// `list`: a one-item list.
    List,
    /// `tuple`: a one-item tuple (a list in JSON).
    Tuple,
    /// `set`: a one-item set (a list in JSON).
    Set,
}

/// `wrap`: puts the value in a one-item list, tuple or set (`inside`), all represented as a
/// list (Unitxt's `Wrap`). Other `inside` values are rejected when building.
#[derive(Debug, Deserialize)]
pub struct Wrap {
    /// `inside`: the container: `list`, `tuple` or `set`.
    pub inside: Inside,
}

impl FieldOperator for Wrap {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let _ = self.inside;
        Ok(Value::Array(vec![value]))
    }
}

/// `chunk`: splits a list or string into pieces of `size` (Unitxt's `Chunk`).
#[derive(Debug, Deserialize)]
pub struct Chunk {
    /// `size`: the length of every piece but possibly the last.
    pub size: i64,
}

impl FieldOperator for Chunk {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        if self.size <= 0 {
            return Err(Error::invalid("chunk: size must be positive"));
        }
        let len = match &value {
            Value::Array(a) => a.len(),
            Value::String(s) => s.chars().count(),
            other => return Err(Error::invalid(format!("'{}' object is not subscriptable", type_name(other)))),
        } as i64;
        let mut out = Vec::new();
        let mut i = 0;
        while i < len {
            out.push(py_slice(&value, Some(i), Some(i + self.size), None)?);
            i += self.size;
        }
        Ok(Value::Array(out))
    }
}

/// `slice`: `value[start:stop:step]` (Unitxt's `Slice`).
#[derive(Debug, Deserialize)]
pub struct Slice {
    /// `start`: the first index kept (absent: from the start; negative counts from the end).
    #[serde(default)]
    pub start: Option<i64>,
    /// `stop`: the index where the slice stops, excluded (absent: to the end).
    #[serde(default)]
    pub stop: Option<i64>,
    /// `step`: the stride (absent: 1).
    #[serde(default)]
    pub step: Option<i64>,
}

impl FieldOperator for Slice {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        py_slice(&value, self.start, self.stop, self.step)
    }
}

/// `get`: `value[item]` (Unitxt's `Get`).
#[derive(Debug, Deserialize)]
pub struct Get {
    /// `item`: the index or key read.
    pub item: Value,
}

impl FieldOperator for Get {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        py_getitem(&value, &self.item)
    }
}

/// `get_length`: `len(value)` (Unitxt's `GetLength`).
#[derive(Debug, Deserialize)]
pub struct GetLength {}

impl FieldOperator for GetLength {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let n = match &value {
            Value::Array(a) => a.len(),
            Value::String(s) => s.chars().count(),
            Value::Object(m) => m.len(),
            other => return Err(Error::invalid(format!("object of type '{}' has no len()", type_name(other)))),
        };
        Ok(Value::from(n))
    }
}

/// `filter`: drops list items (or dict keys) that are in `values` (Unitxt's `Filter` from
/// `collections_operators`).
#[derive(Debug, Deserialize)]
pub struct Filter {
    /// `values`: the items (or keys) dropped.
    pub values: Vec<Value>,
}

impl FieldOperator for Filter {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let values = Value::Array(self.values.clone());
        match value {
            Value::Array(a) => {
                let mut out = Vec::new();
                for x in a {
                    if !py_contains(&values, &x)? {
                        out.push(x);
                    }
                }
                Ok(Value::Array(out))
            }
            Value::Object(m) => {
                let mut out = Instance::new();
                for (k, v) in m {
                    if !py_contains(&values, &Value::String(k.clone()))? {
                        out.insert(k, v);
                    }
                }
                Ok(Value::Object(out))
            }
            other => Err(Error::invalid(format!("Unsupported collection type: {}", type_name(&other)))),
        }
    }
}

fn default_true() -> bool {
    true
}

/// `dict_of_lists_to_pairs`: `{k: [v1, v2]}` becomes `[[k, v1], [k, v2]]` (or `[v, k]` when
/// `position_key_before_value` is false); any other shape, or a non-string item, gives `[]`
/// (Unitxt's `DictOfListsToPairs`).
#[derive(Debug, Deserialize)]
pub struct DictOfListsToPairs {
    /// `position_key_before_value`: write each pair as `[key, value]` (default true) or `[value,
    /// key]`.
    #[serde(default = "default_true")]
    pub position_key_before_value: bool,
}

impl FieldOperator for DictOfListsToPairs {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Value::Object(m) = value else { return Ok(Value::Array(vec![])) };
        let mut out = Vec::new();
        for (k, vs) in m {
            let Ok(items) = py_iter(&vs) else { return Ok(Value::Array(vec![])) };
            for v in items {
                if !v.is_string() {
                    return Ok(Value::Array(vec![]));
                }
                let key = Value::String(k.clone());
                out.push(Value::Array(if self.position_key_before_value { vec![key, v] } else { vec![v, key] }));
            }
        }
        Ok(Value::Array(out))
    }
}
