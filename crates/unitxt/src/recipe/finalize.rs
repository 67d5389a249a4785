//! The last step of a recipe (Unitxt's `FinalizeDataset` in `schema.py`): the output instance
//! with exactly the output fields, and its `task_data` dict (input fields, metadata, reference
//! fields, demos) as Python's `json.dumps` writes it.
//!
//! One writer ([`Parts::write`]) writes every `task_data` dict, an instance's and a demo's,
//! item by item straight into the form asked for (text, or the inside of a JSON Lines string),
//! whatever the names of the fields: no map of the dict is built for it. A demo rendered by the
//! demos pool ([`RenderedDemo`]) has its dict written once, by the same writer, and copied
//! into each instance that uses it. This module reads nothing of `demos.rs`, which builds
//! [`RenderedDemo`]s.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::py::dict_path::dict_get;
use crate::py::json::{dumps, write_value, DictWriter, DumpOptions, InJsonString, PyJsonOut};
use crate::value::{Instance, Key, Shared, Value};

/// The fields of a prepared instance, in the order we write them.
pub const OUTPUT_FIELDS: &[&str] = &[
    "source", "target", "references", "metrics", "groups", "subset", "media", "postprocessors", "task_data",
    "data_classification_policy",
];

fn take_obj(inst: &mut Instance, k: &str) -> Result<crate::value::Map> {
    match inst.swap_remove(k) {
        Some(Value::Object(m)) => Ok(m),
        _ => Err(Error::invalid(format!("instance has no {k:?} dict"))),
    }
}

/// What `task_data.metadata` holds of the recipe, after the instance's
/// `data_classification_policy` (Unitxt keeps these in `recipe_metadata`).
#[derive(Debug, Clone)]
pub struct RecipeMeta<'p> {
    /// The number of demos of this instance.
    pub num_demos: Value,
    /// `demos_pool_size` (0 without demos, `null` when unset).
    pub demos_pool_size: Value,
    /// The template used, as its catalog name or its definition.
    pub template: Value,
    /// The three items above as written text, when the recipe made it once for all its
    /// instances (see [`MetadataText`]); `None`: written per instance.
    pub written: Option<&'p MetadataText>,
}

impl RecipeMeta<'_> {
    /// The three items, keyed as in the `metadata` dict and in the order they are set there.
    fn items(&self) -> [(&'static str, &Value); 3] {
        [("num_demos", &self.num_demos), ("demos_pool_size", &self.demos_pool_size), ("template", &self.template)]
    }
}

/// The `"num_demos": .., "demos_pool_size": .., "template": ..` items of a `task_data`
/// `metadata` dict, written once per recipe (per template) when they are the same for every
/// instance, in both forms a `task_data` dict is written in (see [`PyJsonOut::pre_written`]).
#[derive(Debug, Clone)]
pub struct MetadataText(ItemsText);

impl MetadataText {
    /// The items of `meta` (its `written` is not read).
    pub fn new(meta: &RecipeMeta<'_>) -> MetadataText {
        MetadataText(ItemsText::new(|w| write_recipe_items(w, meta)))
    }
}

/// A piece of `json.dumps` text written ahead, in both forms an output takes it in: as text,
/// and escaped as the inside of a JSON string (see [`PyJsonOut::pre_written`]).
#[derive(Debug, Clone)]
struct Written {
    text: String,
    escaped: Vec<u8>,
}

impl Written {
    /// What `write` writes, in both forms.
    fn new(write: impl Fn(&mut dyn PyJsonOut)) -> Written {
        let mut text = String::new();
        write(&mut text);
        let mut escaped = Vec::new();
        write(&mut InJsonString(&mut escaped));
        Written { text, escaped }
    }

    /// Copies the piece into `out`, in the form `out` takes.
    fn write_into<O: PyJsonOut + ?Sized>(&self, out: &mut O) {
        out.pre_written(&self.text, &self.escaped);
    }
}

/// Items of a `task_data` dict written ahead, `"key": value, ...` without the braces.
#[derive(Debug, Clone)]
struct ItemsText(Written);

impl ItemsText {
    /// The items `write` writes into a dict.
    fn new(write: impl Fn(&mut DictWriter<'_, dyn PyJsonOut + '_>)) -> ItemsText {
        let Written { text, escaped } = Written::new(|out| write(&mut DictWriter::begin(out)));
        // Without the dict's `{`, which the dict they go into writes.
        ItemsText(Written { text: text[1..].to_string(), escaped: escaped[1..].to_vec() })
    }

    /// Writes the items into `w`.
    fn write_into<O: PyJsonOut + ?Sized>(&self, w: &mut DictWriter<'_, O>) {
        w.pre_written(&self.0.text, &self.0.escaped);
    }
}

/// The parts of one `task_data` dict, moved out of an instance or demo: Unitxt builds it as
/// `{**input_fields, "metadata": {...}, **reference_fields}`, then sets `__tools__` (plus
/// `demos` for an instance).
#[derive(Debug, Clone)]
struct Parts {
    input: Instance,
    /// The `data_classification_policy` of the dict; `None` for an instance's own dict, whose
    /// policy is the output instance's (read from there when the dict is written, instead of
    /// copied for it).
    policy: Option<Value>,
    refs: Instance,
    /// The instance's `__tools__` (the tools a `tools_serializer` collected while the template
    /// rendered it, in the chat-completion form `{"type": "function", "function": tool}`),
    /// which Unitxt's `Finalize` copies into `task_data`; `None` when it has none.
    tools: Option<Value>,
}

impl Parts {
    /// A demo's parts, its policy copied (`null` when it has none). Errors when its
    /// `input_fields` or `reference_fields` is missing or not a dict.
    fn take(inst: &mut Instance) -> Result<Parts> {
        let (input, refs) = (take_obj(inst, "input_fields")?, take_obj(inst, "reference_fields")?);
        let tools = inst.swap_remove("__tools__");
        Ok(Parts { input, policy: Some(inst.get("data_classification_policy").cloned().unwrap_or_default()), refs, tools })
    }

