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

/// A field operator whose work also changes, in place, the value it reads (Python mutating
/// the instance's own object, as `list.pop` does): [`InPlaceFieldOperator::process_in_place`]
/// gets the value and gives the result, and the changed value is written back to the field
/// it was read from before the result is stored. Adapted by [`InPlaceFieldOp`].
pub trait InPlaceFieldOperator: Send + Sync {
    /// The result for `value`, which may be changed in place.
    fn process_in_place(&self, value: &mut Value) -> Result<Value>;
}

/// Adapts an [`InPlaceFieldOperator`] with its [`super::FieldSpec`] to an
/// [`InstanceOperator`], as [`super::FieldOp`] adapts a [`FieldOperator`]
/// (`process_every_value` changes each item of a list in place).
pub struct InPlaceFieldOp<T> {
    spec: super::FieldSpec,
    op: T,
}

impl<T> InPlaceFieldOp<T> {
    /// The adapter; the field selection is checked when an instance is processed.
    pub fn new(spec: super::FieldSpec, op: T) -> Self {
        InPlaceFieldOp { spec, op }
    }
}

impl<T: InPlaceFieldOperator> InstanceOperator for InPlaceFieldOp<T> {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        for (from, to) in self.spec.pairs()? {
            let (mut old, found) = match crate::py::dict_path::dict_get_opt(&instance, &from)? {
                Some(v) => (v.into_owned(), true),
                None if self.spec.not_exist_do_nothing => continue,
                None if self.spec.not_exist_ok => (self.spec.get_default.clone().unwrap_or(Value::Null), false),
                None => {
                    return Err(Error::not_found(format!(
                        "field {from:?} is missing; fields are {:?}",
                        instance.keys().collect::<Vec<_>>()
                    )))
                }
            };
            let new = if self.spec.process_every_value {
                match &mut old {
                    Value::Array(items) => items.iter_mut().map(|x| self.op.process_in_place(x)).collect::<Result<Vec<_>>>().map(Value::Array),
                    other => py_iter(other).and_then(|mut v| v.iter_mut().map(|x| self.op.process_in_place(x)).collect::<Result<Vec<_>>>()).map(Value::Array),
                }
            } else {
                self.op.process_in_place(&mut old)
            }
            .map_err(|e| e.in_field(&from).context(format!("field {from:?}")))?;
            if found {
                dict_set(&mut instance, &from, old)?;
            }
            crate::py::dict_path::dict_set_with(&mut instance, &to, new, true, self.spec.set_every_value)?;
        }
        Ok(instance)
    }
}

/// `pop` (Unitxt's `Pop`): `value.pop(item)`: the list item at index `item` (negative counts
/// from the end) or the dict entry at key `item` is removed from the field and is the result.
/// Errors, as Python's `pop` does, on an index out of range, a missing key, an `item` that is
/// not an integer for a list (`null` included), and a value that is neither list nor dict.
#[derive(Debug, Deserialize)]
pub struct Pop {
    /// `item`: the index or key removed (default `null`).
    #[serde(default)]
    pub item: Value,
}

impl InPlaceFieldOperator for Pop {
    fn process_in_place(&self, value: &mut Value) -> Result<Value> {
        match value {
            Value::Array(a) => {
                let i = match &self.item {
                    Value::Number(n) if n.as_i64().is_some() => n.as_i64().unwrap_or_default(),
                    Value::Bool(b) => *b as i64,
                    other => {
                        return Err(Error::invalid(format!("'{}' object cannot be interpreted as an integer", type_name(other))))
                    }
                };
                let len = a.len() as i64;
                let at = if i < 0 { i + len } else { i };
                if a.is_empty() || at < 0 || at >= len {
                    return Err(Error::invalid(if a.is_empty() { "pop from empty list".to_string() } else { "pop index out of range".to_string() }));
                }
                Ok(a.remove(at as usize))
            }
            Value::Object(m) => {
                let key = self.item.as_str().ok_or_else(|| Error::not_found(format!("pop: no key {}", self.item)))?;
                m.shift_remove(key).ok_or_else(|| Error::not_found(format!("pop: no key {key:?}")))
            }
            other => Err(Error::invalid(format!("'{}' object has no attribute 'pop'", type_name(other)))),
        }
    }
}

