//! Tasks (Unitxt's `Task`): pack an instance's fields into `input_fields` and
//! `reference_fields`, checking each value against the task's declared type.
//!
//! Types are Unitxt's type strings: `str`, `int`, `float`, `bool`, `Any`, `List[T]`,
//! `Dict[K, V]`, `Tuple[A, B]`, `Union[A, B]`, `Optional[T]`, and Unitxt's named types
//! (`Text` is a `str`; `Table`, `Image`, `Audio`, `Video`, `Tool`, `ToolCall`, `Document`,
//! `SQLDatabase`, `Conversation`, `RagResponse` are dicts; `Dialog`, `MultiDocument` are lists).
//! As in Python, a bool is an int, and an int is not a float. A user's own named type
//! (Unitxt's `register_type`) is given by [`register_type`]; any other unknown name is taken
//! as a dict-like type.

use indexmap::IndexMap;
use serde::Deserialize;

use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::operators::InstanceOperator;
use crate::templates::Template;
use crate::value::{map::tags_of, FieldName, Instance, Value};

/// A parsed Unitxt type string.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    /// `Any`: every value passes.
    Any,
    /// `str`.
    Str,
    /// `int`: a JSON integer, or a bool (Python's `bool` is an `int`).
    Int,
    /// `float`: a JSON number with a fraction or exponent (an integer is not a float).
    Float,
    /// `bool`.
    Bool,
    /// `None` (JSON `null`).
    NoneType,
    /// `List[T]`: a JSON array whose items are all of the inner type.
    List(Box<Type>),
    /// `Dict[K, V]`: a JSON object whose values are of the second type (JSON keys are always
    /// strings, so the key type is kept but not checked).
    Dict(Box<Type>, Box<Type>),
    /// `Tuple[A, B, ...]`: a JSON array of exactly these item types, in order.
    Tuple(Vec<Type>),
    /// `Union[A, B, ...]` (and `Optional[T]`, a union with `None`): any one of the types.
    Union(Vec<Type>),
    /// A named dict-like type (TypedDict in Unitxt).
    Object(String),
    /// A named list-like type.
    Sequence(String),
    /// A type registered with [`register_type`]: its name and what it stands for.
    Named(String, Box<Type>),
}

/// Name -> definition (a type string) of the types given to [`register_type`].
static REGISTERED: std::sync::RwLock<Vec<(String, String)>> = std::sync::RwLock::new(Vec::new());

/// How deep registered types may refer to registered types (a type naming itself is an
/// error, not a loop).
const MAX_NAMED_DEPTH: usize = 16;

/// Registers a named type for task field types (Unitxt's `register_type`, for the
/// process): `name` (a `NewType`'s or `TypedDict`'s name) stands for the type string
/// `definition` (a `NewType`'s supertype, `Dict[str, Any]` for a `TypedDict`). Registering a
/// name again replaces its definition. Errors: `definition` is not a type string.
pub fn register_type(name: &str, definition: &str) -> Result<()> {
    parse_type(definition.trim(), MAX_NAMED_DEPTH)
        .map_err(|e| Error::invalid(format!("bad definition {definition:?} of type {name:?}: {e}")))?;
    let mut reg = REGISTERED.write().unwrap_or_else(|p| p.into_inner());
    reg.retain(|(n, _)| n != name);
    reg.push((name.to_string(), definition.to_string()));
    Ok(())
}

