//! Operators that add, move, remove, cast and map the fields of an instance (the field
//! operators of Unitxt's `operators.py`).

use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer};

use crate::py::ops::{self, py_add, py_cast, py_eq, py_getitem, py_iter, py_str, py_strip, CastError};
use super::{FieldOp, FieldOperator, FieldSpec, FieldsRead, InstanceOperator};
use crate::error::{Error, Result, ResultExt};
use crate::py::dict_path::{dict_delete, dict_delete_with, dict_get, dict_set, is_subpath, plain_key};
use crate::value::{FieldName, Instance, Value};

/// `set`: writes each `fields` entry (a `a/b` path to a value) into the instance, creating
/// missing intermediate dicts (Unitxt's `Set`; `use_deepcopy` needs no work here since values
/// are never shared). Errors when a path runs through a non-container value.
#[derive(Debug, Deserialize)]
pub struct Set {
    /// `fields`: path (`a/b`) to the value written there, in order.
    pub fields: Instance,
    /// `use_deepcopy`: accepted for Unitxt's sake; changes nothing (default false).
    #[serde(default)]
    pub use_deepcopy: bool,
    /// Per entry of `fields`, its name when its path is one plain key (see [`plain_key`]);
    /// worked out on first use.
    #[serde(skip)]
    plain: std::sync::OnceLock<Vec<Option<FieldName>>>,
}

impl Set {
    /// The fields a `set` (or `add_fields`) artifact built from `raw` writes, when every path
    /// is one plain key; `None` for any other artifact. A recipe's per-split plan hands such
    /// constants to the task instead of writing them into every instance (see
    /// [`crate::task::Task::fix`]).
    pub fn plain_fields(raw: &Value) -> Option<Instance> {
        let t = raw.get("__type__")?.as_str()?;
        if t != "set" && t != "add_fields" {
            return None;
        }
        let fields = raw.get("fields")?.as_object()?;
        fields.keys().all(|k| plain_key(k)).then(|| fields.clone())
    }
}

/// For each key, its [`FieldName`] when it is a plain key (see [`plain_key`]).
fn plain_names<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<Option<FieldName>> {
    keys.map(|k| plain_key(k).then(|| FieldName::new(k))).collect()
}

impl InstanceOperator for Set {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let plain = self.plain.get_or_init(|| plain_names(self.fields.keys().map(|k| k.as_str())));
        for ((path, value), plain) in self.fields.iter().zip(plain) {
            if let Some(name) = plain {
                // `dict_set` on a plain key replaces the value in place or appends it: what
                // `insert` does, with one lookup.
                instance.insert_name(name, value.clone());
            } else {
                dict_set(&mut instance, path, value.clone()).with_ctx(|| format!("setting field {path:?}"))?;
            }
        }
        Ok(instance)
    }

    /// A plain key is only written; a path `a/b` writes into `a`, which must be read.
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths(self.fields.keys().map(|k| k.as_str()).filter(|k| !plain_key(k)))
    }
}

/// `remove_fields`: deletes the top-level `fields` (Unitxt's `RemoveFields`). Errors when one
/// is missing.
#[derive(Debug, Deserialize)]
pub struct RemoveFields {
    /// `fields`: the top-level fields deleted.
    pub fields: Vec<String>,
}

impl InstanceOperator for RemoveFields {
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::Only(self.fields.clone())
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        for f in &self.fields {
            if instance.shift_remove(f).is_none() {
                return Err(missing_top(&instance, f));
            }
        }
        Ok(instance)
    }
}

/// `recursive_replace` (Unitxt's `RecursiveReplace`): everywhere in the instance (dicts and
/// lists, at any depth), the value of every key named `key` is rewritten: a string found in
/// `map_values` becomes its mapping; a value equal (Python `==`) to one of `remove_values`
/// removes the key; a list keeps its items that are not dicts and not in `remove_values`,
/// each mapped; a dict is searched further. Errors on a list item that is itself a list
/// (Python cannot look it up in the mapping).
#[derive(Debug, Deserialize)]
pub struct RecursiveReplace {
    /// `key`: the key whose values are rewritten.
    pub key: String,
    /// `map_values`: old value (a string) to new value.
    pub map_values: Instance,
    /// `remove_values`: values whose key is removed (default none).
    #[serde(default)]
    pub remove_values: Option<Vec<Value>>,
}

impl RecursiveReplace {
    fn removed(&self, v: &Value) -> bool {
        self.remove_values.iter().flatten().any(|r| crate::py::str_format::py_eq(r, v))
    }

    fn mapped(&self, v: &Value) -> Option<&Value> {
        v.as_str().and_then(|s| self.map_values.get(s))
    }

    fn walk(&self, v: &mut Value) -> Result<()> {
        match v {
            Value::Object(m) => self.walk_map(m),
            Value::Array(items) => items.iter_mut().try_for_each(|item| self.walk(item)),
            _ => Ok(()),
        }
    }

    fn walk_map(&self, m: &mut Instance) -> Result<()> {
        let mut gone = Vec::new();
        for (k, val) in m.iter_mut() {
            if k.as_str() != self.key {
                self.walk(val)?;
                continue;
            }
            match val {
                Value::Array(items) => {
                    let mut kept = Vec::with_capacity(items.len());
                    for item in items.drain(..) {
                        if item.is_object() || self.removed(&item) {
                            continue;
                        }
                        if item.is_array() {
                            return Err(Error::invalid(format!(
                                "recursive_replace: a list under {:?} holds a list, which cannot be looked up in map_values",
                                self.key
                            )));
                        }
                        kept.push(self.mapped(&item).cloned().unwrap_or(item));
                    }
                    *items = kept;
                }
                Value::Object(inner) => self.walk_map(inner)?,
                other if self.removed(other) => gone.push(k.clone()),
                other => {
                    if let Some(new) = self.mapped(other) {
                        *other = new.clone();
                    }
                }
            }
        }
        for k in gone {
            m.shift_remove(&k);
        }
        Ok(())
    }
}