    /// Writes the dict, as Python's `{**input_fields, "metadata": {...}, **reference_fields}`
    /// merges it, then `demos` (when given) set on it: a key keeps the place where it first
    /// comes and takes the value it gets last. So a reference field named like an input field
    /// is written at the input field's place; `metadata` comes at an input field's place of
    /// that name, else after the input fields, holding a reference field of that name when
    /// there is one (the recipe's items set into it when it is a dict), else the dict's own
    /// policy (or `own_policy`, the instance's, when the parts hold none) and the recipe's
    /// items; `__tools__` (when the parts hold tools) replaces a field of that name in place, or
    /// comes after the reference fields; `demos` replaces a field of that name in place, or
    /// comes last. `fixed` are
    /// items planned per position of the input and reference fields ([`FixedItems`]).
    fn write<O: PyJsonOut + ?Sized>(
        &self,
        own_policy: &Value,
        recipe: Option<&RecipeMeta<'_>>,
        fixed: Option<&FixedItems>,
        demos: Option<&Demos>,
        out: &mut O,
    ) {
        let mut w = DictWriter::begin(out);
        // One lookup per reference field (there are few): whether any is also an input field.
        // Usually none is, and the input fields are written without looking each one up.
        let shared = self.refs.keys().any(|k| self.input.contains_key(k));
        // The keys whose value the merge sets (`metadata`, and `demos` when the dict has
        // demos); usually no field is named so, and no field is checked again.
        let set_by_merge = |k: &str| k == "metadata" || (demos.is_some() && k == "demos");
        let special = self.input.keys().any(|k| set_by_merge(k)) || self.refs.keys().any(|k| set_by_merge(k));
        let fixed = fixed.filter(|f| !f.is_empty());
        let (mut metadata_placed, mut demos_placed) = (false, false);
        // Tools replace a field named `__tools__` in its place (there is seldom such a field).
        let tools_in_fields = self.tools.is_some() && (self.input.contains_key("__tools__") || self.refs.contains_key("__tools__"));
        for (i, (k, v)) in self.input.iter().enumerate() {
            if tools_in_fields && k.as_str() == "__tools__" {
                w.item(k, self.tools.as_ref().unwrap_or(v));
                continue;
            }
            if special && set_by_merge(k) {
                if k.as_str() == "metadata" {
                    self.write_metadata(w.plain_key("metadata"), own_policy, recipe);
                    metadata_placed = true;
                } else if let Some(d) = demos {
                    d.write(w.plain_key("demos"));
                    demos_placed = true;
                }
                continue;
            }
            // A reference field's value at an input field's place is not the planned one.
            let (v, planned) = match if shared { self.refs.get(k) } else { None } {
                Some(r) => (r, None),
                None => (v, fixed.and_then(|f| f.input.get(i))),
            };
            write_item(&mut w, planned, k, v);
        }
        if special && !metadata_placed {
            self.write_metadata(w.plain_key("metadata"), own_policy, recipe);
        } else if !special {
            write_own_metadata(w.plain_key("metadata"), self.policy.as_ref().unwrap_or(own_policy), recipe);
        }
        for (i, (k, v)) in self.refs.iter().enumerate() {
            if shared && self.input.contains_key(k) {
                continue;
            }
            if tools_in_fields && k.as_str() == "__tools__" {
                w.item(k, self.tools.as_ref().unwrap_or(v));
                continue;
            }
            if special && set_by_merge(k) {
                // `metadata` is already in its place.
                if let (Some(d), "demos") = (demos, k.as_str()) {
                    d.write(w.plain_key("demos"));
                    demos_placed = true;
                }
                continue;
            }
            write_item(&mut w, fixed.and_then(|f| f.refs.get(i)), k, v);
        }
        if let (Some(t), false) = (&self.tools, tools_in_fields) {
            w.plain_item("__tools__", t);
        }
        if let (Some(d), false) = (demos, demos_placed) {
            d.write(w.plain_key("demos"));
        }
        w.end();
    }

    /// Writes the value of the dict's `metadata` key (see [`Parts::write`]) when some field may
    /// be named `metadata`.
    fn write_metadata<O: PyJsonOut + ?Sized>(&self, out: &mut O, own_policy: &Value, recipe: Option<&RecipeMeta<'_>>) {
        match (self.refs.get("metadata"), recipe) {
            (None, _) => write_own_metadata(out, self.policy.as_ref().unwrap_or(own_policy), recipe),
            (Some(Value::Object(m)), Some(r)) => {
                let items = r.items();
                let recipe_value = |k: &str| items.iter().find(|(name, _)| *name == k).map(|(_, v)| *v);
                let mut d = DictWriter::begin(out);
                for (k, v) in m {
                    d.item(k, recipe_value(k).unwrap_or(v));
                }
                for (k, v) in items {
                    if !m.contains_key(k) {
                        d.plain_item(k, v);
                    }
                }
                d.end();
            }
            (Some(v), _) => write_value(v, &DumpOptions::default(), 0, out),
        }
    }