/// Every registered type as `(name, definition)`, in the order registered (what another process
/// needs to [`register_type`] them again: a Ray worker preparing instances).
pub fn registered_types() -> Vec<(String, String)> {
    REGISTERED.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The definition of registered type `name`, if it is one.
fn registered(name: &str) -> Option<String> {
    let reg = REGISTERED.read().unwrap_or_else(|p| p.into_inner());
    reg.iter().find(|(n, _)| n == name).map(|(_, d)| d.clone())
}

impl Type {
    /// Parses a type string such as `List[Union[str, int]]`.
    pub fn parse(s: &str) -> Result<Type> {
        let (t, rest) = parse_type(s.trim(), MAX_NAMED_DEPTH).map_err(|e| Error::invalid(format!("bad type string {s:?}: {e}")))?;
        if !rest.trim().is_empty() {
            return Err(Error::invalid(format!("bad type string {s:?}: trailing {rest:?}")));
        }
        Ok(t)
    }

    /// Whether `v` is of this type (Unitxt's `isoftype`).
    pub fn check(&self, v: &Value) -> bool {
        match self {
            Type::Any => true,
            Type::Str => v.is_string(),
            Type::Int => v.is_i64() || v.is_u64() || v.is_boolean(),
            Type::Float => v.is_f64(),
            Type::Bool => v.is_boolean(),
            Type::NoneType => v.is_null(),
            Type::List(t) => v.as_array().is_some_and(|a| a.iter().all(|x| t.check(x))),
            Type::Dict(_, vt) => v.as_object().is_some_and(|m| m.values().all(|x| vt.check(x))),
            Type::Tuple(ts) => v.as_array().is_some_and(|a| a.len() == ts.len() && a.iter().zip(ts).all(|(x, t)| t.check(x))),
            Type::Union(ts) => ts.iter().any(|t| t.check(v)),
            Type::Object(_) => v.is_object(),
            Type::Sequence(_) => v.is_array(),
            Type::Named(_, t) => t.check(v),
        }
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let join = |ts: &[Type]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
        match self {
            Type::Any => write!(f, "Any"),
            Type::Str => write!(f, "str"),
            Type::Int => write!(f, "int"),
            Type::Float => write!(f, "float"),
            Type::Bool => write!(f, "bool"),
            Type::NoneType => write!(f, "None"),
            Type::List(t) => write!(f, "List[{t}]"),
            Type::Dict(k, v) => write!(f, "Dict[{k}, {v}]"),
            Type::Tuple(ts) => write!(f, "Tuple[{}]", join(ts)),
            Type::Union(ts) => write!(f, "Union[{}]", join(ts)),
            Type::Object(n) | Type::Sequence(n) | Type::Named(n, _) => write!(f, "{n}"),
        }
    }
}

/// Parses one type at the start of `s`; returns it and the rest. `depth`: how many more
/// registered types may be expanded inside one another.
fn parse_type(s: &str, depth: usize) -> std::result::Result<(Type, &str), String> {
    let end = s.find(|c: char| c == '[' || c == ']' || c == ',').unwrap_or(s.len());
    let name = s[..end].trim();
    let mut rest = &s[end..];
    let mut args = Vec::new();
    if let Some(r) = rest.strip_prefix('[') {
        rest = r;
        loop {
            let (t, r) = parse_type(rest.trim_start(), depth)?;
            args.push(t);
            let r = r.trim_start();
            if let Some(r2) = r.strip_prefix(',') {
                rest = r2;
            } else if let Some(r2) = r.strip_prefix(']') {
                rest = r2;
                break;
            } else {
                return Err(format!("expected , or ] at {r:?}"));
            }
        }
    }
    let one = |args: &mut Vec<Type>| args.pop().unwrap_or(Type::Any);
    let t = match (name, args.len()) {
        ("Any" | "typing.Any" | "object", _) => Type::Any,
        ("str" | "Text", _) => Type::Str,
        ("int", _) => Type::Int,
        ("float", _) => Type::Float,
        ("bool", _) => Type::Bool,
        ("None" | "NoneType", _) => Type::NoneType,
        ("List" | "list" | "Sequence", _) => Type::List(Box::new(one(&mut args))),
        ("Dict" | "dict", 2) => {
            let v = args.pop().unwrap();
            let k = args.pop().unwrap();
            Type::Dict(Box::new(k), Box::new(v))
        }
        ("Dict" | "dict", 0) => Type::Dict(Box::new(Type::Any), Box::new(Type::Any)),
        ("Tuple" | "tuple", _) => Type::Tuple(args),
        ("Union", _) => Type::Union(args),
        ("Optional", 1) => Type::Union(vec![args.pop().unwrap(), Type::NoneType]),
        ("Literal", _) => Type::Any,
        ("Dialog" | "MultiDocument", _) => Type::Sequence(name.to_string()),
        ("", _) => return Err("empty type name".into()),
        (other, 0) => match registered(other) {
            Some(_) if depth == 0 => return Err(format!("registered type {other:?} refers to itself")),
            Some(def) => {
                let (t, r) = parse_type(def.trim(), depth - 1)?;
                if !r.trim().is_empty() {
                    return Err(format!("registered type {other:?}: trailing {r:?}"));
                }
                Type::Named(other.to_string(), Box::new(t))
            }
            None => Type::Object(other.to_string()),
        },
        (other, _) => Type::Object(other.to_string()),
    };
    Ok((t, rest))
}

/// Field declarations: a list of names (all `Any`) or a dict of name to type string.
fn parse_fields(v: &Option<Value>) -> Result<IndexMap<String, Type>> {
    let mut out = IndexMap::new();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for x in a {
                let n = x.as_str().ok_or_else(|| Error::invalid("task field names must be strings"))?;
                out.insert(n.to_string(), Type::Any);
            }
        }
        Some(Value::Object(m)) => {
            for (k, t) in m {
                let ts = t.as_str().ok_or_else(|| Error::invalid(format!("type of task field {k:?} must be a type string")))?;
                out.insert(k.to_string(), Type::parse(ts)?);
            }
        }
        Some(other) => return Err(Error::invalid(format!("task fields must be a list or a dict, got {other}"))),
    }
    Ok(out)
}