impl InstanceOperator for RecursiveReplace {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        self.walk_map(&mut instance)?;
        Ok(instance)
    }
}

fn missing_top(instance: &Instance, f: &str) -> Error {
    Error::not_found(format!("field {f:?} is missing; fields are {:?}", instance.keys().collect::<Vec<_>>()))
}

/// `select_fields`: keeps only the top-level `fields` plus `data_classification_policy` and
/// `recipe_metadata`, in that order (Unitxt's `SelectFields`). Errors when one is missing.
#[derive(Debug, Deserialize)]
pub struct SelectFields {
    /// `fields`: the top-level fields kept, in this order.
    pub fields: Vec<String>,
}

impl InstanceOperator for SelectFields {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        let mut out = Instance::new();
        let keys: Vec<crate::value::Key> = instance.keys().cloned().collect();
        let extra = ["data_classification_policy", "recipe_metadata"];
        for f in self.fields.iter().map(String::as_str).chain(extra) {
            let v = instance.get(f).ok_or_else(|| {
                Error::not_found(format!("field {f:?} is missing; fields are {keys:?}"))
            })?;
            out.insert(f.into(), v.clone());
        }
        Ok(out)
    }
}

/// `list_field_values`: stores the list of the values of `fields` (paths) at `to_field`
/// (Unitxt's `ListFieldValues`). Errors when a field is missing.
#[derive(Debug, Deserialize)]
pub struct ListFieldValues {
    /// `fields`: the field paths whose values are listed, in order.
    pub fields: Vec<String>,
    /// `to_field`: the path that receives the list.
    pub to_field: String,
}

impl InstanceOperator for ListFieldValues {
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths(self.fields.iter().chain([&self.to_field]).map(|f| f.as_str()))
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let values = self.fields.iter().map(|f| dict_get(&instance, f).map(|v| v.into_owned())).collect::<Result<Vec<_>>>()?;
        dict_set(&mut instance, &self.to_field, Value::Array(values))?;
        Ok(instance)
    }
}

/// `zip_field_values`: zips the lists in `fields` into a list of tuples (lists) at `to_field`,
/// to the shortest input, or to the longest padded with `None` when `longest` (Unitxt's
/// `ZipFieldValues`).
#[derive(Debug, Deserialize)]
pub struct ZipFieldValues {
    /// `fields`: the field paths holding the lists zipped, in order.
    pub fields: Vec<String>,
    /// `to_field`: the path that receives the zipped list.
    pub to_field: String,
    /// `longest`: zip to the longest list, padding with `null` (default false: to the shortest).
    #[serde(default)]
    pub longest: bool,
}

/// Zips `lists` like Python's `zip` (or `zip_longest` with `fill`).
pub fn zip_values(lists: &[Vec<Value>], longest: Option<&Value>) -> Value {
    let n = if longest.is_some() {
        lists.iter().map(Vec::len).max().unwrap_or(0)
    } else {
        lists.iter().map(Vec::len).min().unwrap_or(0)
    };
    let fill = longest.cloned().unwrap_or(Value::Null);
    Value::Array(
        (0..n)
            .map(|i| Value::Array(lists.iter().map(|l| l.get(i).cloned().unwrap_or_else(|| fill.clone())).collect()))
            .collect(),
    )
}

impl InstanceOperator for ZipFieldValues {
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths(self.fields.iter().chain([&self.to_field]).map(|f| f.as_str()))
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let lists =
            self.fields.iter().map(|f| py_iter(&*dict_get(&instance, f)?).ctx(format!("field {f:?}"))).collect::<Result<Vec<_>>>()?;
        let z = zip_values(&lists, self.longest.then_some(&Value::Null));
        dict_set(&mut instance, &self.to_field, z)?;
        Ok(instance)
    }
}

fn default_true() -> bool {
    true
}

/// `map_instance_values`: for each field path in `mappers`, replaces its value `v` by
/// `mapper[str(v)]` (Unitxt's `MapInstanceValues`). `None` values are left alone; values
/// missing from the mapper are an error when `strict` (the default) and kept otherwise. With
/// `process_every_value` the field must be a list and each item is mapped. Errors when a
/// field is missing.
#[derive(Debug, Deserialize)]
pub struct MapInstanceValues {
    /// `mappers`: field path to its mapper, a dict from `str(value)` to the new value.
    pub mappers: IndexMap<String, crate::value::Map>,
    /// `strict`: a value missing from its mapper is an error (default true); otherwise it is kept.
    #[serde(default = "default_true")]
    pub strict: bool,
    /// `process_every_value`: map each item of a list field instead of the field's value (default
    /// false).
    #[serde(default)]
    pub process_every_value: bool,
    /// Per entry of `mappers`, its name when its path is one plain key (see [`plain_key`]);
    /// worked out on first use.
    #[serde(skip)]
    plain: std::sync::OnceLock<Vec<Option<FieldName>>>,
}


impl MapInstanceValues {
    fn not_in_mapper(&self, key: &str, field: &str, mapper: &crate::value::Map) -> Error {
        Error::invalid(format!(
            "value {key:?} (the string form of the value of field {field:?}) is not in the mapper {}",
            Value::Object(mapper.clone())
        ))
    }

    fn map_one(&self, field: &str, mapper: &crate::value::Map, v: Value) -> Result<Value> {
        let key = py_str(&v);
        match mapper.get(&key) {
            Some(m) => Ok(m.clone()),
            None if self.strict => Err(self.not_in_mapper(&key, field, mapper)),
            None => Ok(v),
        }
    }
}