    /// The dict [`Parts::write`] writes, as a map (for `group_by` lookups).
    fn to_map(&self, own_policy: &Value, recipe: Option<&RecipeMeta<'_>>, demos: Option<&Demos>) -> Instance {
        let mut td = self.input.clone();
        let mut meta = Instance::with_capacity(4);
        meta.insert(Key::const_new("data_classification_policy"), self.policy.as_ref().unwrap_or(own_policy).clone());
        td.insert("metadata".into(), Value::Object(meta));
        td.extend(self.refs.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(t) = &self.tools {
            td.insert("__tools__".into(), t.clone());
        }
        if let (Some(r), Some(Value::Object(meta))) = (recipe, td.get_mut("metadata")) {
            for (k, v) in r.items() {
                meta.insert(k.into(), v.clone());
            }
        }
        if let Some(d) = demos {
            td.insert("demos".into(), d.to_value());
        }
        td
    }
}

/// A demo as a template rendered it (for a demo of the demos pool, rendered once and kept for
/// every instance that uses it): what formats read of it, and its `task_data` dict (its input
/// fields, policy and reference fields) written once by [`Parts::write`].
#[derive(Debug)]
pub struct RenderedDemo {
    /// The rendering reduced to the fields formats read: the copy that goes into an
    /// instance's `demos` field.
    pub format_view: Instance,
    parts: Parts,
    task_data: Written,
}

impl RenderedDemo {
    /// The demo rendered as `fields`: its `input_fields`, `reference_fields` and
    /// `data_classification_policy` make its `task_data` dict, and the fields named in
    /// `format_fields` are kept as [`RenderedDemo::format_view`]. Errors when `input_fields`
    /// or `reference_fields` is missing or not a dict.
    pub fn new(mut fields: Instance, format_fields: &[&str]) -> Result<RenderedDemo> {
        let parts = Parts::take(&mut fields)?;
        fields.retain(|k, _| format_fields.contains(&k.as_str()));
        let task_data = Written::new(|out| parts.write(&Value::Null, None, None, None, out));
        Ok(RenderedDemo { format_view: fields, parts, task_data })
    }
}

/// The demos of an instance's `task_data` dict.
#[derive(Debug, Clone)]
enum Demos {
    /// Rendered by the demos pool: each dict is copied from its text.
    Rendered(Vec<Arc<RenderedDemo>>),
    /// From the instance's own `demos` field: each dict is written from its parts.
    Listed(Vec<Parts>),
}

impl Demos {
    /// Writes the list of the demos' dicts.
    fn write<O: PyJsonOut + ?Sized>(&self, out: &mut O) {
        out.plain("[");
        match self {
            Demos::Rendered(list) => {
                for (i, d) in list.iter().enumerate() {
                    if i > 0 {
                        out.plain(", ");
                    }
                    d.task_data.write_into(out);
                }
            }
            Demos::Listed(list) => {
                for (i, d) in list.iter().enumerate() {
                    if i > 0 {
                        out.plain(", ");
                    }
                    d.write(&Value::Null, None, None, None, out);
                }
            }
        }
        out.plain("]");
    }

    /// The list of the demos' dicts as maps (for `group_by` lookups).
    fn to_value(&self) -> Value {
        let map = |p: &Parts| Value::Object(p.to_map(&Value::Null, None, None));
        Value::Array(match self {
            Demos::Rendered(list) => list.iter().map(|d| map(&d.parts)).collect(),
            Demos::Listed(list) => list.iter().map(map).collect(),
        })
    }
}

/// An instance's `task_data` dict, held as its parts and written (by [`Parts::write`]) only
/// when asked for, straight into the form asked for. The parts take the policy of the output
/// instance that holds them (see [`Parts::policy`]).
#[derive(Debug, Clone)]
struct TaskData<'p> {
    parts: Parts,
    recipe: RecipeMeta<'p>,
    fixed: Option<&'p FixedItems>,
    demos: Option<Demos>,
}

impl TaskData<'_> {
    /// Writes the dict into `out`; `policy` is the output instance's.
    fn write<O: PyJsonOut + ?Sized>(&self, policy: &Value, out: &mut O) {
        self.parts.write(policy, Some(&self.recipe), self.fixed, self.demos.as_ref(), out);
    }

    /// The dict as text; `policy` is the output instance's.
    fn text(&self, policy: &Value) -> String {
        let mut s = String::with_capacity(512);
        self.write(policy, &mut s);
        s
    }

    /// Unitxt's `groups`: for each entry of `group_by` (a field path, or a list of them), the
    /// JSON text of the dict of those paths' values, read in the `task_data` dict with its
    /// `metadata` items merged in at the top. Errors: an entry is neither, or a path matches
    /// nothing.
    fn groups(&self, policy: &Value, group_by: &[Value]) -> Result<Vec<Value>> {
        let mut data = self.parts.to_map(policy, Some(&self.recipe), self.demos.as_ref());
        if let Some(Value::Object(meta)) = data.get("metadata").cloned() {
            data.extend(meta);
        }
        let mut groups = Vec::with_capacity(group_by.len());
        for g in group_by {
            let attrs: Vec<String> = match g {
                Value::String(s) => vec![s.as_str().to_owned()],
                Value::Array(a) => a.iter().map(|x| x.as_str().unwrap_or_default().to_string()).collect(),
                other => return Err(Error::invalid(format!("group_by entries must be strings or lists, got {other}"))),
            };
            let mut group = Instance::new();
            for a in attrs {
                let v = dict_get(&data, &a)?.into_owned();
                group.insert(a.into(), v);
            }
            groups.push(Value::String(dumps(&Value::Object(group), DumpOptions::default()).into()));
        }
        Ok(groups)
    }
}

/// Whether `a` and `b` are written as the same JSON: only for `null`, booleans, numbers (of
/// the same kind: `1` and `1.0` differ), strings and lists of these; `false` for dicts, whose
/// equality ignores key order.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        // `serde_json::Number` equality keeps integers and floats apart.
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(x), Value::String(y)) => crate::value::json::same_str(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b)),
        _ => false,
    }
}

/// The `task_data` items of a split's fixed fields (a card's constants, see
/// [`crate::task::Fixed`]), written once when the split's plan is made, at the positions of
/// the task's input and reference fields: an instance's item at that position with the same
/// key and the same value (as JSON, see `same_json`) is copied from here instead of being written (and
/// escaped) again. Fields whose values cannot be compared so (dicts) are left out.
#[derive(Debug, Default)]
pub struct FixedItems {
    input: Vec<Option<FixedItem>>,
    refs: Vec<Option<FixedItem>>,
}

#[derive(Debug)]
struct FixedItem {
    key: Key,
    value: Value,
    item: ItemsText,
}

impl FixedItem {
    /// The item `k: v`, when `v` can be compared with [`same_json`].
    fn new(k: &str, v: &Value) -> Option<FixedItem> {
        if !same_json(v, v) {
            return None;
        }
        Some(FixedItem { key: k.into(), value: v.clone(), item: ItemsText::new(|w| w.item(k, v)) })
    }
}

