//! `multiple_choice_template` (Unitxt's `MultipleChoiceTemplate`): enumerates the choices of a
//! question (`A. ...`), optionally reorders them, and makes the target the correct choice's
//! numeral.

use std::sync::Mutex;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::py::random::new_random_generator;
use crate::py::str_format::{as_int, py_eq, py_index, FormatError, FormatString};
use crate::templates::base::{get_field, Fields, TemplateBase, TemplateKind};
use crate::value::{Instance, Value};

fn s(v: &str) -> String {
    v.to_string()
}
fn default_choices_field() -> String {
    s("choices")
}
fn default_target_field() -> String {
    s("label")
}
fn default_choices_separator() -> String {
    s(", ")
}
fn default_source_choice_format() -> FormatString {
    FormatString::new("{choice_numeral}. {choice_text}")
}
fn default_target_choice_format() -> FormatString {
    FormatString::new("{choice_numeral}")
}
fn default_enumerator() -> Value {
    Value::String(s("capitals").into())
}

/// The catalog arguments of `multiple_choice_template`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McJson {
    #[serde(flatten)]
    base: TemplateBase,
    input_format: FormatString,
    #[serde(default = "default_choices_field")]
    choices_field: String,
    #[serde(default = "default_target_field")]
    target_field: String,
    #[serde(default = "default_choices_separator")]
    choices_separator: String,
    #[serde(default = "default_source_choice_format")]
    source_choice_format: FormatString,
    #[serde(default = "default_target_choice_format")]
    target_choice_format: FormatString,
    #[serde(default = "default_enumerator")]
    enumerator: Value,
    #[serde(default)]
    shuffle_choices: bool,
    #[serde(default)]
    shuffle_choices_seed: Option<i64>,
    #[serde(default)]
    sort_choices_by_length: bool,
    #[serde(default)]
    sort_choices_alphabetically: bool,
    #[serde(default)]
    reverse_choices: bool,
    #[serde(default)]
    place_correct_choice_position: Option<i64>,
}

/// `multiple_choice_template`.
///
/// Input fields: `choices_field` (a list) plus whatever `input_format` names; the choices are
/// rendered with `source_choice_format` joined by `choices_separator`, and `numerals` (the
/// numerals in use) is available to the formats. Reference fields: `target_field`, the index
/// of the correct choice or its text. The target is the correct choice in
/// `target_choice_format`. The instance's `input_fields` gains `options` (every choice in
/// `target_choice_format`); when choices are reordered the instance's `input_fields` and
/// `reference_fields` hold the new order and index.
pub struct MultipleChoiceTemplate {
    base: TemplateBase,
    input_format: FormatString,
    choices_field: String,
    target_field: String,
    choices_separator: String,
    source_choice_format: FormatString,
    target_choice_format: FormatString,
    enumerator: Vec<Value>,
    shuffle_choices: bool,
    shuffle_choices_seed: Option<i64>,
    sort_choices_by_length: bool,
    sort_choices_alphabetically: bool,
    reverse_choices: bool,
    /// Unitxt stores the normalized (non-negative) position back after the first instance;
    /// kept here the same way.
    place_correct_choice_position: Mutex<Option<i64>>,
}

const ROMAN: [&str; 20] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI", "XVII",
    "XVIII", "XIX", "XX",
];