#[derive(Deserialize)]
/// The catalog JSON of a `task`.
pub(crate) struct TaskJson {
    #[serde(default)]
    input_fields: Option<Value>,
    #[serde(default)]
    reference_fields: Option<Value>,
    #[serde(default)]
    inputs: Option<Value>,
    #[serde(default)]
    outputs: Option<Value>,
    #[serde(default)]
    metrics: Option<Value>,
    #[serde(default)]
    prediction_type: Option<Value>,
    #[serde(default)]
    augmentable_inputs: Vec<String>,
    #[serde(default)]
    defaults: Option<crate::value::Map>,
    #[serde(default)]
    default_template: Option<Value>,
}

/// A task: the roles and types of an instance's fields, and its metrics.
pub struct Task {
    /// `input_fields`: each input field's name and type, in the artifact's order (a list of
    /// names gives every field `Any`).
    pub input_fields: IndexMap<String, Type>,
    /// `reference_fields`: each reference (output) field's name and type, as for inputs.
    pub reference_fields: IndexMap<String, Type>,
    /// Metric names (catalog names or inline JSON strings), as given.
    pub metrics: Vec<Value>,
    /// `prediction_type`: the type string predictions are expected to have (absent: any).
    pub prediction_type: Option<String>,
    /// `augmentable_inputs`: the input fields a task-input augmentor may change (empty: none).
    pub augmentable_inputs: Vec<String>,
    /// `defaults`: values given to the fields an instance lacks, before the task picks its
    /// fields.
    pub defaults: Option<Instance>,
    /// `default_template`: the template used when neither the recipe nor the card names one.
    pub default_template: Option<Art<dyn Template>>,
    /// For each input field, in order, whether it is also a reference field (then the first
    /// pick clones it instead of moving it). Derived from the two field maps.
    shared: Vec<bool>,
    /// The names of `input_fields` and of `reference_fields`, in their order, ready for lookups.
    input_names: Vec<FieldName>,
    reference_names: Vec<FieldName>,
    /// The keys of `defaults`, in its order, ready for lookups.
    default_names: Vec<FieldName>,
    /// For each of [`CARRIED`], whether it is also a reference field (then it is cloned into
    /// the task's output and stays for the reference pick).
    carried_is_ref: [bool; 6],
}