impl FixedItems {
    /// The items of the fixed fields among `input` and `refs`, the task's input and
    /// reference fields in order, each with its fixed value if it has one.
    pub fn new<'a>(
        input: impl Iterator<Item = (&'a str, Option<&'a Value>)>,
        refs: impl Iterator<Item = (&'a str, Option<&'a Value>)>,
    ) -> FixedItems {
        let items = |fields: &mut dyn Iterator<Item = (&'a str, Option<&'a Value>)>| -> Vec<Option<FixedItem>> {
            fields.map(|(k, v)| v.and_then(|v| FixedItem::new(k, v))).collect()
        };
        let (input, refs) = (items(&mut { input }), items(&mut { refs }));
        if input.iter().chain(&refs).all(Option::is_none) {
            return FixedItems::default();
        }
        FixedItems { input, refs }
    }

    /// Whether no item is fixed.
    fn is_empty(&self) -> bool {
        self.input.is_empty() && self.refs.is_empty()
    }
}

/// Writes item `k: v` into `w`, copied from `fixed` (the item planned at its position) when
/// that has the same key and value.
fn write_item<O: PyJsonOut + ?Sized>(w: &mut DictWriter<'_, O>, fixed: Option<&Option<FixedItem>>, k: &Key, v: &Value) {
    match fixed.and_then(Option::as_ref) {
        Some(f) if crate::value::json::same_str(&f.key, k) && same_json(&f.value, v) => f.item.write_into(w),
        _ => w.item(k, v),
    }
}

/// Writes a `task_data` dict's own `metadata` dict: the policy, then the recipe's items when
/// given (copied from their text when the recipe wrote them once, [`RecipeMeta::written`]).
fn write_own_metadata<O: PyJsonOut + ?Sized>(out: &mut O, policy: &Value, recipe: Option<&RecipeMeta<'_>>) {
    let mut m = DictWriter::begin(out);
    m.plain_item("data_classification_policy", policy);
    match recipe {
        Some(RecipeMeta { written: Some(t), .. }) => t.0.write_into(&mut m),
        Some(r) => write_recipe_items(&mut m, r),
        None => {}
    }
    m.end();
}

/// The recipe's `num_demos`, `demos_pool_size` and `template` items of a `metadata` dict.
fn write_recipe_items<O: PyJsonOut + ?Sized>(m: &mut DictWriter<'_, O>, r: &RecipeMeta<'_>) {
    for (k, v) in r.items() {
        m.plain_item(k, v);
    }
}

/// What the template, the system prompt and the format made of an instance, for
/// [`finalize`].
#[derive(Debug, Clone)]
pub struct Verbalized<'p> {
    /// The model input (`source`).
    pub source: Value,
    /// The instance's `input_fields` (values, not their texts); `None` when it has none.
    pub input_fields: Option<Instance>,
    /// The instance's `reference_fields`; `None` when it has none.
    pub reference_fields: Option<Instance>,
    /// The `target` text (a string); `None` when there is none.
    pub target: Option<Value>,
    /// The `references` texts (a list of strings); `None` when there are none.
    pub references: Option<Value>,
    /// The postprocessor names (a list of strings); `None` when there are none.
    pub postprocessors: Option<Shared<'p>>,
    /// The metric names (a list of strings).
    pub metrics: Shared<'p>,
    /// The `task_data` items of the split's fixed fields, written once (none: every item is
    /// written per instance).
    pub fixed_items: Option<&'p FixedItems>,
}

/// Finalizes one verbalized instance (Unitxt's `FinalizeDataset`): the output instance with
/// [`OUTPUT_FIELDS`], from `v` and what is left of the instance `inst` (its
/// `data_classification_policy`, `media` and `demos`; the rest is dropped). `task_data` is
/// kept as its parts, written when the output instance is (see `Parts::write` in this module).
///
/// `pool_demos`, when given, are the instance's demos as rendered by the demos pool (its
/// `demos` field then holds only what formats read): their `task_data` dicts are copied from
/// the text each holds. Errors: `v` lacks the input or reference fields, `target`,
/// `references` or `postprocessors`, or the instance lacks its policy; a demo of its `demos`
/// field is not a dict or lacks its fields; a `group_by` field is missing.
pub fn finalize<'p>(
    mut inst: Instance,
    mut v: Verbalized<'p>,
    group_by: &[Value],
    recipe: RecipeMeta<'p>,
    pool_demos: Option<Vec<Arc<RenderedDemo>>>,
) -> Result<OutputInstance<'p>> {
    let missing = |k: &str| Error::invalid(format!("instance has no {k:?} dict"));
    let input = v.input_fields.take().ok_or_else(|| missing("input_fields"))?;
    let refs = v.reference_fields.take().ok_or_else(|| missing("reference_fields"))?;
    let in_field = inst.swap_remove("demos");
    let demos = match (pool_demos, in_field) {
        (Some(pool), _) => Some(Demos::Rendered(pool)),
        (None, Some(Value::Array(list))) => {
            let mut out = Vec::with_capacity(list.len());
            for d in list {
                let Value::Object(mut d) = d else { return Err(Error::invalid("a demo is not a dict")) };
                out.push(Parts::take(&mut d)?);
            }
            Some(Demos::Listed(out))
        }
        (None, _) => None,
    };
    let tools = inst.swap_remove("__tools__");
    let task_data = TaskData { parts: Parts { input, policy: None, refs, tools }, recipe, fixed: v.fixed_items, demos };
    let groups = match group_by {
        [] => Vec::new(),
        _ => task_data.groups(inst.get("data_classification_policy").unwrap_or(&Value::Null), group_by)?,
    };
    output_instance(inst, Box::new(task_data), groups, v)
}