impl MultipleChoiceTemplate {
    /// Builds the template from its catalog JSON; errors on the flag combinations Unitxt
    /// rejects (shuffling with sorting/reversing/fixed position, both sorts, fixed position
    /// with sorting/reversing) and on a malformed enumerator.
    pub fn from_json(v: &Value) -> Result<Self> {
        let j: McJson = crate::artifact::from_value("multiple_choice_template", v)?;
        let enumerator: Vec<Value> = match &j.enumerator {
            Value::String(e) => match e.as_str() {
                "capitals" => "ABCDEFGHIJKLMNOP".chars().map(|c| Value::from(c)).collect(),
                "lowercase" => "abcdefghijklmnop".chars().map(|c| Value::from(c)).collect(),
                "numbers" => (1..=20).map(|i| Value::String(compact_str::format_compact!("{i}"))).collect(),
                "roman" => ROMAN.iter().map(|r| Value::from(*r)).collect(),
                other => other.chars().map(|c| Value::from(c)).collect(),
            },
            Value::Array(a) => a.clone(),
            other => {
                return Err(Error::invalid(format!(
                    "multiple_choice_template `enumerator` must be a string or a list, got {other}"
                )))
            }
        };
        let sorting = j.sort_choices_by_length || j.sort_choices_alphabetically || j.reverse_choices;
        if j.shuffle_choices && (sorting || j.place_correct_choice_position.is_some()) {
            return Err(Error::invalid("You cannot combine shuffle_choices with sorting or reversing flags."));
        }
        if j.sort_choices_by_length && j.sort_choices_alphabetically {
            return Err(Error::invalid(
                "You cannot combine both sort_choices_by_length and sort_choices_alphabetically simultaneously.",
            ));
        }
        if j.place_correct_choice_position.is_some() && sorting {
            return Err(Error::invalid(
                "You cannot combine place_correct_choice_position with sorting or reversing flags.",
            ));
        }
        Ok(MultipleChoiceTemplate {
            base: j.base,
            input_format: j.input_format,
            choices_field: j.choices_field,
            target_field: j.target_field,
            choices_separator: j.choices_separator,
            source_choice_format: j.source_choice_format,
            target_choice_format: j.target_choice_format,
            enumerator,
            shuffle_choices: j.shuffle_choices,
            shuffle_choices_seed: j.shuffle_choices_seed,
            sort_choices_by_length: j.sort_choices_by_length,
            sort_choices_alphabetically: j.sort_choices_alphabetically,
            reverse_choices: j.reverse_choices,
            place_correct_choice_position: Mutex::new(j.place_correct_choice_position),
        })
    }

    fn choices_of(&self, data: &Fields) -> Result<Vec<Value>> {
        match get_field(data, &self.choices_field, "choices field")? {
            Value::Array(a) => Ok(a.clone()),
            Value::String(t) => Ok(t.chars().map(|c| Value::from(c)).collect()),
            other => Err(Error::invalid(format!(
                "choices field {:?} must be a list, got {}",
                self.choices_field,
                crate::artifact::short(other)
            ))),
        }
    }

    /// Unitxt's `inputs_to_choices`: each choice formatted with `choice_format`.
    fn inputs_to_choices(&self, data: &Fields, choice_format: &FormatString) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for (i, choice) in self.choices_of(data)?.into_iter().enumerate() {
            let numeral = self.enumerator.get(i).ok_or_else(|| {
                Error::invalid(format!(
                    "choice {i} has no numeral: the enumerator has only {} numerals",
                    self.enumerator.len()
                ))
            })?;
            let args: [(&str, &Value); 2] = [("choice_text", &choice), ("choice_numeral", numeral)];
            out.push(choice_format.format(&args[..]).map_err(|e| match e {
                FormatError::Key(k) => Error::invalid(format!("choice format {choice_format:?} names unknown field {k:?}")),
                FormatError::Other(msg) => Error::invalid(format!("choice format {choice_format:?}: {msg}")),
            })?);
        }
        Ok(out)
    }

    /// Unitxt's `outputs_to_target_index`: the target as an index into the choices.
    fn target_index(&self, refs: &Fields) -> Result<i128> {
        let target = get_field(refs, &self.target_field, "target field")?;
        if let Some(i) = as_int(target) {
            return Ok(i);
        }
        let choices = self.choices_of(refs)?;
        choices.iter().position(|c| py_eq(c, target)).map(|p| p as i128).ok_or_else(|| {
            Error::invalid(format!(
                "MultipleChoiceTemplate could not locate textual target {} in choices list: {}",
                crate::artifact::short(target),
                crate::artifact::short(&Value::Array(choices.clone()))
            ))
        })
    }
}

fn sort_key_len(v: &Value) -> Result<usize> {
    match v {
        Value::String(s) => Ok(s.chars().count()),
        Value::Array(a) => Ok(a.len()),
        Value::Object(m) => Ok(m.len()),
        other => Err(Error::invalid(format!("a choice has no length: {}", crate::artifact::short(other)))),
    }
}

fn py_lt(a: &Value, b: &Value) -> Result<std::cmp::Ordering> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.cmp(y)),
        _ => match (a.as_f64().or_else(|| as_int(a).map(|i| i as f64)), b.as_f64().or_else(|| as_int(b).map(|i| i as f64))) {
            (Some(x), Some(y)) => Ok(x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)),
            _ => Err(Error::invalid("choices of different types cannot be sorted alphabetically")),
        },
    }
}