/// Fields of a task's instances that are the same for a whole split, made by [`Task::fix`]
/// for [`Task::process`]: the fields, and their values at the positions of the task's input
/// and reference fields.
#[derive(Debug, Clone, Default)]
pub struct Fixed {
    /// The fixed fields, in the order they were set.
    pub fields: Instance,
    /// Per input field of the task, in order, its fixed value.
    input: Vec<Option<Value>>,
    /// Per reference field of the task, in order, its fixed value.
    reference: Vec<Option<Value>>,
}

/// The fields the task carries over from the instance besides its input and reference fields:
/// the first three always (empty when missing), the last three when present.
const CARRIED: [&str; 6] = ["data_classification_policy", "media", "recipe_metadata", "demos", "instruction", "system_prompt"];

/// The keys of the task's output with their tags (see [`output_keys`]).
struct OutputKeys {
    /// [`CARRIED`], in its order.
    carried: [FieldName; 6],
    input_fields: FieldName,
    metrics: FieldName,
    reference_fields: FieldName,
}

/// The keys of the task's output, made once.
fn output_keys() -> &'static OutputKeys {
    static KEYS: std::sync::OnceLock<OutputKeys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| OutputKeys {
        carried: CARRIED.map(FieldName::new),
        input_fields: FieldName::new("input_fields"),
        metrics: FieldName::new("metrics"),
        reference_fields: FieldName::new("reference_fields"),
    })
}

impl Task {
    /// Builds a task from its catalog JSON. Errors when fields are missing or conflicting.
    pub fn from_json(v: &Value, cx: &crate::artifact::BuildContext<'_>) -> Result<Task> {
        let j: TaskJson = crate::artifact::from_value("task", v)?;
        if j.input_fields.is_some() && j.inputs.is_some() {
            return Err(Error::invalid("task: 'input_fields' cannot be set together with 'inputs'"));
        }
        if j.reference_fields.is_some() && j.outputs.is_some() {
            return Err(Error::invalid("task: 'reference_fields' cannot be set together with 'outputs'"));
        }
        let inf = j.input_fields.or(j.inputs);
        let rf = j.reference_fields.or(j.outputs);
        if inf.is_none() {
            return Err(Error::invalid("task: missing attribute 'input_fields'"));
        }
        if rf.is_none() {
            return Err(Error::invalid("task: missing attribute 'reference_fields'"));
        }
        let metrics = match j.metrics {
            Some(Value::Array(a)) => a,
            Some(Value::String(s)) => vec![Value::String(s)],
            None => return Err(Error::invalid("task: missing attribute 'metrics'")),
            Some(other) => return Err(Error::invalid(format!("task: metrics must be a list, got {other}"))),
        };
        let input_fields = parse_fields(&inf)?;
        let reference_fields = parse_fields(&rf)?;
        for a in &j.augmentable_inputs {
            if !input_fields.contains_key(a) {
                return Err(Error::invalid(format!("task: augmentable input {a:?} is not an input field")));
            }
        }
        let shared = input_fields.keys().map(|k| reference_fields.contains_key(k)).collect();
        let carried_is_ref = CARRIED.map(|k| reference_fields.contains_key(k));
        let names =
            |fields: &IndexMap<String, Type>| fields.keys().map(|k| FieldName::new(k)).collect();
        Ok(Task {
            shared,
            input_names: names(&input_fields),
            reference_names: names(&reference_fields),
            default_names: j.defaults.iter().flat_map(|d| d.keys()).map(|k| FieldName::new(k)).collect(),
            carried_is_ref,
            input_fields,
            reference_fields,
            metrics,
            prediction_type: j.prediction_type.and_then(|p| p.as_str().map(String::from)),
            augmentable_inputs: j.augmentable_inputs,
            defaults: j.defaults,
            default_template: cx.build_opt(j.default_template.as_ref())?,
        })
    }