impl InstanceOperator for MapInstanceValues {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let plain = self.plain.get_or_init(|| plain_names(self.mappers.keys().map(|k| k.as_str())));
        for ((field, mapper), plain) in self.mappers.iter().zip(plain) {
            // A top-level field that is there, mapped as a whole: replaced in place, its key
            // text made without allocating for strings and integers.
            if let (false, Some(name)) = (self.process_every_value, plain) {
                if let Some(slot) = instance.get_name_mut(name) {
                    if slot.is_null() {
                        continue;
                    }
                    let mut digits = itoa::Buffer::new();
                    let key: std::borrow::Cow<'_, str> = match &*slot {
                        Value::String(s) => s.as_str().into(),
                        Value::Number(n) => match n.as_i64() {
                            Some(i) => digits.format(i).into(),
                            None => py_str(slot).into(),
                        },
                        other => py_str(other).into(),
                    };
                    match mapper.get(&key) {
                        Some(m) => *slot = m.clone(),
                        None if self.strict => return Err(self.not_in_mapper(&key, field, mapper)),
                        None => {}
                    }
                    continue;
                }
            }
            let value = dict_get(&instance, field)?.into_owned();
            if value.is_null() {
                continue;
            }
            let new = if self.process_every_value {
                match value {
                    Value::Array(items) => Value::Array(
                        items.into_iter().map(|v| self.map_one(field, mapper, v)).collect::<Result<_>>()?,
                    ),
                    other => {
                        return Err(Error::invalid(format!(
                            "process_every_value needs a list, but field {field:?} is {}",
                            crate::artifact::short(&other)
                        )))
                    }
                }
            } else {
                self.map_one(field, mapper, value)?
            };
            dict_set(&mut instance, field, new)?;
        }
        Ok(instance)
    }

    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths(self.mappers.keys().map(|k| k.as_str()))
    }
}

/// `map_values`: replaces a value `v` by `mapping[str(v)]` (Unitxt's `MapValues`). Errors when
/// the value is not in the mapping.
#[derive(Debug, Deserialize)]
pub struct MapValues {
    /// `mapping`: `str(value)` to the new value.
    pub mapping: crate::value::Map,
}

impl FieldOperator for MapValues {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let key = py_str(&value);
        self.mapping.get(&key).cloned().ok_or_else(|| Error::not_found(format!("value {key:?} is not in the mapping")))
    }
}

/// The identity field operator: `copy`, `recursive_copy` (Unitxt's `Copy`, `RecursiveCopy`),
/// and the first half of `rename`.
#[derive(Debug, Default, Deserialize)]
pub struct Copy {}

impl FieldOperator for Copy {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(value)
    }
}

/// `rename`: moves each field to its new path, then deletes the old path (and the containers
/// it leaves empty) unless one path is a prefix of the other (Unitxt's `Rename`; also
/// `rename_fields`). Takes the usual field selection (`field`/`to_field` or `field_to_field`).
pub struct Rename {
    inner: FieldOp<Copy>,
    /// When every pair renames a plain top-level key to another (no path, no
    /// `process_every_value`), the pairs' names, for the move fast path; decided once.
    plain: Option<Vec<(FieldName, FieldName)>>,
}

impl<'de> Deserialize<'de> for Rename {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let spec = FieldSpec::deserialize(d)?;
        let inner = FieldOp::new(spec, Arc::new(Copy {})).map_err(serde::de::Error::custom)?;
        let plain = !inner.spec.process_every_value
            && inner.pairs().is_ok_and(|pairs| pairs.iter().all(|(f, t)| plain_key(f) && plain_key(t) && f != t));
        let plain = plain.then(|| inner.pairs().unwrap_or_default().iter().map(|(f, t)| (FieldName::new(f), FieldName::new(t))).collect());
        Ok(Rename { inner, plain })
    }
}

impl InstanceOperator for Rename {
    fn process_instance(&self, mut instance: Instance, split: &str) -> Result<Instance> {
        // Plain top-level renames of fields that are there: move the value instead of copying
        // it and deleting the old path (same result: the new key lands where the copy would
        // have put it, and removing the old key keeps the order of the others).
        if let Some(pairs) = &self.plain {
            if pairs.iter().all(|(f, _)| instance.contains_name(f)) {
                for (from, to) in pairs {
                    if let Some(v) = instance.shift_remove_name(from) {
                        instance.insert_name(to, v);
                    }
                }
                return Ok(instance);
            }
        }
        let mut out = self.inner.process_instance(instance, split)?;
        for (from, to) in self.inner.pairs()? {
            if !is_subpath(from, to)? && !is_subpath(to, from)? {
                dict_delete_with(&mut out, from, false, true)?;
            }
        }
        Ok(out)
    }

    fn fields_read(&self) -> FieldsRead {
        self.inner.fields_read()
    }
}

/// `move`: moves the value at path `field` to path `to_field` (Unitxt's `Move`).
#[derive(Debug, Deserialize)]
pub struct Move {
    /// `field`: the path moved from.
    pub field: String,
    /// `to_field`: the path moved to.
    pub to_field: String,
}

impl InstanceOperator for Move {
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths([self.field.as_str(), self.to_field.as_str()])
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let v = dict_get(&instance, &self.field)?.into_owned();
        dict_delete(&mut instance, &self.field)?;
        dict_set(&mut instance, &self.to_field, v)?;
        Ok(instance)
    }
}

/// `index_of`: stores at top-level `to_field` the position of the value of `index_of` in the
/// list (or string) at `search_in` (Unitxt's `IndexOf`). Errors when it is not there.
#[derive(Debug, Deserialize)]
pub struct IndexOf {
    /// `search_in`: the path of the list (or string) searched.
    pub search_in: String,
    /// `index_of`: the path of the value looked for.
    pub index_of: String,
    /// `to_field`: the top-level field that receives the position (0-based).
    pub to_field: String,
}

