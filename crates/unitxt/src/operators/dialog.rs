//! Dialog operators (Unitxt's `dialog_operators.py`): `to_dialog`, `serialize_dialog` and
//! `serialize_open_ai_format_dialog`. A dialog is a list of turns; `serialize_dialog` reads
//! turns as dicts `{"user": ..., "system": ...}`, `to_dialog` and the OpenAI form use
//! `{"role": ..., "content": ...}` messages.

use serde::Deserialize;

use super::{FieldOperator, FieldSpec, InstanceOperator};
use crate::artifact::BuildContext;
use crate::error::{Error, Result, ResultExt};
use crate::py::dict_path::{dict_get_opt, dict_set_with};
use crate::py::ops::py_iter;
use crate::py::repr::{repr, str as py_str, type_name};
use crate::value::{Instance, Map, Value};

/// `to_dialog` (Unitxt's `ToDialog`): a list of `[question, answer]` pairs becomes the messages
/// `{"role": "user", "content": question}`, `{"role": "agent", "content": answer}`, in
/// order. Errors when the value or a pair is not iterable, or a pair does not have two items.
#[derive(Debug, Deserialize)]
pub struct ToDialog {}

impl FieldOperator for ToDialog {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let mut out = Vec::new();
        for pair in py_iter(&value)? {
            let items = py_iter(&pair)?;
            let [q, a]: [Value; 2] = items
                .try_into()
                .map_err(|v: Vec<Value>| Error::invalid(format!("to_dialog: a turn must unpack to 2 values (question, answer), got {}", v.len())))?;
            for (role, content) in [("user", q), ("agent", a)] {
                let mut m = Map::with_capacity(2);
                m.insert("role".into(), Value::from(role));
                m.insert("content".into(), content);
                out.push(Value::Object(m));
            }
        }
        Ok(Value::Array(out))
    }
}

fn space() -> String {
    " ".into()
}

fn yes() -> bool {
    true
}

/// SystemFormat's `demo_format` default.
const DEFAULT_DEMO_FORMAT: &str = "{source}\\N{target_prefix}{target}\n\n";

/// `serialize_dialog` (Unitxt's `SerializeDialog`): the turns at `field` (dicts with `user` and
/// `system`) become one text, each turn rendered with the format's `demo_format` in which
/// `{source}` is `{user}`, `{target}` is `{system}` and `{target_prefix}` is dropped (Python's
/// `str.format` over the turn's keys). With `slice_first_and_last_turns_format` (default), the
/// first turn's format starts at `{user}` and the last one's ends after `{system}`; with
/// `last_response_to_field`, the last turn's format also ends after `{user}` and that turn's
/// `system` goes to the top-level field `last_response_to_field`. The text starts with the
/// top-level field `context_field` and `context_separator` when a context field is named.
///
/// The format is `format` or else the recipe's (`recipe_metadata/format`, which a recipe
/// sets to its format's definition). Only a `system_format` has a `demo_format`; any other
/// format is an error, as in Unitxt. Errors too on a format without `{user}` or `{system}`
/// where it is sliced, a turn that is not a dict or lacks a placeholder's key, and an empty
/// dialog with `last_response_to_field`.
#[derive(Deserialize)]
pub struct SerializeDialog {
    /// `format`: the format whose `demo_format` renders the turns (absent: the recipe's): a
    /// catalog name or an inline format, replaced by the format's definition (its JSON) when
    /// built ([`SerializeDialog::build`]).
    #[serde(default)]
    pub format: Option<Value>,
    /// `last_response_to_field`: the top-level field that gets the last turn's `system`, which
    /// is then left out of the text (absent: none).
    #[serde(default)]
    pub last_response_to_field: Option<String>,
    /// `context_field`: the top-level field whose text starts the result (absent: none).
    #[serde(default)]
    pub context_field: Option<String>,
    /// `context_separator`: put after the context (default `" "`).
    #[serde(default = "space")]
    pub context_separator: String,
    /// `slice_first_and_last_turns_format`: trim the first turn's format before `{user}` and
    /// the last one's after `{system}` (default true).
    #[serde(default = "yes")]
    pub slice_first_and_last_turns_format: bool,
    /// `is_last_turn_user_only`: read by `serialize_open_ai_format_dialog`, unused (default
    /// true).
    #[serde(default = "yes")]
    pub is_last_turn_user_only: bool,
}

