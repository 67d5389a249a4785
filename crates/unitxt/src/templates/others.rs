//! Small templates: `yes_no_template`, `key_val_template` and `null_template` (Unitxt's
//! `YesNoTemplate`, `KeyValTemplate`, `NullTemplate`).

use serde::Deserialize;

use crate::py::str_format::FormatString;
use crate::error::{Error, Result};
use crate::py::repr::str as py_str;
use crate::templates::base::{Fields, TemplateBase, TemplateKind};
use crate::value::Value;

fn yes() -> String {
    "Yes".into()
}
fn no() -> String {
    "No".into()
}

/// `yes_no_template`: asks whether the input is of class `class_field`; the target is
/// `yes_answer` when that class is among the gold classes in `label_field`, else `no_answer`.
/// The gold classes are read after serialization, where Unitxt requires them to still be a
/// list (the default serializer turns lists into text, which Unitxt rejects; so do we).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct YesNoTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    #[serde(default)]
    pub input_format: Option<FormatString>,
    /// `class_field`: the reference field holding the class the question asks about (required by
    /// rendering).
    #[serde(default)]
    pub class_field: Option<String>,
    /// `label_field`: the reference field holding the list of gold classes (required by rendering).
    #[serde(default)]
    pub label_field: Option<String>,
    /// `yes_answer`: the target when the asked class is gold (default `Yes`).
    #[serde(default = "yes")]
    pub yes_answer: String,
    /// `no_answer`: the target otherwise (default `No`).
    #[serde(default = "no")]
    pub no_answer: String,
}

impl TemplateKind for YesNoTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "YesNoTemplate"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", self.input_format.as_ref(), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let keys = || refs.keys().cloned().collect::<Vec<_>>();
        let label_field = self.label_field.clone().unwrap_or_default();
        let gold = refs.get(&label_field).ok_or_else(|| {
            Error::invalid(format!(
                "available reference_fields are {:?}, missing required label field: {label_field:?}",
                keys()
            ))
        })?;
        let gold = gold.as_array().ok_or_else(|| {
            Error::invalid(format!("unexpected value for gold_class_names: '{}'; expecting a list", py_str(gold)))
        })?;
        let class_field = self.class_field.clone().unwrap_or_default();
        let queried = refs.get(&class_field).ok_or_else(|| {
            Error::invalid(format!(
                "available reference_fields are {:?}, missing required class field: {class_field:?}",
                keys()
            ))
        })?;
        match queried {
            Value::String(s) if !s.is_empty() => {}
            other => {
                return Err(Error::invalid(format!(
                    "unexpected value for queried_class_names: '{}'; expected a string",
                    py_str(other)
                )))
            }
        }
        let answer = if gold.iter().any(|g| g == queried) { &self.yes_answer } else { &self.no_answer };
        Ok((answer.clone(), vec![answer.clone()]))
    }
}

fn pairs_sep() -> String {
    ", ".into()
}
fn kv_sep() -> String {
    ": ".into()
}
fn default_true() -> bool {
    true
}

/// `key_val_template`: `source` lists the serialized input fields as `key: value` pairs
/// joined by `pairs_separator`; the target lists the reference fields' values (with keys when
/// `use_keys_for_outputs`). As in Unitxt, outputs use `key_val_separator`, not
/// `outputs_key_val_separator`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyValTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `pairs_separator`: put between the `key: value` pairs (default `", "`).
    #[serde(default = "pairs_sep")]
    pub pairs_separator: String,
    /// `key_val_separator`: put between a key and its value, in the source and the target (default
    /// `": "`).
    #[serde(default = "kv_sep")]
    pub key_val_separator: String,
    /// `use_keys_for_inputs`: write the input field names before their values (default true).
    #[serde(default = "default_true")]
    pub use_keys_for_inputs: bool,
    /// `outputs_key_val_separator`: read but unused, as in Unitxt (default `": "`).
    #[serde(default = "kv_sep")]
    pub outputs_key_val_separator: String,
    /// `use_keys_for_outputs`: write the reference field names before their values (default false).
    #[serde(default)]
    pub use_keys_for_outputs: bool,
}

impl KeyValTemplate {
    fn process_dict(&self, data: &Fields, use_keys: bool) -> String {
        let pairs: Vec<String> = data
            .iter()
            .map(|(k, v)| if use_keys { format!("{k}{}{}", self.key_val_separator, py_str(v)) } else { py_str(v) })
            .collect();
        pairs.join(&self.pairs_separator)
    }
}

impl TemplateKind for KeyValTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "KeyValTemplate"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        Ok(self.process_dict(input, self.use_keys_for_inputs))
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.process_dict(refs, self.use_keys_for_outputs);
        Ok((t.clone(), vec![t]))
    }
}