impl InstanceOperator for IndexOf {
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths([self.search_in.as_str(), self.index_of.as_str(), self.to_field.as_str()])
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let lst = &*dict_get(&instance, &self.search_in)?;
        let item = &*dict_get(&instance, &self.index_of)?;
        let pos = match (lst, item) {
            (Value::Array(a), _) => a.iter().position(|e| py_eq(e, item)),
            (Value::String(s), Value::String(sub)) => s.find(sub.as_str()).map(|b| s[..b].chars().count()),
            _ => {
                return Err(Error::invalid(format!(
                    "cannot search for {} in field {:?} of type {}",
                    crate::artifact::short(item),
                    self.search_in,
                    ops::type_name(lst)
                )))
            }
        };
        let pos = pos.ok_or_else(|| {
            Error::invalid(format!(
                "{} (field {:?}) is not in {} (field {:?})",
                crate::artifact::short(item),
                self.index_of,
                crate::artifact::short(lst),
                self.search_in
            ))
        })?;
        instance.insert(self.to_field.as_str().into(), Value::from(pos));
        Ok(instance)
    }
}

/// `take_by_field`: stores `value[index]` at top-level `to_field` (default `field`), where
/// `value` and `index` are read from the paths `field` and `index` (Unitxt's `TakeByField`).
#[derive(Debug, Deserialize)]
pub struct TakeByField {
    /// `field`: the path of the container indexed.
    pub field: String,
    /// `index`: the path of the index (or key).
    pub index: String,
    /// `to_field`: the top-level field that receives the item (absent: `field`).
    #[serde(default)]
    pub to_field: Option<String>,
}

impl InstanceOperator for TakeByField {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let v = py_getitem(&*dict_get(&instance, &self.field)?, &*dict_get(&instance, &self.index)?)?;
        instance.insert(self.to_field.as_deref().unwrap_or(&self.field).into(), v);
        Ok(instance)
    }
}

/// `get_item_by_index`: the value is an index into the fixed `items_list` (Unitxt's
/// `GetItemByIndex`).
#[derive(Debug, Deserialize)]
pub struct GetItemByIndex {
    /// `items_list`: the items the value indexes into (0-based).
    pub items_list: Vec<Value>,
}

impl FieldOperator for GetItemByIndex {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        py_getitem(&Value::Array(self.items_list.clone()), &value)
    }
}

fn undefined() -> Value {
    Value::String("__UNDEFINED__".into())
}

/// `cast`: converts the value with Python's `int`, `float`, `str`, `bool` or `tuple` named by
/// `to` (Unitxt's `Cast`). When the text cannot be parsed, `failure_default` is used if given;
/// other failures (e.g. `int(None)`) are errors.
#[derive(Debug, Deserialize)]
pub struct Cast {
    /// `to`: the Python type's name: `int`, `float`, `str`, `bool` or `tuple`.
    pub to: String,
    /// `failure_default`: the result when the text cannot be parsed (absent: that is an error).
    #[serde(default = "undefined")]
    pub failure_default: Value,
}

impl FieldOperator for Cast {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match py_cast(&self.to, &value, true) {
            Ok(v) => Ok(v),
            Err(CastError::Value(_)) if self.failure_default != undefined() => Ok(self.failure_default.clone()),
            Err(CastError::Value(m)) => Err(Error::invalid(format!(
                "failed to cast value {} to type {:?}, and no default value is provided: {m}",
                crate::artifact::short(&value),
                self.to
            ))),
            Err(e) => Err(e.into()),
        }
    }
}

/// `cast_fields`: casts each field path in `fields` to the Python type named (`int`, `float`,
/// `str`, `bool`); any failure uses the field's entry in `failure_defaults`, or is an error
/// when it has none. With `process_every_value` each item of the (list) field is cast
/// (Unitxt's `CastFields`).
#[derive(Debug, Deserialize)]
pub struct CastFields {
    /// `fields`: field path to the Python type's name it is cast to, in order.
    #[serde(default)]
    pub fields: IndexMap<String, String>,
    /// `failure_defaults`: field path to the value used when its cast fails (absent: an error).
    #[serde(default)]
    pub failure_defaults: crate::value::Map,
    /// `process_every_value`: cast each item of a list field instead of the field's value (default
    /// false).
    #[serde(default)]
    pub process_every_value: bool,
}

impl CastFields {
    fn cast_one(&self, v: &Value, to: &str, field: &str) -> Result<Value> {
        py_cast(to, v, false).or_else(|e| match self.failure_defaults.get(field) {
            Some(d) => Ok(d.clone()),
            None => {
                let m = match e {
                    CastError::Value(m) | CastError::Other(m) => m,
                };
                Err(Error::invalid(format!(
                    "failed to cast field {field:?} with value {} to type {to:?}, and no default value is provided: {m}",
                    crate::artifact::short(v)
                )))
            }
        })
    }
}

impl InstanceOperator for CastFields {
    fn fields_read(&self) -> FieldsRead {
        FieldsRead::of_paths(self.fields.keys().map(|f| f.as_str()))
    }

    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        for (field, to) in &self.fields {
            let value = &*dict_get(&instance, field)?;
            let new = if self.process_every_value {
                match value {
                    Value::Array(a) => Value::Array(a.iter().map(|v| self.cast_one(v, to, field)).collect::<Result<_>>()?),
                    other => {
                        return Err(Error::invalid(format!(
                            "process_every_value needs a list, but field {field:?} is {}",
                            crate::artifact::short(other)
                        )))
                    }
                }
            } else {
                self.cast_one(value, to, field)?
            };
            dict_set(&mut instance, field, new)?;
        }
        Ok(instance)
    }
}

/// `add_constant`: Python's `add + value` (numbers add, strings and lists concatenate; the
/// constant comes first) (Unitxt's `AddConstant`).
#[derive(Debug, Deserialize)]
pub struct AddConstant {
    /// `add`: the constant, put before the value (`add + value`).
    pub add: Value,
}

impl FieldOperator for AddConstant {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        py_add(&self.add, &value)
    }
}

fn comma() -> String {
    ",".into()
}

/// `join_str`: joins the `str()` of each item with `separator` (default `,`) (Unitxt's
/// `JoinStr`).
#[derive(Debug, Deserialize)]
pub struct JoinStr {
    /// `separator`: put between the items' texts (default `,`).
    #[serde(default = "comma")]
    pub separator: String,
}

impl FieldOperator for JoinStr {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let parts: Vec<String> = py_iter(&value)?.iter().map(py_str).collect();
        Ok(Value::String(parts.join(&self.separator).into()))
    }
}