/// `s[s.index(pat):]` or `s[:s.index(pat) + len(pat)]` (`keep_after`), Python's `ValueError`
/// as an error.
fn slice_at(s: &str, pat: &str, keep_after: bool) -> Result<String> {
    let i = s.find(pat).ok_or_else(|| Error::invalid(format!("serialize_dialog: the turn format {s:?} has no {pat}")))?;
    Ok(if keep_after { s[i..].to_string() } else { s[..i + pat.len()].to_string() })
}

/// The `demo_format` of the format artifact `raw` (its JSON definition), Python's
/// `AttributeError` for a format that has none.
fn demo_format_of(raw: &Value) -> Result<String> {
    match raw.get("__type__").and_then(|t| t.as_str()) {
        Some("system_format") => match raw.get("demo_format") {
            None => Ok(DEFAULT_DEMO_FORMAT.to_string()),
            Some(Value::String(s)) => Ok(s.to_string()),
            Some(other) => Err(Error::invalid(format!("serialize_dialog: demo_format must be a string, got {other}"))),
        },
        Some(t) => Err(Error::invalid(format!("serialize_dialog: a `{t}` format has no demo_format"))),
        None => Err(Error::invalid(format!("serialize_dialog: the format {} is not a format definition", crate::artifact::short(raw)))),
    }
}

impl SerializeDialog {
    /// Builds the `format` in `cx` (which checks it is a format) and keeps its definition.
    pub fn build(&mut self, cx: &BuildContext<'_>) -> Result<()> {
        if let Some(f) = self.format.take() {
            self.format = cx.build_opt::<dyn crate::formats::Format>(Some(&f))?.map(|f| (*f.raw).clone());
        }
        Ok(())
    }

    fn general_turn_format(&self, instance: &Instance) -> Result<String> {
        let fmt = match &self.format {
            Some(f) => demo_format_of(f)?,
            None => {
                let f = instance
                    .get("recipe_metadata")
                    .and_then(|m| m.get("format"))
                    .ok_or_else(|| Error::not_found("serialize_dialog: no `format`, and the instance has no recipe_metadata/format"))?;
                demo_format_of(f)?
            }
        };
        Ok(fmt.replace("{source}", "{user}").replace("{target}", "{system}").replace("{target_prefix}", ""))
    }

    fn turn_format(&self, general: &str, step: usize, len: usize) -> Result<String> {
        let mut f = general.to_string();
        if step == 0 && self.slice_first_and_last_turns_format {
            f = slice_at(&f, "{user}", true)?;
        }
        if step + 1 == len {
            if self.slice_first_and_last_turns_format {
                f = slice_at(&f, "{system}", false)?;
            }
            if self.last_response_to_field.is_some() {
                f = slice_at(&f, "{user}", false)?;
            }
        }
        Ok(f)
    }