    /// The `fields` of `instance`, type-checked, in `fields` order. Values are moved out of
    /// `instance`, except those flagged in `shared` (by position; they are cloned, for the second pick).
    /// `names` are the keys of `fields`, in order.
    /// A field given in `fixed` (by position, type-checked when the [`Fixed`] was made) is
    /// cloned from there instead.
    fn pick(&self, fields: &IndexMap<String, Type>, names: &[FieldName], instance: &mut Instance, fixed: &Fixed, at: &[Option<Value>], shared: Option<&[bool]>) -> Result<Instance> {
        let mut out = Instance::with_capacity(fields.len());
        for (i, ((name, ty), field)) in fields.iter().zip(names).enumerate() {
            if let Some(v) = at.get(i).and_then(Option::as_ref) {
                out.push_new_name(field, v.clone());
                continue;
            }
            let keep_it = shared.is_some_and(|s| s[i]);
            // One lookup: a moved value is taken out right away (the instance is dropped on
            // error anyway), a kept one is cloned.
            let v = if keep_it { instance.get_name(field).cloned() } else { instance.swap_remove_name(field) };
            let Some(v) = v else {
                let present = instance.keys().chain(fixed.fields.keys().filter(|k| !instance.contains_key(k)));
                return Err(Error::not_found(format!(
                    "the task expected a field {name:?} which the instance does not contain; the instance fields are {:?}",
                    present.collect::<Vec<_>>()
                )));
            };
            if !ty.check(&v) {
                return Err(Error::invalid(format!(
                    "value {} of field {name:?} is not of the required type {ty}",
                    crate::artifact::short(&v)
                )));
            }
            // Field names are distinct (they are the keys of `fields`).
            out.push_new_name(field, v);
        }
        Ok(out)
    }
}

impl InstanceOperator for Task {
    /// The input and reference fields, and the fields carried through (policy, media, recipe
    /// metadata, demos, instruction, system prompt); every other field is dropped.
    fn fields_read(&self) -> crate::operators::FieldsRead {
        let fields = self.input_fields.keys().chain(self.reference_fields.keys()).cloned();
        crate::operators::FieldsRead::Only(fields.chain(CARRIED.iter().map(|c| c.to_string())).collect())
    }

    /// [`Task::process`], with the task's `metrics` added after `input_fields` (Unitxt's
    /// `Task.process`).
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        self.process_with(instance, &Fixed::default(), Some(Value::Array(self.metrics.clone())))
    }
}

impl Task {
    /// The task's output of `instance` (Unitxt's `Task.process` without `metrics`, which a
    /// recipe takes from the task once): `input_fields` (the instance's input fields after
    /// the task's `defaults`, type-checked, in the task's order), the carried fields (policy,
    /// media, recipe metadata always, empty when missing; demos, instruction, system prompt
    /// when present), then `reference_fields`. Every other field is dropped. Errors: a field
    /// the task expects is missing, or its value is not of the field's type.
    ///
    /// `fixed` holds input or reference fields whose values are the same for every instance of
    /// a split (a card's trailing `set` of constants, see [`Task::fix`]): they are taken from
    /// there, as if the instance had them. `Fixed::default()` fixes none.
    pub fn process(&self, instance: Instance, fixed: &Fixed) -> Result<Instance> {
        self.process_with(instance, fixed, None)
    }

    /// `fields`, written into every instance just before the task (a `set` of constants),
    /// as fixed fields for [`Task::process`], when that gives the same output with no
    /// per-instance write: every one is an input or reference field of the right type, or a
    /// field the task drops, and none is a field the task carries. `None` otherwise.
    pub fn fix(&self, fields: Instance) -> Option<Fixed> {
        let ok = fields.iter().all(|(k, v)| {
            let ty = self.input_fields.get(k.as_str()).into_iter().chain(self.reference_fields.get(k.as_str()));
            !CARRIED.contains(&k.as_str()) && ty.into_iter().all(|t| t.check(v))
        });
        if !ok {
            return None;
        }
        let at = |names: &IndexMap<String, Type>| names.keys().map(|k| fields.get(k).cloned()).collect();
        let (input, reference) = (at(&self.input_fields), at(&self.reference_fields));
        Some(Fixed { input, reference, fields })
    }