/// `remove_values`: drops from the list every item equal to one of `unallowed_values`
/// (Unitxt's `RemoveValues`). Errors when the value is not a list.
#[derive(Debug, Deserialize)]
pub struct RemoveValues {
    /// `unallowed_values`: items equal to one of these are dropped.
    pub unallowed_values: Vec<Value>,
}

impl FieldOperator for RemoveValues {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match value {
            Value::Array(a) => {
                Ok(Value::Array(a.into_iter().filter(|e| !self.unallowed_values.iter().any(|u| py_eq(e, u))).collect()))
            }
            other => Err(Error::invalid(format!("the value is not a list but {}", crate::artifact::short(&other)))),
        }
    }
}

/// `fillna`: replaces a NaN float by `value` (Unitxt's `Fillna`). JSON values cannot hold
/// NaN, so every value passes through unchanged.
#[derive(Debug, Deserialize)]
pub struct Fillna {
    /// `value`: what a NaN would become (default `null`); never used, as JSON holds no NaN.
    #[serde(default)]
    pub value: Value,
}

impl FieldOperator for Fillna {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let _ = &self.value;
        Ok(value)
    }
}

fn user() -> String {
    "user".into()
}
fn assistant() -> String {
    "assistant".into()
}

/// `interleave_lists_to_dialog_operator`: alternates the user turns and assistant turns (top
/// level fields) into `[role, text]` pairs stored at top-level `to_field` (Unitxt's
/// `InterleaveListsToDialogOperator`). Errors unless there are as many user turns as
/// assistant turns, or one more.
#[derive(Debug, Deserialize)]
pub struct InterleaveListsToDialogOperator {
    /// `user_turns_field`: the top-level field with the list of user turns.
    pub user_turns_field: String,
    /// `assistant_turns_field`: the top-level field with the list of assistant turns.
    pub assistant_turns_field: String,
    /// `user_role_label`: the role written for user turns (default `user`).
    #[serde(default = "user")]
    pub user_role_label: String,
    /// `assistant_role_label`: the role written for assistant turns (default `assistant`).
    #[serde(default = "assistant")]
    pub assistant_role_label: String,
    /// `to_field`: the top-level field that receives the dialog.
    pub to_field: String,
}

impl InstanceOperator for InterleaveListsToDialogOperator {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let u = py_iter(crate::py::dict_path::get_top(&instance, &self.user_turns_field)?)?;
        let a = py_iter(crate::py::dict_path::get_top(&instance, &self.assistant_turns_field)?)?;
        if !(u.len() == a.len() || u.len() == a.len() + 1) {
            return Err(Error::invalid(
                "user_turns must have either the same length as assistant_turns or one more turn",
            ));
        }
        let mut out = Vec::new();
        for i in 0..u.len().max(a.len()) {
            if let Some(t) = u.get(i) {
                out.push(Value::Array(vec![Value::String(self.user_role_label.as_str().into()), t.clone()]));
            }
            if let Some(t) = a.get(i) {
                out.push(Value::Array(vec![Value::String(self.assistant_role_label.as_str().into()), t.clone()]));
            }
        }
        instance.insert(self.to_field.as_str().into(), Value::Array(out));
        Ok(instance)
    }
}

/// `add_id` (Unitxt's `AddID`): stores a unique id, 32 lowercase hex digits, in
/// `id_field_name` (default `id`). Unitxt draws a random UUID4; ids here come from a
/// process-wide counter, so they are unique and reproducible. Only their uniqueness is used
/// (`metrics.squad` pairs each prediction with its reference by id).
#[derive(Debug, Deserialize)]
pub struct AddId {
    /// `id_field_name`: the top-level field that receives the id (default `id`).
    #[serde(default = "default_id_field")]
    pub id_field_name: String,
}