/// A `metrics` or `postprocessors` list with its inline artifacts (objects with `__type__`)
/// written as their JSON text (4-space indent, non-ASCII kept), as Unitxt's `Finalize` writes
/// them (`Artifact.to_json`; a user's Python component as its class, see
/// [`crate::artifact::unitxt_form`]); names stay as they are. A list without objects is kept as is.
fn artifacts_as_json(list: Shared<'_>) -> Shared<'_> {
    let has_object = matches!(&*list, Value::Array(a) if a.iter().any(|x| matches!(x, Value::Object(_))));
    if !has_object {
        return list;
    }
    let opts = DumpOptions { ensure_ascii: false, sort_keys: false, indent: Some(4) };
    match list.into_value() {
        Value::Array(a) => Shared::Own(Value::Array(
            a.into_iter()
                .map(|x| match x {
                    Value::Object(_) => Value::String(dumps(&crate::artifact::unitxt_form(&x), opts).into()),
                    other => other,
                })
                .collect(),
        )),
        other => Shared::Own(other),
    }
}

/// A `source` text that is a chat written as JSON (it starts with `[{"role":` or
/// `[{"content":`, as the text a format without chat support makes of a multi-turn template's
/// turns) as that list of messages: Unitxt's datasets read such a source back as a chat when
/// loaded (`loads_instance`). Any other source, or text that is not valid JSON, stays.
fn chat_source(source: Value) -> Value {
    let parsed = match &source {
        Value::String(s) if s.starts_with("[{\"role\":") || s.starts_with("[{\"content\":") => crate::py::json::loads(s, true).ok(),
        _ => None,
    };
    parsed.unwrap_or(source)
}

/// The output instance from `v` (its input and reference fields taken for `task_data`) and
/// what is left of the instance (its policy and media; the rest is dropped).
fn output_instance<'p>(mut inst: Instance, task_data: Box<TaskData<'p>>, groups: Vec<Value>, v: Verbalized<'p>) -> Result<OutputInstance<'p>> {
    let field = |k: &str| Error::invalid(format!("the finished instance has no {k:?} field"));
    let data_classification_policy = inst.swap_remove("data_classification_policy").ok_or_else(|| field("data_classification_policy"))?;
    let target = v.target.ok_or_else(|| field("target"))?;
    let references = v.references.ok_or_else(|| field("references"))?;
    let postprocessors = artifacts_as_json(v.postprocessors.ok_or_else(|| field("postprocessors"))?);
    let mut media = match inst.swap_remove("media") {
        Some(Value::Object(m)) => m,
        _ => Instance::new(),
    };
    Ok(OutputInstance {
        source: chat_source(v.source),
        target,
        references,
        metrics: artifacts_as_json(v.metrics),
        groups,
        subset: Vec::new(),
        images: media.swap_remove("images").unwrap_or_else(|| Value::Array(vec![])),
        audios: media.swap_remove("audios").unwrap_or_else(|| Value::Array(vec![])),
        postprocessors,
        task_data,
        data_classification_policy,
    })
}

/// A finished instance: the values of [`OUTPUT_FIELDS`] (`subset` is empty but in benchmarks, `media` is
/// `{"images": ..., "audios": ...}`). It becomes a map ([`OutputInstance::into_instance`]) or
/// a JSON Lines line ([`OutputInstance::write_json`]) without building the map.
#[derive(Clone)]
pub struct OutputInstance<'p> {
    /// The model input the format built (a string).
    pub source: Value,
    /// The rendered target (a string).
    pub target: Value,
    /// The rendered references (a list of strings).
    pub references: Value,
    /// The metric names (a list), usually lent by the recipe.
    pub metrics: Shared<'p>,
    /// Each group as the JSON text of its dict (empty without `group_by`).
    pub groups: Vec<Value>,
    /// The names of the benchmark subsets the instance comes through, outermost first (strings;
    /// empty outside a benchmark).
    pub subset: Vec<Value>,
    /// `media.images` (a list, empty when the instance has none).
    pub images: Value,
    /// `media.audios` (a list, empty when the instance has none).
    pub audios: Value,
    /// The postprocessor names (a list), usually lent by the template.
    pub postprocessors: Shared<'p>,
    /// The parts of the `task_data` dict, written when asked for
    /// ([`OutputInstance::task_data`]).
    task_data: Box<TaskData<'p>>,
    /// The instance's data classification policy (a list, or `null`); `task_data` reads it
    /// (see [`Parts::policy`]), so it is not changed once finished.
    data_classification_policy: Value,
}

impl std::fmt::Debug for OutputInstance<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputInstance")
            .field("source", &self.source)
            .field("target", &self.target)
            .field("references", &self.references)
            .field("metrics", &*self.metrics)
            .field("groups", &self.groups)
            .field("subset", &self.subset)
            .field("images", &self.images)
            .field("audios", &self.audios)
            .field("postprocessors", &*self.postprocessors)
            .field("task_data", &self.task_data())
            .field("data_classification_policy", &self.data_classification_policy)
            .finish()
    }
}