    /// [`Task::process`] on the inference stream (Unitxt's `Task.process` with
    /// `constants.inference_stream`, as `produce` runs it): `input_fields` and the carried
    /// fields only; the reference fields are neither required nor kept. Errors: an input
    /// field is missing or not of its type.
    pub fn process_inference(&self, mut instance: Instance) -> Result<Instance> {
        self.add_defaults(&mut instance);
        let fixed = Fixed::default();
        let input_fields = self.pick(&self.input_fields, &self.input_names, &mut instance, &fixed, &fixed.input, None)?;
        let mut out = Instance::with_capacity(16);
        let keys = output_keys();
        out.push_new_name(&keys.input_fields, Value::Object(input_fields));
        self.carry(&mut instance, &mut out);
        Ok(out)
    }

    /// [`Task::process`], with `metrics` (when given) after `input_fields`.
    fn process_with(&self, mut instance: Instance, fixed: &Fixed, metrics: Option<Value>) -> Result<Instance> {
        self.add_defaults(&mut instance);
        // The input instance is dropped at the end: its values are moved, not cloned (the
        // order of its keys no longer matters, hence `swap_remove`).
        let input_fields = self.pick(&self.input_fields, &self.input_names, &mut instance, fixed, &fixed.input, Some(&self.shared))?;
        // Room for the fields the template, the format and finalization add later.
        let mut out = Instance::with_capacity(16);
        let keys = output_keys();
        out.push_new_name(&keys.input_fields, Value::Object(input_fields));
        if let Some(m) = metrics {
            out.push_new_name(&keys.metrics, m);
        }
        self.carry(&mut instance, &mut out);
        let reference_fields = self.pick(&self.reference_fields, &self.reference_names, &mut instance, fixed, &fixed.reference, None)?;
        out.push_new_name(&keys.reference_fields, Value::Object(reference_fields));
        Ok(out)
    }

    /// `{**defaults, **instance}`: only the values matter here (fields are picked by name),
    /// so defaults are added only where the instance lacks the field.
    fn add_defaults(&self, instance: &mut Instance) {
        if let Some(d) = &self.defaults {
            for ((_, v), name) in d.iter().zip(&self.default_names) {
                if !instance.contains_name(name) {
                    instance.push_new_name(name, v.clone());
                }
            }
        }
    }