fn default_id_field() -> String {
    "id".into()
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl InstanceOperator for AddId {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let n = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        instance.insert(self.id_field_name.as_str().into(), Value::String(compact_str::format_compact!("{n:032x}")));
        Ok(instance)
    }

    fn needs_stream_order(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn rename(spec: Value, input: Value) -> Vec<(String, Value)> {
        let op: Rename = crate::value::from_value(spec).unwrap();
        let out = op.process_instance(input.as_object().unwrap().clone(), "train").unwrap();
        out.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn map_instance_values_by_the_str_of_the_value() {
        let op: MapInstanceValues = crate::value::from_value(json!({
            "mappers": {"l": {"0": "neg", "-12": "minus", "True": "yes", "1.5": "x", "a": "b"}, "m/n": {"1": "one"}},
            "strict": false
        }))
        .unwrap();
        let run = |i: Value| Value::Object(op.process_instance(i.as_object().unwrap().clone(), "train").unwrap());
        assert_eq!(run(json!({"l": 0, "m": {"n": 1}})), json!({"l": "neg", "m": {"n": "one"}}));
        assert_eq!(run(json!({"l": -12, "m": {"n": 2}})), json!({"l": "minus", "m": {"n": 2}}));
        assert_eq!(run(json!({"l": true, "m": {"n": 1}})), json!({"l": "yes", "m": {"n": "one"}}));
        assert_eq!(run(json!({"l": 1.5, "m": {"n": 1}})), json!({"l": "x", "m": {"n": "one"}}));
        assert_eq!(run(json!({"l": "a", "m": {"n": null}})), json!({"l": "b", "m": {"n": null}}));
        assert_eq!(run(json!({"l": "zz", "m": {"n": 1}})), json!({"l": "zz", "m": {"n": "one"}}));
        let strict: MapInstanceValues = crate::value::from_value(json!({"mappers": {"l": {"0": "neg"}}})).unwrap();
        let e = strict.process_instance(json!({"l": 7}).as_object().unwrap().clone(), "t").unwrap_err();
        assert!(e.message.contains("value \"7\""), "{e}");
        assert!(strict.process_instance(json!({"k": 0}).as_object().unwrap().clone(), "t").is_err());
    }

    #[test]
    fn rename_keeps_python_key_order() {
        // Python: the value is copied to the new key (appended, or in place when the key
        // exists), then the old key is deleted.
        let order = |v: Vec<(String, Value)>| v.into_iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
        assert_eq!(order(rename(json!({"field": "q", "to_field": "question"}), json!({"a": 1, "q": "x", "z": 0}))), "a=1,z=0,question=\"x\"");
        assert_eq!(order(rename(json!({"field": "a", "to_field": "c"}), json!({"a": 1, "b": 2, "c": 3}))), "b=2,c=1");
        assert_eq!(order(rename(json!({"field_to_field": [["a", "b"], ["b", "c"]]}), json!({"a": 1, "b": 2}))), "c=1");
        assert_eq!(order(rename(json!({"field": "b", "to_field": "c/d"}), json!({"b": 2, "a": 1}))), "a=1,c={\"d\":2}");
    }
}

/// `shuffle_field_values` (Unitxt's `ShuffleFieldValues`): the items of the value (list items,
/// string characters or dict keys, as Python iterates) as a list in the order Python's
/// `random.shuffle` gives with the generator seeded by that list itself
/// (`new_random_generator(sub_seed=items)`), so the order is the same on every run.
#[derive(Debug, Deserialize)]
pub struct ShuffleFieldValues {}

impl FieldOperator for ShuffleFieldValues {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let mut items = py_iter(&value)?;
        let mut rng = crate::py::random::new_random_generator(&Value::Array(items.clone()));
        rng.shuffle(&mut items);
        Ok(Value::Array(items))
    }
}

/// `fix_json_schema_of_parameter_types` (Unitxt's `FixJsonSchemaOfParameterTypes`): everywhere
/// in the top-level field `main_field` (dicts and lists, at any depth), a `"type"` key whose
/// value is a string naming a Python, Java or typing type (`int`, `List[str]`,
/// `Union[int, str]`, `str, optional`, `int, default=5`, ...) is replaced by the JSON-schema
/// keys for it (`{"type": "integer"}`, `{"type": "array", "items": {...}}`, `{"anyOf": [...]}`,
/// ...), added at the end of its dict as Unitxt's `pop` then `update` do. Unknown names are
/// kept as the type. Errors when the field is missing, when a comma-separated type has more
/// than three parts (Unitxt's assertion), and on a `default` part with no value.
#[derive(Debug, Deserialize)]
pub struct FixJsonSchemaOfParameterTypes {
    /// `main_field`: the top-level field holding the schemas.
    pub main_field: String,
}

/// Type names that map to one JSON-schema type.
const SIMPLE_TYPES: &[(&str, &str)] = &[
    ("", "object"), ("any", "object"), ("Any", "object"), ("Array", "array"), ("ArrayList", "array"),
    ("Bigint", "integer"), ("bool", "boolean"), ("Boolean", "boolean"), ("byte", "integer"), ("char", "string"),
    ("dict", "object"), ("Dict", "object"), ("double", "number"), ("float", "number"), ("HashMap", "object"),
    ("Hashtable", "object"), ("int", "integer"), ("list", "array"), ("List", "array"), ("long", "integer"),
    ("Queue", "array"), ("short", "integer"), ("Stack", "array"), ("tuple", "array"), ("Set", "array"),
    ("set", "array"), ("str", "string"), ("String", "string"),
];

/// `{"type": t}`.
fn type_of(t: &str) -> Instance {
    let mut m = Instance::with_capacity(1);
    m.insert("type".into(), Value::from(t));
    m
}

/// The inside of `Name[...]` when `s` matches Python's `re.match(r"^(Name)\[(.*?)\]$", s)`
/// for one of `names` (`$` also matches before a final new line; `.` matches no new line).
fn generic_args<'a>(s: &'a str, names: &[&'a str]) -> Option<(&'a str, &'a str)> {
    let t = s.strip_suffix('\n').filter(|t| t.ends_with(']')).unwrap_or(s);
    for name in names {
        if let Some(rest) = t.strip_prefix(name).and_then(|r| r.strip_prefix('[')) {
            if let Some(inner) = rest.strip_suffix(']') {
                if !inner.contains('\n') {
                    return Some((name, inner));
                }
            }
        }
    }
    None
}

/// Unitxt's `type_str_to_jsonschema_dict`.
fn type_to_schema(s: &str) -> Result<Instance> {
    if let Some((_, t)) = SIMPLE_TYPES.iter().find(|(k, _)| *k == s) {
        return Ok(type_of(t));
    }
    if let Some((name, inner)) = generic_args(s, &["List", "Tuple"]) {
        let mut m = type_of("array");
        let item = if name == "List" { inner.to_string() } else { py_strip(inner.split(',').next().unwrap_or_default()).to_string() };
        m.insert("items".into(), Value::Object(type_to_schema(&item)?));
        return Ok(m);
    }
    if let Some((_, inner)) = generic_args(s, &["Union"]) {
        let any = inner.split(',').map(|a| type_to_schema(py_strip(a)).map(Value::Object)).collect::<Result<Vec<_>>>()?;
        let mut m = Instance::with_capacity(1);
        m.insert("anyOf".into(), Value::Array(any));
        return Ok(m);
    }
    if generic_args(s, &["Callable"]).is_some() {
        return Ok(type_of("object"));
    }
    if s.contains(',') {
        let parts: Vec<&str> = s.split(',').map(py_strip).collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(Error::invalid(format!("fix_json_schema_of_parameter_types: num of subtypes should be 2 or 3, got {s}")));
        }
        let mut basic = type_to_schema(parts[0])?;
        for p in &parts[1..] {
            if p.to_lowercase().starts_with("default") {
                let value = p.split_once(['=', ' ']).map(|(_, v)| v).ok_or_else(|| {
                    Error::invalid(format!("fix_json_schema_of_parameter_types: {p:?} gives no default value"))
                })?;
                basic.insert("default".into(), Value::from(value));
            }
        }
        if parts[1..].iter().any(|p| p.to_lowercase().starts_with("optional")) {
            let mut m = Instance::with_capacity(1);
            m.insert("anyOf".into(), Value::Array(vec![Value::Object(basic), Value::Object(type_of("null"))]));
            return Ok(m);
        }
        return Ok(basic);
    }
    Ok(type_of(s))
}