fn sort_by_result<T>(v: &mut [T], mut f: impl FnMut(&T, &T) -> Result<std::cmp::Ordering>) -> Result<()> {
    let mut err = None;
    v.sort_by(|a, b| match f(a, b) {
        Ok(o) => o,
        Err(e) => {
            err = Some(e);
            std::cmp::Ordering::Equal
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl TemplateKind for MultipleChoiceTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "MultipleChoiceTemplate"
    }

    fn preprocess_input_and_reference_fields(&self, input: &mut Fields, refs: Option<&mut Fields>) -> Result<()> {
        let mut fixed = self.place_correct_choice_position.lock().map_err(|_| Error::invalid("poisoned lock"))?;
        if !self.shuffle_choices
            && !self.sort_choices_by_length
            && !self.sort_choices_alphabetically
            && !self.reverse_choices
            && fixed.is_none()
        {
            return Ok(());
        }
        let refs = refs.ok_or_else(|| Error::invalid("reordering choices needs `reference_fields`"))?;
        let mut choices = self.choices_of(input)?;
        let target_index = self.target_index(refs)?;
        let ref_choices = self.choices_of(refs)?;
        let original = py_index(&ref_choices, target_index)
            .cloned()
            .ok_or_else(|| Error::invalid(format!("target index {target_index} is out of range of the choices")))?;
        if self.sort_choices_by_length {
            let mut keyed = Vec::new();
            for c in choices {
                keyed.push((sort_key_len(&c)?, c));
            }
            keyed.sort_by_key(|(k, _)| *k);
            choices = keyed.into_iter().map(|(_, c)| c).collect();
        }
        if self.sort_choices_alphabetically {
            sort_by_result(&mut choices, py_lt)?;
        }
        if self.reverse_choices {
            choices.reverse();
        }
        if self.shuffle_choices {
            let seed = match self.shuffle_choices_seed {
                Some(s) => Value::from(s),
                None => Value::Object(input.clone()),
            };
            new_random_generator(&seed).shuffle(&mut choices);
        }
        if let Some(mut pos) = *fixed {
            if pos < 0 {
                pos += choices.len() as i64;
            }
            *fixed = Some(pos);
            if pos < 0 || pos >= choices.len() as i64 {
                return Err(Error::invalid(format!(
                    "fix_correct_choice_position={pos} out of range (0..{}).",
                    choices.len() as i64 - 1
                )));
            }
            let at = choices
                .iter()
                .position(|c| py_eq(c, &original))
                .ok_or_else(|| Error::invalid("list.remove(x): x not in list"))?;
            choices.remove(at);
            choices.insert((pos as usize).min(choices.len()), original.clone());
        }
        let new_index = choices
            .iter()
            .position(|c| py_eq(c, &original))
            .ok_or_else(|| Error::invalid("the correct choice is not among the input choices"))?;
        input.insert(self.choices_field.as_str().into(), Value::Array(choices.clone()));
        refs.insert(self.choices_field.as_str().into(), Value::Array(choices));
        refs.insert(self.target_field.as_str().into(), Value::from(new_index));
        Ok(())
    }

    fn preprocess_input_fields(&self, input: &mut Fields) -> Result<Option<Fields>> {
        let choices = self.inputs_to_choices(input, &self.source_choice_format)?;
        static NUMERAL: std::sync::LazyLock<FormatString> = std::sync::LazyLock::new(|| FormatString::new("{choice_numeral}"));
        let numerals = self.inputs_to_choices(input, &NUMERAL)?;
        let mut out = Fields::with_capacity(input.len() + 2);
        out.insert("numerals".into(), Value::Array(numerals.into_iter().map(Value::from).collect()));
        for (k, v) in input.iter() {
            out.insert(k.clone(), v.clone());
        }
        out.insert(self.choices_field.as_str().into(), Value::String(choices.join(&self.choices_separator).into()));
        Ok(Some(out))
    }

    fn preprocess_reference_fields(&self, refs: &Fields) -> Result<Option<Fields>> {
        let index = self.target_index(refs)?;
        let choices = self.inputs_to_choices(refs, &self.target_choice_format)?;
        let target = py_index(&choices, index).cloned().ok_or_else(|| {
            Error::invalid(format!("MultipleChoiceTemplate cannot find index number {index} in choices: {choices:?}"))
        })?;
        let mut out = Fields::new();
        out.insert(self.target_field.as_str().into(), Value::String(target.into()));
        Ok(Some(out))
    }

    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }

    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = get_field(refs, &self.target_field, "target field")?;
        let t = crate::py::repr::str(t);
        Ok((t.clone(), vec![t]))
    }

    fn post_process(&self, input: &mut Fields, _instance: &mut Instance) -> Result<()> {
        let options = self.inputs_to_choices(input, &self.target_choice_format)?;
        input.insert("options".into(), Value::Array(options.into_iter().map(Value::from).collect()));
        Ok(())
    }
}