    /// Appends the carried fields of `instance` to `out` ([`CARRIED`]: the first three always,
    /// empty when missing). They are found in one pass (most are absent); a moved value
    /// leaves a `null` under its key, which nothing reads again.
    fn carry(&self, instance: &mut Instance, out: &mut Instance) {
        const TAGS: [u64; 6] = tags_of(CARRIED);
        let carried = instance.positions_of_tagged(CARRIED, TAGS);
        let mut take = |c: usize| -> Option<Value> {
            let i = carried[c]?;
            Some(if self.carried_is_ref[c] { instance.get_index(i).clone() } else { std::mem::take(instance.get_index_mut(i)) })
        };
        // The keys are distinct literals.
        let keys = output_keys();
        out.push_new_name(&keys.carried[0], take(0).unwrap_or_else(|| Value::Array(vec![])));
        out.push_new_name(&keys.carried[1], take(1).unwrap_or_else(|| Value::Object(Instance::new())));
        out.push_new_name(&keys.carried[2], take(2).unwrap_or_else(|| Value::Object(Instance::new())));
        for c in 3..CARRIED.len() {
            if let Some(v) = take(c) {
                out.push_new_name(&keys.carried[c], v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn type_strings() {
        let t = Type::parse("List[Union[str, int]]").unwrap();
        assert!(t.check(&json!(["a", 1, true])));
        assert!(!t.check(&json!(["a", 1.5])));
        assert!(!Type::parse("float").unwrap().check(&json!(1)));
        assert!(Type::parse("Optional[Dict[str, float]]").unwrap().check(&json!(null)));
        assert!(Type::parse("Table").unwrap().check(&json!({"header": []})));
        assert!(Type::parse("List[").is_err());
    }

    /// A registered name checks values as its definition, shows as its name, may use other
    /// registered names, and may not refer to itself; unregistered names stay dict-like.
    #[test]
    fn registered_types_check_as_their_definition() {
        register_type("TestTurnT53", "Dict[str, Any]").unwrap();
        register_type("TestDialogT53", "List[TestTurnT53]").unwrap();
        let t = Type::parse("TestDialogT53").unwrap();
        assert_eq!(t.to_string(), "TestDialogT53");
        assert!(t.check(&json!([{"role": "user", "content": "hi"}])));
        assert!(!t.check(&json!({"role": "user"})));
        assert!(!t.check(&json!(["text"])));
        register_type("TestSelfT53", "List[TestSelfT53]").unwrap();
        assert!(Type::parse("TestSelfT53").unwrap_err().to_string().contains("refers to itself"));
        assert!(register_type("TestBadT53", "List[").is_err());
        assert!(Type::parse("NotRegisteredT53").unwrap().check(&json!({})));
    }

    #[test]
    fn packs_fields_and_checks_types() {
        let task = Task::from_json(&json!({
            "__type__": "task",
            "input_fields": {"text": "str"},
            "reference_fields": {"label": "int"},
            "metrics": ["metrics.accuracy"]
        }), &crate::registry::context(&std::sync::Arc::new(crate::catalog::Catalog::new(vec![]))))
        .unwrap();
        let inst = json!({"text": "hi", "label": 1, "data_classification_policy": ["public"]});
        let out = task.process_instance(inst.as_object().unwrap().clone(), "test").unwrap();
        assert_eq!(
            Value::Object(out),
            json!({"input_fields": {"text": "hi"}, "metrics": ["metrics.accuracy"],
                   "data_classification_policy": ["public"], "media": {}, "recipe_metadata": {},
                   "reference_fields": {"label": 1}})
        );
        let bad = json!({"text": "hi", "label": "x"});
        let e = task.process_instance(bad.as_object().unwrap().clone(), "test").unwrap_err();
        assert!(e.message.contains("field \"label\""), "{e}");
    }

    /// Fields handed over as `fixed` give the output a `set` of the same constants gives,
    /// and a task that would carry one of them does not take them.
    #[test]
    fn fixed_fields_act_as_set() {
        let task = Task::from_json(&json!({
            "__type__": "task",
            "input_fields": {"text": "str", "classes": "List[str]"},
            "reference_fields": {"label": "str", "classes": "List[str]"},
            "metrics": ["metrics.accuracy"]
        }), &crate::registry::context(&std::sync::Arc::new(crate::catalog::Catalog::new(vec![]))))
        .unwrap();
        let obj = |v: Value| v.as_object().unwrap().clone();
        let fixed = obj(json!({"classes": ["a", "b"], "unused": 1}));
        let inst = obj(json!({"text": "hi", "label": "a", "classes": ["stale"]}));
        let mut set = inst.clone();
        for (k, v) in &fixed {
            set.insert(k.clone(), v.clone());
        }
        let planned_fixed = task.fix(fixed.clone()).expect("fixable");
        let planned = task.process(inst.clone(), &planned_fixed).unwrap();
        assert_eq!(planned, task.process(set, &Fixed::default()).unwrap());
        assert_eq!(planned["input_fields"], json!({"text": "hi", "classes": ["a", "b"]}));
        assert!(task.fix(obj(json!({"classes": "a"}))).is_none(), "wrong type");
        assert!(task.fix(obj(json!({"recipe_metadata": {}}))).is_none(), "carried");
        // A missing field's error lists the fixed fields with the instance's.
        let e = task.process(obj(json!({"text": "hi"})), &planned_fixed).unwrap_err();
        assert!(e.message.contains(r#"field "label""#) && e.message.contains(r#""classes""#) && e.message.contains(r#""unused""#), "{e}");
    }
}

impl crate::artifact::ArtifactKind for Task {
    const KIND: &'static str = "task";
}