impl OutputInstance<'_> {
    /// The instance as a map with exactly [`OUTPUT_FIELDS`], in that order.
    pub fn into_instance(self) -> Instance {
        let task_data = self.task_data();
        let mut out = Instance::with_capacity(OUTPUT_FIELDS.len());
        let mut media = Instance::with_capacity(2);
        media.insert("images".into(), self.images);
        media.insert("audios".into(), self.audios);
        out.insert("source".into(), self.source);
        out.insert("target".into(), self.target);
        out.insert("references".into(), self.references);
        out.insert("metrics".into(), self.metrics.into_value());
        out.insert("groups".into(), Value::Array(self.groups));
        out.insert("subset".into(), Value::Array(self.subset));
        out.insert("media".into(), Value::Object(media));
        out.insert("postprocessors".into(), self.postprocessors.into_value());
        out.insert("task_data".into(), Value::String(task_data.into()));
        out.insert(Key::const_new("data_classification_policy"), self.data_classification_policy);
        out
    }

    /// Appends the instance as compact JSON, the same bytes as
    /// [`crate::value::json_lines::write_object`] of [`OutputInstance::into_instance`].
    pub fn write_json(&self, out: &mut Vec<u8>) {
        use crate::value::json_lines::{write_array, write_value};
        let head: [(&[u8], &Value); 3] = [
            (b"{\"source\":", &self.source),
            (b",\"target\":", &self.target),
            (b",\"references\":", &self.references),
        ];
        for (key, v) in head {
            out.extend_from_slice(key);
            write_value(v, out);
        }
        out.extend_from_slice(b",\"metrics\":");
        self.metrics.write_json(out);
        out.extend_from_slice(b",\"groups\":");
        write_array(&self.groups, out);
        out.extend_from_slice(b",\"subset\":");
        write_array(&self.subset, out);
        out.extend_from_slice(b",\"media\":{\"images\":");
        write_value(&self.images, out);
        out.extend_from_slice(b",\"audios\":");
        write_value(&self.audios, out);
        out.extend_from_slice(b"},\"postprocessors\":");
        self.postprocessors.write_json(out);
        out.extend_from_slice(b",\"task_data\":\"");
        self.task_data.write(&self.data_classification_policy, &mut InJsonString(out));
        out.extend_from_slice(b"\",\"data_classification_policy\":");
        write_value(&self.data_classification_policy, out);
        out.push(b'}');
    }

    /// The instance's data classification policy (a list, or `null`).
    pub fn data_classification_policy(&self) -> &Value {
        &self.data_classification_policy
    }

    /// The `task_data` dict as Python's `json.dumps` writes it.
    pub fn task_data(&self) -> String {
        self.task_data.text(&self.data_classification_policy)
    }

    /// Appends the `task_data` dict as Python's `json.dumps` writes it to `out` (the text of
    /// [`OutputInstance::task_data`], written in place).
    pub fn write_task_data(&self, out: &mut String) {
        self.task_data.write(&self.data_classification_policy, out);
    }

    /// The instance as one JSON Lines line (its JSON and `\n`).
    pub fn json_line(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(1024);
        self.write_json(&mut out);
        out.push(b'\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn verbalized(input: Value, refs: Value, demos: Option<Value>) -> Instance {
        let mut v = json!({
            "input_fields": input, "reference_fields": refs, "data_classification_policy": ["public"],
            "source": "s", "target": "t", "references": ["t"], "metrics": [], "postprocessors": [],
        });
        if let Some(d) = demos {
            v["demos"] = d;
        }
        v.as_object().unwrap().clone()
    }

    fn meta() -> RecipeMeta<'static> {
        RecipeMeta { num_demos: json!(1), demos_pool_size: json!(5), template: json!("templates.x"), written: None }
    }

    /// [`finalize`] of an instance that holds what the template made (as
    /// [`crate::templates::Rendered::write_into`] writes it) and its `metrics`.
    fn finalize_instance<'a>(
        inst: Instance,
        group_by: &[Value],
        recipe: RecipeMeta<'a>,
        pool: Option<Vec<Arc<RenderedDemo>>>,
    ) -> Result<OutputInstance<'a>> {
        finalize_with(inst, group_by, recipe, pool, None)
    }

    /// [`finalize_instance`] with the split's fixed items.
    fn finalize_with<'a>(
        mut inst: Instance,
        group_by: &[Value],
        recipe: RecipeMeta<'a>,
        pool: Option<Vec<Arc<RenderedDemo>>>,
        fixed_items: Option<&'a FixedItems>,
    ) -> Result<OutputInstance<'a>> {
        let r = crate::templates::Rendered::taken_from(&mut inst).unwrap();
        let metrics = Shared::Own(inst.swap_remove("metrics").unwrap());
        let v = Verbalized {
            source: r.source,
            input_fields: r.input_fields,
            reference_fields: r.reference_fields,
            target: r.target,
            references: r.references,
            postprocessors: r.postprocessors,
            metrics,
            fixed_items,
        };
        finalize(inst, v, group_by, recipe, pool)
    }

    /// Items copied from a split's [`FixedItems`] give the text written per instance, in the
    /// JSON line as in the text; an item whose value differs in kind (`1.0` against `1`) or
    /// content is written as it is.
    #[test]
    fn fixed_items_match_items_written_per_instance() {
        let (c, n, d) = (json!(["a", "b\"q"]), json!(1), json!({"x": 1}));
        let fixed = FixedItems::new([("q", None), ("classes", Some(&c)), ("n", Some(&n)), ("d", Some(&d))].into_iter(), [("a", None)].into_iter());
        assert_eq!(fixed.input.iter().flatten().count(), 2, "the dict is left out");
        for input in [json!({"q": "x", "classes": ["a", "b\"q"], "n": 1}), json!({"q": "x", "classes": ["a"], "n": 1.0}), json!({"n": 1, "d": {"x": 1}})] {
            let texts: Vec<(String, String)> = [None, Some(&fixed)]
                .into_iter()
                .map(|f| {
                    let out = finalize_with(verbalized(input.clone(), json!({"a": "y"}), None), &[], meta(), None, f).unwrap();
                    (out.task_data(), String::from_utf8(out.json_line()).unwrap())
                })
                .collect();
            assert_eq!(texts[0], texts[1], "{input}");
        }
    }

    fn task_data(inst: Instance) -> String {
        finalize_instance(inst, &[], meta(), None).unwrap().task_data()
    }

    /// The `task_data` dict of `out` merged as a map ([`Parts::to_map`], as Python merges the
    /// dicts), written by `json.dumps`: what the writer must give.
    fn mapped(out: &OutputInstance<'_>) -> String {
        let td = &out.task_data;
        dumps(&Value::Object(td.parts.to_map(&out.data_classification_policy, Some(&td.recipe), td.demos.as_ref())), DumpOptions::default())
    }

    /// Fields named `metadata` or `demos` take the places Python's dict merge gives them, with
    /// the values it leaves there (texts printed by CPython 3.11 for the same dicts); the
    /// JSON line holds the same text.
    #[test]
    fn fields_named_metadata_or_demos_merge_as_python_dicts_do() {
        let demo = json!({"input_fields": {"q": "d"}, "reference_fields": {"metadata": "dm", "a": "e"}, "data_classification_policy": ["p"]});
        let cases = [
            (
                json!({"demos": 1, "metadata": "m", "x": 2}),
                json!({"metadata": {"template": "t0", "k": 1}, "demos": 5, "y": "é"}),
                r#"{"demos": [{"q": "d", "metadata": "dm", "a": "e"}], "metadata": {"template": "templates.x", "k": 1, "num_demos": 1, "demos_pool_size": 5}, "x": 2, "y": "\u00e9"}"#,
            ),
            (
                json!({"q": "x"}),
                json!({"a": "y", "demos": "own"}),
                r#"{"q": "x", "metadata": {"data_classification_policy": ["public"], "num_demos": 1, "demos_pool_size": 5, "template": "templates.x"}, "a": "y", "demos": [{"q": "d", "metadata": "dm", "a": "e"}]}"#,
            ),
        ];
        for (input, refs, expected) in cases {
            for pool in [false, true] {
                let out = if pool {
                    let rendered = Arc::new(RenderedDemo::new(demo.as_object().unwrap().clone(), &[]).unwrap());
                    finalize_instance(verbalized(input.clone(), refs.clone(), Some(json!([{}]))), &[], meta(), Some(vec![rendered])).unwrap()
                } else {
                    finalize_instance(verbalized(input.clone(), refs.clone(), Some(json!([demo.clone()]))), &[], meta(), None).unwrap()
                };
                assert_eq!(out.task_data(), expected);
                assert_eq!(mapped(&out), expected);
                let mut line = Vec::new();
                crate::value::json_lines::write_object(&out.clone().into_instance(), &mut line);
                line.push(b'\n');
                assert_eq!(String::from_utf8(out.json_line()).unwrap(), String::from_utf8(line).unwrap());
            }
        }
    }

    #[test]
    fn task_data_written_in_dict_merge_order() {
        let demo = json!({"input_fields": {"q": "d"}, "reference_fields": {"a": "e"}, "data_classification_policy": ["p"]});
        let inst = verbalized(json!({"q": "x", "n": 1.5}), json!({"a": "y"}), Some(json!([demo])));
        assert_eq!(
            task_data(inst),
            r#"{"q": "x", "n": 1.5, "metadata": {"data_classification_policy": ["public"], "num_demos": 1, "demos_pool_size": 5, "template": "templates.x"}, "a": "y", "demos": [{"q": "d", "metadata": {"data_classification_policy": ["p"]}, "a": "e"}]}"#
        );
    }

    /// The `metadata` dict: its recipe items written once ([`MetadataText`]) give the text
    /// written item by item, in the JSON line as in the text, whatever the policy, the kind of
    /// number (`1` against `1.0`) or the template (a dict keeps its own order).
    #[test]
    fn metadata_text_matches_items_written_per_instance() {
        let with = |policy: Value, num_demos: Value, template: Value| {
            let mut texts = Vec::new();
            for once in [false, true] {
                let mut inst = verbalized(json!({"q": "x"}), json!({"a": "y"}), None);
                inst.insert("data_classification_policy".into(), policy.clone());
                let mut recipe = RecipeMeta { num_demos: num_demos.clone(), demos_pool_size: json!(null), template: template.clone(), written: None };
                let written = MetadataText::new(&recipe);
                if once {
                    recipe.written = Some(&written);
                }
                let out = finalize_instance(inst, &[], recipe, None).unwrap();
                let text = out.task_data();
                let line = String::from_utf8(out.json_line()).unwrap();
                let in_line: Value = serde_json::from_str::<serde_json::Value>(&line).unwrap()["task_data"].as_str().unwrap().into();
                assert_eq!(in_line, Value::String(text.as_str().into()), "{line}");
                texts.push(text);
            }
            assert_eq!(texts[0], texts[1]);
            texts.pop().unwrap()
        };
        let meta = |body: &str| format!(r#"{{"q": "x", "metadata": {{{body}}}, "a": "y"}}"#);
        for _ in 0..2 {
            assert_eq!(
                with(json!(["public"]), json!(1), json!("t.a")),
                meta(r#""data_classification_policy": ["public"], "num_demos": 1, "demos_pool_size": null, "template": "t.a""#)
            );
        }
        assert_eq!(
            with(json!(["proprietary"]), json!(1), json!("t.a")),
            meta(r#""data_classification_policy": ["proprietary"], "num_demos": 1, "demos_pool_size": null, "template": "t.a""#)
        );
        assert_eq!(
            with(json!(["proprietary"]), json!(1.0), json!("t.a")),
            meta(r#""data_classification_policy": ["proprietary"], "num_demos": 1.0, "demos_pool_size": null, "template": "t.a""#)
        );
        assert_eq!(
            with(json!(["proprietary"]), json!(1.0), json!("t.\"b\"")),
            meta(r#""data_classification_policy": ["proprietary"], "num_demos": 1.0, "demos_pool_size": null, "template": "t.\"b\"""#)
        );
        // Equal dicts in another order are written in their own order.
        assert_eq!(
            with(json!(null), json!(0), json!({"x": 1, "y": 2})),
            meta(r#""data_classification_policy": null, "num_demos": 0, "demos_pool_size": null, "template": {"x": 1, "y": 2}"#)
        );
        assert_eq!(
            with(json!(null), json!(0), json!({"y": 2, "x": 1})),
            meta(r#""data_classification_policy": null, "num_demos": 0, "demos_pool_size": null, "template": {"y": 2, "x": 1}"#)
        );
    }

    #[test]
    fn colliding_keys_merge_as_python_dicts_do() {
        // {**input_fields, "metadata": ..., **reference_fields}: a reference field named like an
        // input field replaces its value in place.
        let inst = verbalized(json!({"a": 1, "b": 2}), json!({"b": 3, "c": 4}), None);
        assert_eq!(
            task_data(inst),
            r#"{"a": 1, "b": 3, "metadata": {"data_classification_policy": ["public"], "num_demos": 1, "demos_pool_size": 5, "template": "templates.x"}, "c": 4}"#
        );
        let inst = verbalized(json!({"metadata": "m", "b": 2}), json!({"c": 4}), None);
        assert_eq!(
            task_data(inst),
            r#"{"metadata": {"data_classification_policy": ["public"], "num_demos": 1, "demos_pool_size": 5, "template": "templates.x"}, "b": 2, "c": 4}"#
        );
    }

    #[test]
    fn json_line_is_the_map_written_as_json() {
        let mut inst = verbalized(json!({"q": "x \"quoted\"\n"}), json!({"a": "y"}), None);
        inst.insert("source".into(), json!("line one\nline \"two\" \u{1}"));
        inst.insert("media".into(), json!({"images": ["i.png"]}));
        let out = finalize_instance(inst, &[json!("q")], meta(), None).unwrap();
        assert_eq!(out.groups, vec![json!(r#"{"q": "x \"quoted\"\n"}"#)]);
        let line = out.json_line();
        let mut expected = Vec::new();
        crate::value::json_lines::write_object(&out.into_instance(), &mut expected);
        expected.push(b'\n');
        assert_eq!(String::from_utf8(line).unwrap(), String::from_utf8(expected).unwrap());
    }

    /// Demos handed over by the pool give the same `task_data` (and groups) as the same demos
    /// in the instance's `demos` field, with and without a `group_by`.
    #[test]
    fn pool_demos_match_demos_in_the_instance() {
        let demo = json!({"input_fields": {"q": "d \"x\" \\ é\n", "c": [1]}, "reference_fields": {"a": "e", "c": [2]},
                          "data_classification_policy": ["p"], "source": "ds", "target": "dt", "target_prefix": ""});
        let rendered = Arc::new(RenderedDemo::new(demo.as_object().unwrap().clone(), &["source"]).unwrap());
        assert_eq!(rendered.format_view, json!({"source": "ds"}).as_object().unwrap().clone());
        for group_by in [vec![], vec![json!("q")]] {
            let with_field = verbalized(json!({"q": "x", "c": [3]}), json!({"a": "y"}), Some(json!([demo.clone(), demo.clone()])));
            let with_pool = verbalized(json!({"q": "x", "c": [3]}), json!({"a": "y"}), Some(json!([{}, {}])));
            let a = finalize_instance(with_field, &group_by, meta(), None).unwrap();
            let b = finalize_instance(with_pool, &group_by, meta(), Some(vec![rendered.clone(), rendered.clone()])).unwrap();
            // The line copies the pool's escaped text of each demo dict; it is the map's line.
            assert_eq!(a.json_line(), b.json_line(), "group_by {group_by:?}");
            let mut expected = Vec::new();
            crate::value::json_lines::write_object(&b.clone().into_instance(), &mut expected);
            expected.push(b'\n');
            assert_eq!(String::from_utf8(b.json_line()).unwrap(), String::from_utf8(expected).unwrap());
            assert_eq!(b.task_data(), mapped(&b));
            assert_eq!((a.task_data(), &a.groups), (b.task_data(), &b.groups), "group_by {group_by:?}");
        }
    }

    /// Successive lines on one thread whose metrics, postprocessors and policy change (and
    /// repeat) are each the map written as JSON: the per-slot memo never copies a stale list,
    /// and `1` and `1.0` or a list holding a dict are written as themselves.
    #[test]
    fn repeated_lists_follow_their_changes() {
        let lists = [json!(["m.a", "m.b"]), json!(["m.a", "m.b"]), json!(["m.a"]), json!([1]), json!([1.0]),
                     json!([{"y": 1, "x": 2}]), json!([{"x": 2, "y": 1}]), json!(null), json!(["m.a", "m.b"])];
        for list in lists {
            let mut inst = verbalized(json!({"q": "x"}), json!({"a": "y"}), None);
            for field in ["metrics", "postprocessors", "data_classification_policy"] {
                inst.insert(field.into(), list.clone());
            }
            let out = finalize_instance(inst, &[], meta(), None).unwrap();
            let mut expected = Vec::new();
            crate::value::json_lines::write_object(&out.clone().into_instance(), &mut expected);
            expected.push(b'\n');
            assert_eq!(String::from_utf8(out.json_line()).unwrap(), String::from_utf8(expected).unwrap(), "{list}");
        }
    }

    /// Many instances on one thread, whose `task_data` items repeat, change every time,
    /// change now and then, change type (`1`, `1.0`), hold dicts, or change keys at a
    /// position: the dict written item by item (as text and inside the JSON line) is always
    /// the merged map written as JSON, with or without a `group_by`.
    #[test]
    fn task_data_items_follow_their_changes() {
        for i in 0..200 {
            let input = if i % 7 == 0 {
                json!({"other": "const", "k": "const", "t": format!("text {i}")})
            } else if i % 11 == 0 {
                // A field named by the empty string, at a position no dict had before.
                json!({"k": "const", "a2": 2, "a3": 3, "a4": 4, "a5": 5, "a6": 6, "a7": 7, "a8": 8, "": "empty"})
            } else {
                json!({"k": "const", "t": format!("text {i} \"q\" é\n"), "n": if i % 50 < 25 { json!(1) } else { json!(1.0) },
                       "r": if i < 100 { "a" } else { "b" }, "d": {"x": i % 2}, "l": ["neg", "pos"]})
            };
            let refs = json!({"label": if i % 3 == 0 { "neg" } else { "pos" }});
            let direct = finalize_instance(verbalized(input.clone(), refs.clone(), None), &[], meta(), None).unwrap();
            let grouped = finalize_instance(verbalized(input, refs, None), &[json!("k")], meta(), None).unwrap();
            assert_eq!(direct.task_data(), grouped.task_data(), "instance {i}");
            assert_eq!(direct.task_data(), mapped(&direct), "instance {i}");
            let mut expected = Vec::new();
            crate::value::json_lines::write_object(&direct.clone().into_instance(), &mut expected);
            expected.push(b'\n');
            assert_eq!(String::from_utf8(direct.json_line()).unwrap(), String::from_utf8(expected).unwrap(), "instance {i}");
        }
    }
}