/// `null_template`: empty `source` and `target`, no references, no postprocessors.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NullTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
}

impl TemplateKind for NullTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "NullTemplate"
    }
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![]
    }
    fn input_fields_to_source(&self, _input: &Fields) -> Result<String> {
        Ok(String::new())
    }
    fn reference_fields_to_target_and_references(&self, _refs: &Fields) -> Result<(String, Vec<String>)> {
        Ok((String::new(), vec![]))
    }
}

/// Replaces the answer in `refs[answer_field]` (`"choice_a"`, `"choice_b"` or `"tie"`) by its
/// label among `labels` (a, b, tie), as Unitxt's `PairwiseChoiceTemplate.verbalize_answer_field`
/// does; any other answer is an error.
fn verbalize_pairwise_answer(refs: &mut Fields, answer_field: &str, labels: [&String; 3]) -> Result<()> {
    let answer = refs.get(answer_field).and_then(|a| a.as_str()).unwrap_or_default().to_string();
    let label = match answer.as_str() {
        "choice_a" => labels[0],
        "choice_b" => labels[1],
        "tie" => labels[2],
        _ => {
            return Err(Error::invalid(format!(
                "answer field {answer_field:?} must be \"choice_a\", \"choice_b\" or \"tie\", got {answer:?}"
            )))
        }
    };
    refs.insert(answer_field.into(), Value::String(label.as_str().into()));
    Ok(())
}

/// Whether a pairwise template swaps the two answers of an instance: Unitxt swaps them when
/// `random() <= 0.5`, drawing from Python's unseeded global `random`, which cannot be
/// reproduced. Here the number comes from the generator seeded by the instance's input fields
/// (`new_random_generator(input_fields)`, as Unitxt seeds its choice shuffles), so an instance is
/// always swapped the same way and about half of them are.
fn seeded_swap(input: &Fields) -> bool {
    crate::py::random::new_random_generator(&Value::Object(input.clone())).random() <= 0.5
}

/// Swaps the values of input fields `a` and `b`; errors when either is missing.
fn swap_fields(input: &mut Fields, a: &str, b: &str) -> Result<()> {
    let missing = |f: &str| Error::not_found(format!("input field {f:?} is missing"));
    let va = input.get(a).cloned().ok_or_else(|| missing(a))?;
    let vb = input.get(b).cloned().ok_or_else(|| missing(b))?;
    input.insert(a.into(), vb);
    input.insert(b.into(), va);
    Ok(())
}

/// The answer settings of the pairwise choice templates (Unitxt's `PairwiseChoiceTemplate`
/// fields, which `DialogPairwiseChoiceTemplate` inherits), flattened into each artifact.
#[derive(Deserialize)]
pub struct PairwiseChoice {
    /// `choice_a_field`: the input field holding the first answer.
    pub choice_a_field: String,
    /// `choice_b_field`: the input field holding the second answer.
    pub choice_b_field: String,
    /// `answer_field`: the reference field holding `choice_a`, `choice_b` or `tie`, replaced by its
    /// label.
    pub answer_field: String,
    /// `choice_a_label`: what an answer of `choice_a` becomes.
    pub choice_a_label: String,
    /// `choice_b_label`: what an answer of `choice_b` becomes.
    pub choice_b_label: String,
    /// `choice_tie_label`: what an answer of `tie` becomes.
    pub choice_tie_label: String,
    /// `shuffle`: swap the two answers, and the answer label with them, for about half of the
    /// instances (see [`seeded_swap`]).
    pub shuffle: bool,
}

impl PairwiseChoice {
    /// Unitxt's `verbalize_answer_field` then `shuffle_values`: the answer becomes its label;
    /// with `shuffle`, a swapped instance has its two answers exchanged and an `a` label turned
    /// into the `b` label and back (a tie stays). Errors (`what` names the template) without
    /// reference fields, on an answer other than `choice_a`, `choice_b` or `tie`, and on a
    /// missing answer field when swapping.
    fn apply(&self, what: &str, input: &mut Fields, refs: Option<&mut Fields>) -> Result<()> {
        let refs = refs.ok_or_else(|| Error::invalid(format!("{what} needs `reference_fields`")))?;
        verbalize_pairwise_answer(refs, &self.answer_field, [&self.choice_a_label, &self.choice_b_label, &self.choice_tie_label])?;
        if !self.shuffle || !seeded_swap(input) {
            return Ok(());
        }
        swap_fields(input, &self.choice_a_field, &self.choice_b_field)?;
        let answer = refs.get(&self.answer_field).and_then(|a| a.as_str()).unwrap_or_default().to_string();
        let swapped = if answer == self.choice_a_label {
            Some(&self.choice_b_label)
        } else if answer == self.choice_b_label {
            Some(&self.choice_a_label)
        } else {
            None
        };
        if let Some(l) = swapped {
            refs.insert(self.answer_field.as_str().into(), Value::String(l.as_str().into()));
        }
        Ok(())
    }
}