/// `duplicate_by_list` and `explode` (Unitxt's `DuplicateByList`, `Explode`): each instance
/// becomes one instance per item of the collection at path `field` (list items, string
/// characters or dict keys, as Python iterates), the item stored at path `to_field` (absent:
/// `field`); an empty collection drops the instance. Errors when the field is missing or not
/// iterable. Every copy is independent (Unitxt's shallow copies share nested dicts, which only
/// shows when `to_field` is a nested path).
#[derive(Debug, Deserialize)]
pub struct DuplicateByList {
    /// `field`: the path of the collection.
    pub field: String,
    /// `to_field`: the path each item goes to (absent: `field`).
    #[serde(default)]
    pub to_field: Option<String>,
    /// `use_deep_copy`: accepted; every copy is a deep copy here (default false).
    #[serde(default)]
    pub use_deep_copy: bool,
}

impl super::StreamOperator for DuplicateByList {
    fn process_stream(self: std::sync::Arc<Self>, stream: crate::stream::Stream, _split: &str) -> Result<crate::stream::Stream> {
        let me = self.clone();
        Ok(Box::new(stream.flat_map(move |r| -> Box<dyn Iterator<Item = Result<Instance>> + Send> {
            let to = me.to_field.as_deref().unwrap_or(&me.field);
            let out = (|| -> Result<Vec<Instance>> {
                let inst = r?;
                let items = py_iter(&*dict_get(&inst, &me.field)?).with_ctx(|| format!("field {:?}", me.field))?;
                items
                    .into_iter()
                    .map(|item| {
                        let mut copy = inst.clone();
                        dict_set(&mut copy, to, item)?;
                        Ok(copy)
                    })
                    .collect()
            })();
            match out {
                Ok(v) => Box::new(v.into_iter().map(Ok)),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        })))
    }

    fn fields_read(&self) -> super::FieldsRead {
        super::FieldsRead::Any
    }
}

fn one_i64() -> i64 {
    1
}

/// `duplicate_by_sub_lists` (Unitxt's `DuplicateBySubLists`): each instance becomes one
/// instance per `i` in Python's `range(start, len(value) + 1 + end, step)`, where `value` is
/// the list (or string) at path `field`; copy `i` holds `value[:i]` at top-level key
/// `to_field` (absent: `field`). Without `use_deep_copy` the copy also gets `value` at the
/// top-level key named `field` (as Unitxt's `{**instance, field: value, to_field: ...}` does,
/// even for a path). Errors on a missing field, a value without a length or slices, and
/// `step` 0.
#[derive(Debug, Deserialize)]
pub struct DuplicateBySubLists {
    /// `field`: the path of the list.
    pub field: String,
    /// `to_field`: the top-level key of each prefix (absent: `field`).
    #[serde(default)]
    pub to_field: Option<String>,
    /// `use_deep_copy`: only the prefix is written (default false; see above).
    #[serde(default)]
    pub use_deep_copy: bool,
    /// `start`: the length of the first prefix (default 1).
    #[serde(default = "one_i64")]
    pub start: i64,
    /// `end`: added to `len(value) + 1` to give the (excluded) end of the range (default 0).
    #[serde(default)]
    pub end: i64,
    /// `step`: the stride of the range (default 1).
    #[serde(default = "one_i64")]
    pub step: i64,
}

impl DuplicateBySubLists {
    fn expand(&self, inst: Instance) -> Result<Vec<Instance>> {
        let to = self.to_field.as_deref().unwrap_or(&self.field);
        let elements = dict_get(&inst, &self.field)?.into_owned();
        let len = match &elements {
            Value::Array(a) => a.len(),
            Value::String(s) => s.chars().count(),
            Value::Object(m) => m.len(),
            other => return Err(Error::invalid(format!("object of type '{}' has no len()", type_name(other)))),
        } as i64;
        if self.step == 0 {
            return Err(Error::invalid("range() arg 3 must not be zero"));
        }
        let end = len + 1 + self.end;
        let mut out = Vec::new();
        let mut i = self.start;
        while (self.step > 0 && i < end) || (self.step < 0 && i > end) {
            let prefix = py_slice(&elements, None, Some(i), None)?;
            let mut copy = inst.clone();
            if !self.use_deep_copy {
                copy.insert(self.field.as_str().into(), elements.clone());
            }
            copy.insert(to.into(), prefix);
            out.push(copy);
            i += self.step;
        }
        Ok(out)
    }
}

impl super::StreamOperator for DuplicateBySubLists {
    fn process_stream(self: std::sync::Arc<Self>, stream: crate::stream::Stream, _split: &str) -> Result<crate::stream::Stream> {
        let me = self.clone();
        Ok(Box::new(stream.flat_map(move |r| -> Box<dyn Iterator<Item = Result<Instance>> + Send> {
            match r.and_then(|inst| me.expand(inst)) {
                Ok(v) => Box::new(v.into_iter().map(Ok)),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        })))
    }
}