fn fix_types(v: &mut Value) -> Result<()> {
    match v {
        Value::Object(m) => {
            let keys: Vec<crate::value::Key> = m.keys().cloned().collect();
            for k in keys {
                match m.get_mut(&k) {
                    Some(Value::String(t)) if k.as_str() == "type" => {
                        let schema = type_to_schema(t)?;
                        m.shift_remove("type");
                        for (sk, sv) in schema {
                            m.insert(sk, sv);
                        }
                    }
                    Some(inner) => fix_types(inner)?,
                    None => {}
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter_mut().try_for_each(fix_types),
        _ => Ok(()),
    }
}

impl InstanceOperator for FixJsonSchemaOfParameterTypes {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let keys = instance.keys().map(|k| k.to_string()).collect::<Vec<_>>();
        let v = instance.get_mut(self.main_field.as_str()).ok_or_else(|| {
            Error::not_found(format!("field {:?} must reside in the instance to fix its json schema; fields are {keys:?}", self.main_field))
        })?;
        fix_types(v)?;
        Ok(instance)
    }

    fn fields_read(&self) -> FieldsRead {
        FieldsRead::Only(vec![self.main_field.clone()])
    }
}

// ---------------------------------------------------------------------------------------------
// Public Unitxt classes the catalog does not use (issue 53)
// ---------------------------------------------------------------------------------------------

fn one() -> f64 {
    1.0
}

/// `divide_all_fields_by` (Unitxt's `DivideAllFieldsBy`): every float anywhere in the
/// instance (inside dicts and lists, at any depth) divided by `divisor`; integers, booleans,
/// strings and `null` stay, or, with `strict`, are an error. Dividing by zero is an error.
#[derive(Debug, Deserialize)]
pub struct DivideAllFieldsBy {
    /// `divisor`: what floats are divided by (default 1.0).
    #[serde(default = "one")]
    pub divisor: f64,
    /// `strict`: a leaf that is not a float is an error (default false).
    #[serde(default)]
    pub strict: bool,
}

impl DivideAllFieldsBy {
    fn divide(&self, v: &mut Value) -> Result<()> {
        match v {
            Value::Object(m) => m.values_mut().try_for_each(|x| self.divide(x)),
            Value::Array(a) => a.iter_mut().try_for_each(|x| self.divide(x)),
            Value::Number(n) if n.is_f64() => {
                if self.divisor == 0.0 {
                    return Err(Error::invalid("divide_all_fields_by: float division by zero"));
                }
                *v = Value::Number(crate::value::Number::float(n.as_f64().unwrap_or(f64::NAN) / self.divisor));
                Ok(())
            }
            other if self.strict => {
                Err(Error::invalid(format!("Cannot divide instance of type <class '{}'>", crate::py::repr::type_name(other))))
            }
            _ => Ok(()),
        }
    }
}

impl InstanceOperator for DivideAllFieldsBy {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        let mut v = Value::Object(instance);
        self.divide(&mut v)?;
        match v {
            Value::Object(m) => Ok(m),
            _ => unreachable!("an instance stays a dict"),
        }
    }
}

/// `flatten_instances` (Unitxt's `FlattenInstances`): nested dicts become top-level fields
/// named by their path, the keys joined by `sep` (default `_`) and prefixed by `parent_key` and
/// `sep` when `parent_key` is not empty. Lists and other values stay as they are; a later key
/// that flattens to a name met before takes that name's place with its value.
#[derive(Debug, Deserialize)]
pub struct FlattenInstances {
    /// `parent_key`: the prefix of every name (default none).
    #[serde(default)]
    pub parent_key: String,
    /// `sep`: the separator of the keys of a path (default `_`).
    #[serde(default = "underscore")]
    pub sep: String,
}

fn underscore() -> String {
    "_".to_string()
}

fn flatten_into(d: Instance, parent: &str, sep: &str, out: &mut Instance) {
    for (k, v) in d {
        let key = if parent.is_empty() { k.to_string() } else { format!("{parent}{sep}{k}") };
        match v {
            Value::Object(m) => flatten_into(m, &key, sep, out),
            other => {
                out.insert(key.as_str().into(), other);
            }
        }
    }
}

impl InstanceOperator for FlattenInstances {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        let mut out = Instance::with_capacity(instance.len());
        flatten_into(instance, &self.parent_key, &self.sep, &mut out);
        Ok(out)
    }
}

/// `intersect` (Unitxt's `Intersect`): the items of the list that equal one of
/// `allowed_values`, in order. Errors on a value that is not a list; `process_every_value` is
/// refused when the operator is built.
#[derive(Debug, Deserialize)]
pub struct Intersect {
    /// `allowed_values`: the items kept.
    pub allowed_values: Vec<Value>,
}

impl FieldOperator for Intersect {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match value {
            Value::Array(a) => Ok(Value::Array(a.into_iter().filter(|e| self.allowed_values.iter().any(|u| py_eq(e, u))).collect())),
            other => Err(Error::invalid(format!("The value in field is not a list but '{}'", py_str(&other)))),
        }
    }
}

/// `intersect_corresponding_fields` (Unitxt's `IntersectCorrespondingFields`): keeps the items
/// of the list in top-level field `field` that equal one of `allowed_values`, and the items at
/// the same positions of the lists in `corresponding_fields_to_intersect`; the other fields
/// stay. When the field's items and the allowed values are the same set, nothing changes.
/// Errors: a missing field, a value that is not a list, a corresponding list of another length,
/// items Python cannot put in a set (lists, dicts).
#[derive(Debug, Deserialize)]
pub struct IntersectCorrespondingFields {
    /// `field`: the top-level field whose list is intersected.
    pub field: String,
    /// `allowed_values`: the items kept.
    pub allowed_values: Vec<Value>,
    /// `corresponding_fields_to_intersect`: top-level list fields cut at the same positions.
    pub corresponding_fields_to_intersect: Vec<String>,
}