/// `pairwise_choice_template` (Unitxt's `PairwiseChoiceTemplate`): an input/output template for
/// comparing two answers; the answer field (`"choice_a"`, `"choice_b"` or `"tie"`) is replaced,
/// in the instance's own `reference_fields` too, by its label, and with `shuffle` the answers
/// are swapped for about half of the instances (see [`PairwiseChoice`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairwiseChoiceTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// `output_format`: the target, a format string over the serialized reference fields; the
    /// template fails on an instance if it is absent.
    #[serde(default)]
    pub output_format: Option<FormatString>,
    /// The answer fields, labels and `shuffle`.
    #[serde(flatten)]
    pub choice: PairwiseChoice,
}

impl TemplateKind for PairwiseChoiceTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "PairwiseChoiceTemplate"
    }
    fn preprocess_input_and_reference_fields(&self, input: &mut Fields, refs: Option<&mut Fields>) -> Result<()> {
        self.choice.apply("pairwise_choice_template", input, refs)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        Ok((t.clone(), vec![t]))
    }
}

/// `pairwise_comparative_rating_template` (Unitxt's `PairwiseComparativeRatingTemplate`): an
/// input/output template for rating two answers against each other. With `shuffle`, about half
/// of the instances (see [`seeded_swap`]; Unitxt's own draw is unseeded) have their two answers
/// and their two model ids exchanged and the integer rating negated. Errors on a swapped instance
/// whose fields are missing or whose rating is not an integer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairwiseComparativeRatingTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// `output_format`: the target, a format string over the serialized reference fields; the
    /// template fails on an instance if it is absent.
    #[serde(default)]
    pub output_format: Option<FormatString>,
    /// `choice_a_field`: the input field holding the first answer; only `shuffle` uses it.
    pub choice_a_field: String,
    /// `choice_b_field`: the input field holding the second answer; only `shuffle` uses it.
    pub choice_b_field: String,
    /// `choice_a_id_field`: the input field naming the first answer's model; only `shuffle` uses
    /// it.
    pub choice_a_id_field: String,
    /// `choice_b_id_field`: the input field naming the second answer's model; only `shuffle` uses
    /// it.
    pub choice_b_id_field: String,
    /// `answer_field`: the reference field holding the rating; only `shuffle` uses it.
    pub answer_field: String,
    /// `shuffle`: swap the two answers for about half of the instances (see above).
    pub shuffle: bool,
}

impl TemplateKind for PairwiseComparativeRatingTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "PairwiseComparativeRatingTemplate"
    }
    fn preprocess_input_and_reference_fields(&self, input: &mut Fields, refs: Option<&mut Fields>) -> Result<()> {
        if !self.shuffle || !seeded_swap(input) {
            return Ok(());
        }
        swap_fields(input, &self.choice_a_field, &self.choice_b_field)?;
        swap_fields(input, &self.choice_a_id_field, &self.choice_b_id_field)?;
        let refs = refs.ok_or_else(|| Error::invalid("pairwise_comparative_rating_template needs `reference_fields`"))?;
        // Python's `isinstance(rating, int)`, which booleans pass.
        let rating = match refs.get(&self.answer_field) {
            Some(Value::Bool(b)) => Some(*b as i64),
            Some(v) => v.as_i64(),
            None => None,
        };
        let rating = rating.ok_or_else(|| {
            Error::invalid(format!("reference field {:?} must be an integer rating to be swapped", self.answer_field))
        })?;
        let negated = rating.checked_neg().ok_or_else(|| Error::invalid(format!("the rating {rating} cannot be negated")))?;
        refs.insert(self.answer_field.as_str().into(), Value::from(negated));
        Ok(())
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        Ok((t.clone(), vec![t]))
    }
}

/// One dialog field of a `dialog_template` (Unitxt's `DialogFieldsData`, written in the catalog
/// as an object with `__type__: dialog_fields_data`): the input field holding the dialog and
/// the labels its turns get.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialogFieldsData {
    /// `__type__`: `dialog_fields_data` when given.
    #[serde(rename = "__type__", default)]
    pub type_name: Option<String>,
    /// `user_role_label`: put before a user turn.
    pub user_role_label: String,
    /// `assistant_role_label`: put before an assistant turn.
    pub assistant_role_label: String,
    /// `system_role_label`: put before a system turn.
    pub system_role_label: String,
    /// `dialog_field`: the input field holding the dialog, a list of `[role, text]` pairs.
    pub dialog_field: String,
}