    /// The text of the `turns` (dicts with `user` and `system`), storing the last response in
    /// `instance` when asked.
    fn serialize(&self, turns: &[Value], instance: &mut Instance) -> Result<Value> {
        let mut text = match &self.context_field {
            None => String::new(),
            Some(c) => match instance.get(c.as_str()) {
                Some(Value::String(s)) => format!("{s}{}", self.context_separator),
                Some(other) => {
                    return Err(Error::invalid(format!(
                        "serialize_dialog: the context field {c:?} must be a string, got {}",
                        type_name(other)
                    )))
                }
                None => return Err(Error::not_found(format!("serialize_dialog: the instance has no context field {c:?}"))),
            },
        };
        let general = self.general_turn_format(instance)?;
        for (i, turn) in turns.iter().enumerate() {
            let f = self.turn_format(&general, i, turns.len())?;
            let Value::Object(m) = turn else {
                return Err(Error::invalid(format!("serialize_dialog: a turn must be a dict, got {}", type_name(turn))));
            };
            let s = crate::py::str_format::py_format(&f, m).map_err(|e| match e {
                crate::py::str_format::FormatError::Key(k) => Error::not_found(format!("serialize_dialog: a turn has no {k:?}")),
                crate::py::str_format::FormatError::Other(o) => Error::invalid(format!("serialize_dialog: {o}")),
            })?;
            text.push_str(&s);
        }
        if let Some(to) = &self.last_response_to_field {
            let last = turns.last().ok_or_else(|| Error::invalid("serialize_dialog: an empty dialog has no last response"))?;
            let response = last.get("system").ok_or_else(|| Error::not_found("serialize_dialog: the last turn has no \"system\""))?;
            instance.insert(to.as_str().into(), response.clone());
        }
        Ok(Value::from(text))
    }
}

/// The list of turns (a dialog must be iterable).
fn turns_of(v: &Value) -> Result<Vec<Value>> {
    py_iter(v)
}

/// Applies Unitxt's `InstanceFieldOperator` field selection (`field`, `to_field`,
/// `field_to_field`, `process_every_value`, `not_exist_ok`, ...) around `f`, which may change
/// the instance and the value read (written back to its field).
fn for_each_field(
    spec: &FieldSpec,
    mut instance: Instance,
    f: impl Fn(&mut Value, &mut Instance) -> Result<Value>,
) -> Result<Instance> {
    for (from, to) in spec.pairs()? {
        let (mut old, found) = match dict_get_opt(&instance, &from)? {
            Some(v) => (v.into_owned(), true),
            None if spec.not_exist_do_nothing => continue,
            None if spec.not_exist_ok => (spec.get_default.clone().unwrap_or(Value::Null), false),
            None => {
                return Err(Error::not_found(format!("field {from:?} is missing; fields are {:?}", instance.keys().collect::<Vec<_>>())))
            }
        };
        let new = if spec.process_every_value {
            (|| {
                let mut items = match old.clone() {
                    Value::Array(a) => a,
                    other => py_iter(&other)?,
                };
                let out = items.iter_mut().map(|x| f(x, &mut instance)).collect::<Result<Vec<_>>>()?;
                if old.is_array() {
                    old = Value::Array(items);
                }
                Ok(Value::Array(out))
            })()
        } else {
            f(&mut old, &mut instance)
        }
        .with_ctx(|| format!("field {from:?}"))?;
        if found {
            crate::py::dict_path::dict_set(&mut instance, &from, old)?;
        }
        dict_set_with(&mut instance, &to, new, true, spec.set_every_value)?;
    }
    Ok(instance)
}

/// The `serialize_dialog` operator with its field selection.
#[derive(Deserialize)]
pub struct SerializeDialogOp {
    /// The fields read and written.
    #[serde(flatten)]
    pub spec: FieldSpec,
    /// The serialization.
    #[serde(flatten)]
    pub dialog: SerializeDialog,
}

impl SerializeDialogOp {
    /// Builds the nested format in `cx` (see [`SerializeDialog::build`]).
    pub fn build(mut self, cx: &BuildContext<'_>) -> Result<Self> {
        self.dialog.build(cx)?;
        Ok(self)
    }
}

impl InstanceOperator for SerializeDialogOp {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        for_each_field(&self.spec, instance, |v, inst| self.dialog.serialize(&turns_of(v)?, inst))
    }
}