impl InstanceOperator for IntersectCorrespondingFields {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        let missing = |f: &str| Error::invalid(format!("Field '{f}' is not in provided instance."));
        let Some(values) = instance.get(self.field.as_str()) else { return Err(missing(&self.field)) };
        for f in &self.corresponding_fields_to_intersect {
            if !instance.contains_key(f.as_str()) {
                return Err(missing(f));
            }
        }
        let Value::Array(values) = values else {
            return Err(Error::invalid(format!(
                "Value of field '{}' is not a list, so IntersectCorrespondingFields can not intersect with allowed values.",
                self.field
            )));
        };
        let unhashable = |v: &Value| matches!(v, Value::Array(_) | Value::Object(_));
        if let Some(v) = values.iter().chain(&self.allowed_values).find(|v| unhashable(v)) {
            return Err(Error::invalid(format!("unhashable type: '{}'", crate::py::repr::type_name(v))));
        }
        let allowed = |v: &Value| self.allowed_values.iter().any(|u| py_eq(v, u));
        if values.iter().all(allowed) && self.allowed_values.iter().all(|u| values.iter().any(|v| py_eq(u, v))) {
            return Ok(instance);
        }
        let keep: Vec<bool> = values.iter().map(allowed).collect();
        let n = keep.len();
        let mut out = Instance::with_capacity(instance.len());
        for (k, v) in instance {
            if k.as_str() == self.field || self.corresponding_fields_to_intersect.iter().any(|f| f == k.as_str()) {
                let Value::Array(items) = v else {
                    return Err(Error::invalid(format!(
                        "Value of field '{k}' is not a list, IntersectCorrespondingFields can not intersect with allowed values."
                    )));
                };
                if items.len() != n {
                    return Err(Error::invalid(format!(
                        "Number of elements in field '{k}' is not the same as the number of elements in field '{}' so the IntersectCorrespondingFields can not remove corresponding values.",
                        self.field
                    )));
                }
                let kept = items.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(x, _)| x).collect();
                out.insert(k, Value::Array(kept));
            } else {
                out.insert(k, v);
            }
        }
        Ok(out)
    }
}

fn one_percent() -> i64 {
    1
}

/// `perturb` (Unitxt's `Perturb`): changes about `percentage_to_perturb` percent of the values
/// slightly, as a stand-in for a model's answer: for each value, a draw of `randint(1, 100)`
/// decides; a value perturbed is, when it is one of `select_from`, another of them four times in
/// five, else a float times a factor in [0.5, 1.5), an integer (or boolean) plus or minus one,
/// a string of two or more characters with one character dropped; anything else stays. The
/// draws come from one generator seeded as Unitxt seeds it (`CopyWithPerturbation`), shared by
/// every value in stream order, so the operator runs in stream order. `percentage_to_perturb`
/// outside 0..=100 is an error when built.
#[derive(Debug, Deserialize)]
pub struct Perturb {
    /// `select_from`: values a value among them may be replaced by (default none).
    #[serde(default)]
    pub select_from: Vec<Value>,
    /// `percentage_to_perturb`: the share of values perturbed, in percent (default 1).
    #[serde(default = "one_percent")]
    pub percentage_to_perturb: i64,
    #[serde(skip, default = "perturb_generator")]
    rng: std::sync::Mutex<crate::py::random::PyRandom>,
}

fn perturb_generator() -> std::sync::Mutex<crate::py::random::PyRandom> {
    std::sync::Mutex::new(crate::py::random::new_random_generator(&Value::from("CopyWithPerturbation")))
}

impl Perturb {
    /// Unitxt's check of `percentage_to_perturb`.
    pub fn checked(self) -> Result<Self> {
        if !(0..=100).contains(&self.percentage_to_perturb) {
            return Err(Error::invalid(format!(
                "'percentage_to_perturb' should be in the range 0..100. Received {}",
                self.percentage_to_perturb
            )));
        }
        Ok(self)
    }
}

impl FieldOperator for Perturb {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let mut rng = self.rng.lock().map_err(|_| Error::invalid("perturb: the generator is poisoned"))?;
        if rng.randint(1, 100)? > self.percentage_to_perturb {
            return Ok(value);
        }
        if self.select_from.iter().any(|s| py_eq(s, &value)) && rng.random() < 0.8 {
            let i = rng.choice_index(self.select_from.len());
            return Ok(self.select_from[i].clone());
        }
        Ok(match value {
            Value::Number(n) if n.is_f64() => {
                Value::Number(crate::value::Number::float(n.as_f64().unwrap_or(f64::NAN) * (0.5 + rng.random())))
            }
            Value::Number(_) | Value::Bool(_) => {
                let step = if rng.random() < 0.5 { 1 } else { -1 };
                py_add(&value, &Value::from(step))?
            }
            Value::String(s) => {
                let chars: Vec<char> = s.chars().collect();
                if chars.len() < 2 {
                    return Ok(Value::String(s));
                }
                let cut = rng.randint(1, chars.len() as i64 - 1)? as usize;
                Value::from(chars[..cut].iter().chain(&chars[cut + 1..]).collect::<String>())
            }
            other => other,
        })
    }
}

/// An [`InstanceOperator`] that must see the instances in stream order (its results depend on
/// a state shared by all of them, as [`Perturb`]'s generator): `op`, run on the reading thread.
pub struct InStreamOrder<T>(pub T);

impl<T: InstanceOperator> InstanceOperator for InStreamOrder<T> {
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance> {
        self.0.process_instance(instance, split)
    }
    fn needs_stream_order(&self) -> bool {
        true
    }
    fn fields_read(&self) -> FieldsRead {
        self.0.fields_read()
    }
}