fn two_new_lines() -> String {
    "\n\n".into()
}

fn one_space() -> String {
    " ".into()
}

/// The dialog part shared by `dialog_template` and `dialog_pairwise_choice_template` (Unitxt's
/// `DialogTemplate.process_dialog`).
#[derive(Deserialize)]
pub struct DialogPart {
    /// `dialog_fields`: the dialog fields rendered, in order.
    pub dialog_fields: Vec<DialogFieldsData>,
    /// `turns_separator`: put between turns (default two new lines).
    #[serde(default = "two_new_lines")]
    pub turns_separator: String,
    /// `label_separator`: put between a turn's label and its text (default a space).
    #[serde(default = "one_space")]
    pub label_separator: String,
}

impl DialogPart {
    /// Replaces each dialog field of `input` by its text: every `[role, text]` turn as its
    /// role's label, `label_separator` and the text, turns joined by `turns_separator` (a turn
    /// of another role than `user`, `assistant` or `system` adds nothing, not even the
    /// separator). Errors on a missing field, and on a dialog that is not a list of pairs of
    /// strings (Unitxt's assertion; tuples are lists here).
    fn process(&self, input: &mut Fields) -> Result<()> {
        for d in &self.dialog_fields {
            if d.type_name.as_deref().is_some_and(|t| t != "dialog_fields_data") {
                return Err(Error::invalid(format!("dialog_fields items must be dialog_fields_data, got {:?}", d.type_name)));
            }
            let dialog = input.get(&d.dialog_field).ok_or_else(|| {
                Error::not_found(format!("dialog field {:?} is not among the input fields {:?}", d.dialog_field, input.keys().collect::<Vec<_>>()))
            })?;
            let bad = || Error::invalid(format!("dialog field {:?} must be a list of [role, text] pairs of strings, got {}", d.dialog_field, crate::artifact::short(dialog)));
            let turns = dialog.as_array().ok_or_else(bad)?;
            let mut text = String::new();
            for (i, turn) in turns.iter().enumerate() {
                let (role, said) = match turn.as_array().map(|t| t.as_slice()) {
                    Some([Value::String(r), Value::String(t)]) => (r.as_str(), t.as_str()),
                    _ => return Err(bad()),
                };
                let label = match role {
                    "user" => &d.user_role_label,
                    "assistant" => &d.assistant_role_label,
                    "system" => &d.system_role_label,
                    _ => continue,
                };
                let sep = if i == 0 { "" } else { self.turns_separator.as_str() };
                text.push_str(&format!("{sep}{label}{}{said}", self.label_separator));
            }
            input.insert(d.dialog_field.as_str().into(), Value::from(text));
        }
        Ok(())
    }
}

/// `dialog_template` (Unitxt's `DialogTemplate`): an input/output template whose dialog fields
/// (`dialog_fields`) are first rendered as text, in the instance's input fields too (see
/// [`DialogPart`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialogTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// `output_format`: the target, a format string over the serialized reference fields; the
    /// template fails on an instance if it is absent.
    #[serde(default)]
    pub output_format: Option<FormatString>,
    /// The dialog fields and separators.
    #[serde(flatten)]
    pub dialog: DialogPart,
}

impl TemplateKind for DialogTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "DialogTemplate"
    }
    fn preprocess_input_fields(&self, input: &mut Fields) -> Result<Option<Fields>> {
        self.dialog.process(input)?;
        Ok(None)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        Ok((t.clone(), vec![t]))
    }
}

/// `dialog_pairwise_choice_template` (Unitxt's `DialogPairwiseChoiceTemplate`): a
/// `pairwise_choice_template` (the answer becomes its label, answers swapped with `shuffle`, see
/// [`PairwiseChoice`]) whose dialog fields are then rendered as in `dialog_template`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialogPairwiseChoiceTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// `output_format`: the target, a format string over the serialized reference fields; the
    /// template fails on an instance if it is absent.
    #[serde(default)]
    pub output_format: Option<FormatString>,
    /// The dialog fields and separators.
    #[serde(flatten)]
    pub dialog: DialogPart,
    /// The answer fields, labels and `shuffle`.
    #[serde(flatten)]
    pub choice: PairwiseChoice,
}

impl TemplateKind for DialogPairwiseChoiceTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "DialogPairwiseChoiceTemplate"
    }
    fn preprocess_input_and_reference_fields(&self, input: &mut Fields, refs: Option<&mut Fields>) -> Result<()> {
        self.choice.apply("dialog_pairwise_choice_template", input, refs)
    }
    fn preprocess_input_fields(&self, input: &mut Fields) -> Result<Option<Fields>> {
        self.dialog.process(input)?;
        Ok(None)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        Ok((t.clone(), vec![t]))
    }
}