/// `serialize_open_ai_format_dialog` (Unitxt's `SerializeOpenAiFormatDialog`): as
/// `serialize_dialog`, over OpenAI messages (dicts with string `role` and `content`, roles
/// `user` or `assistant` in any case, the first one `user`). Runs of messages with the same
/// role (compared as written) are merged, contents joined by a space (the first message of a
/// run is changed so in the field too, as Unitxt changes it in place); then messages pair up
/// in order as `{"user": first, "system": second}`, a last unpaired one with `system` `""`.
/// Errors (Unitxt's `ValueError`s) on any other shape, an unknown role or an empty dialog.
#[derive(Deserialize)]
pub struct SerializeOpenAiFormatDialogOp {
    /// The fields read and written.
    #[serde(flatten)]
    pub spec: FieldSpec,
    /// The serialization.
    #[serde(flatten)]
    pub dialog: SerializeDialog,
}

impl SerializeOpenAiFormatDialogOp {
    /// Builds the nested format in `cx` (see [`SerializeDialog::build`]).
    pub fn build(mut self, cx: &BuildContext<'_>) -> Result<Self> {
        self.dialog.build(cx)?;
        Ok(self)
    }
}

/// Checks the OpenAI messages as Unitxt's `validate_openai_dialog_format` does.
fn validate_openai(dialog: &Value) -> Result<&[Value]> {
    let Value::Array(entries) = dialog else { return Err(Error::invalid("Dialog must be a list of dictionaries.")) };
    for (i, entry) in entries.iter().enumerate() {
        let Value::Object(m) = entry else {
            return Err(Error::invalid(format!("Entry {i} is not a dictionary: {}", repr(entry))));
        };
        for key in ["role", "content"] {
            match m.get(key) {
                None => return Err(Error::invalid(format!("Entry {i} is missing the '{key}' key: {}", repr(entry)))),
                Some(Value::String(_)) => {}
                Some(other) => return Err(Error::invalid(format!("Entry {i} has a non-string '{key}': {}", py_str(other)))),
            }
        }
        let role = m["role"].as_str().unwrap_or_default();
        if !["user", "assistant"].contains(&role.to_lowercase().as_str()) {
            return Err(Error::invalid(format!("Entry {i} has an invalid role: {role}. Allowed roles are 'user' and 'assistant'.")));
        }
    }
    let first = entries.first().ok_or_else(|| Error::invalid("serialize_open_ai_format_dialog: the dialog is empty"))?;
    let role = first["role"].as_str().unwrap_or_default();
    if role.to_lowercase() != "user" {
        return Err(Error::invalid(format!("First entry role is expected to be 'user' It is  {role}.")));
    }
    Ok(entries)
}

impl SerializeOpenAiFormatDialogOp {
    /// The `{user, system}` turns of the messages `v`, merging runs in `v` itself.
    fn standard_turns(v: &mut Value) -> Result<Vec<Value>> {
        validate_openai(v)?;
        let Value::Array(entries) = v else { return Ok(vec![]) };
        // Merge runs of one role into their first message, in place.
        let mut merged: Vec<usize> = Vec::new();
        for i in 0..entries.len() {
            let role = entries[i]["role"].clone();
            match merged.last() {
                Some(&j) if entries[j]["role"] == role => {
                    let add = entries[i]["content"].as_str().unwrap_or_default().to_string();
                    if let Some(Value::String(c)) = entries[j].as_object_mut().and_then(|m| m.get_mut("content")) {
                        let joined = format!("{c} {add}");
                        *c = joined.into();
                    }
                }
                _ => merged.push(i),
            }
        }
        let turn = |user: &Value, system: Value| {
            let mut m = Map::with_capacity(2);
            m.insert("user".into(), user.clone());
            m.insert("system".into(), system);
            Value::Object(m)
        };
        let mut out = Vec::new();
        for pair in merged.chunks(2) {
            match pair {
                [u, s] => out.push(turn(&entries[*u]["content"], entries[*s]["content"].clone())),
                [u] => out.push(turn(&entries[*u]["content"], Value::from(""))),
                _ => {}
            }
        }
        Ok(out)
    }
}

impl InstanceOperator for SerializeOpenAiFormatDialogOp {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        for_each_field(&self.spec, instance, |v, inst| {
            let turns = Self::standard_turns(v)?;
            self.dialog.serialize(&turns, inst)
        })
    }
}
