//! Templates that format the input fields with `input_format` and derive the target from the
//! reference fields: Unitxt's `InputOutputTemplate` and its relatives
//! (`InputOutputTemplateWithCustomTarget`, `JsonOutputTemplate`, `MultiReferenceTemplate`,
//! `MultiTurnTemplate`, `OutputQuantizingTemplate`, `MultiLabelTemplate`,
//! `SpanLabelingTemplate`, `SpanLabelingJsonTemplate`).

use std::cmp::Ordering;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::py::json::{dumps, DumpOptions};
use crate::py::random::new_random_generator;
use crate::py::str_format::{FormatError, FormatString};
use crate::templates::base::{get_field, serialize_in_place, Fields, Replaced, TemplateBase, TemplateKind};
use crate::templates::serializers::{
    default_multi_type_serializers, serialize_with, MultiTypeSerializer, NumberQuantizingSerializer, QuantizingFirst,
};
use crate::templates::Serializer;
use crate::py::dict_path::dict_get;
use crate::value::{Instance, Str, Value};

/// `input_output_template`: `source` = `input_format` over the serialized input fields,
/// `target` = `output_format` over the serialized reference fields, `references` = `[target]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputOutputTemplate {
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
}

impl TemplateKind for InputOutputTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "InputOutputTemplate"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        Ok((t.clone(), vec![t]))
    }
    fn target_and_references(&self, refs: &Fields) -> Result<(Value, Value)> {
        let t = Value::String(self.format_str(refs, "reference field", self.output_format.as_ref(), "output_format")?);
        Ok((t.clone(), Value::Array(vec![t])))
    }
}

/// `input_output_template_with_custom_target`: as `input_output_template`, but the single
/// reference is formatted with `reference` instead of `output_format`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputOutputTemplateWithCustomTarget {
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
    /// `reference`: the single reference, a format string over the serialized reference fields.
    pub reference: FormatString,
}

impl TemplateKind for InputOutputTemplateWithCustomTarget {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "InputOutputTemplateWithCustomTarget"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        let r = self.format(refs, "reference field", Some(&self.reference), "reference")?;
        Ok((t, vec![r]))
    }
}

/// `json_output_template`: the target is `json.dumps` (non-ASCII kept) of the serialized
/// reference fields named in `output_fields` (renamed to their values), those in
/// `wrap_with_list_fields` wrapped in a one-element list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonOutputTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// `output_fields`: reference field name to the key it gets in the target's JSON object, in
    /// order.
    pub output_fields: IndexMap<String, String>,
    /// `wrap_with_list_fields`: reference fields whose value is wrapped in a one-element list in
    /// the JSON.
    pub wrap_with_list_fields: Vec<String>,
}

impl TemplateKind for JsonOutputTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "JsonOutputTemplate"
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let mut data = Fields::new();
        for (field, target_field) in &self.output_fields {
            let mut v = get_field(refs, field, "reference field")?.clone();
            if self.wrap_with_list_fields.contains(field) {
                v = Value::Array(vec![v]);
            }
            data.insert(target_field.as_str().into(), v);
        }
        let t = dumps(&Value::Object(data), DumpOptions { ensure_ascii: false, ..DumpOptions::default() });
        Ok((t.clone(), vec![t]))
    }
}

fn default_references_field() -> String {
    "references".into()
}

/// `multi_reference_template`: every element of `references_field` (a list) is a reference;
/// the target is the first one, or one picked at random (seeded by the serialized reference
/// fields) with `random_reference`. No references give target `""`. Its default serializer is
/// a plain `multi_type_serializer` (lists in input fields render with `str()`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiReferenceTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// `references_field`: the reference field holding the list of references (default
    /// `references`).
    #[serde(default = "default_references_field")]
    pub references_field: String,
    /// `random_reference`: pick the target among the references at random (seeded by the reference
    /// fields) instead of the first (default false).
    #[serde(default)]
    pub random_reference: bool,
    /// `output_format`, inherited from Unitxt's `InputOutputTemplate` and unused there by this
    /// template (the target is a reference): accepted and ignored.
    #[serde(default, rename = "output_format")]
    _output_format: Option<Value>,
}

/// A `multi_type_serializer` with its default serializers, built once per process.
fn plain_multi_type() -> &'static Arc<dyn Serializer> {
    static PLAIN: std::sync::OnceLock<Arc<dyn Serializer>> = std::sync::OnceLock::new();
    PLAIN.get_or_init(|| Arc::new(MultiTypeSerializer::new(default_multi_type_serializers())))
}

/// `MultiReferenceTemplate.serialize`: the references field item by item.
fn serialize_multi_reference(
    ser: &dyn Serializer,
    references_field: &str,
    data: &mut Fields,
    instance: &mut Instance,
) -> Result<Replaced> {
    // As the default `serialize` (in place, the replaced values returned), except that the
    // references field becomes the list of its items' texts.
    let passes = ser.passes_strings();
    let mut replaced = Replaced::new();
    for (i, (k, v)) in data.iter_mut().enumerate() {
        if k == references_field {
            let items: Vec<Value> = match v {
                Value::Array(a) => std::mem::take(a),
                Value::String(s) => s.chars().map(|c| Value::from(c)).collect(),
                Value::Object(m) => m.keys().map(|k| Value::String(k.clone())).collect(),
                other => {
                    return Err(Error::invalid(format!(
                        "references field {k:?} must be a list, got {}",
                        crate::artifact::short(other)
                    )))
                }
            };
            let mut serialized = Vec::new();
            let mut kept = Vec::new();
            for mut item in items {
                serialized.push(Value::String(serialize_with(ser, &mut item, instance)?.into()));
                kept.push(item);
            }
            // A list keeps its items as the serializer left them; a string or dict is kept as is.
            let original = if v.is_array() { Value::Array(kept) } else { std::mem::take(v) };
            *v = Value::Array(serialized);
            replaced.push((i, original));
        } else {
            serialize_in_place(ser, passes, (i, v), instance, &mut replaced)?;
        }
    }
    Ok(replaced)
}

fn multi_reference_target(
    refs: &Fields,
    references_field: &str,
    random_reference: bool,
) -> Result<(String, Vec<String>)> {
    let v = get_field(refs, references_field, "references field")?;
    let list: Vec<String> = v
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| {
            Error::invalid(format!(
                "MultiReferenceTemplate requires references field {references_field:?} to be List[str], got {}",
                crate::artifact::short(v)
            ))
        })?;
    if list.is_empty() {
        return Ok((String::new(), vec![]));
    }
    let target = if random_reference {
        let mut rng = new_random_generator(&Value::Object(refs.clone()));
        list[rng.choice_index(list.len())].clone()
    } else {
        list[0].clone()
    };
    Ok((target, list))
}

impl TemplateKind for MultiReferenceTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "MultiReferenceTemplate"
    }
    fn default_serializer(&self) -> &'static dyn Serializer {
        plain_multi_type().as_ref()
    }
    fn serialize(&self, data: &mut Fields, instance: &mut Instance) -> Result<Replaced> {
        serialize_multi_reference(self.serializer(), &self.references_field, data, instance)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        multi_reference_target(refs, &self.references_field, self.random_reference)
    }
}

/// `multi_turn_template`: a multi-reference template (empty `input_format` by default) that
/// also copies the input field `turns_field` to the instance's `__turns__`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiTurnTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    #[serde(default)]
    pub input_format: FormatString,
    /// `references_field`: the reference field holding the list of references (default
    /// `references`).
    #[serde(default = "default_references_field")]
    pub references_field: String,
    /// `random_reference`: pick the target among the references at random (seeded by the reference
    /// fields) instead of the first (default false).
    #[serde(default)]
    pub random_reference: bool,
    /// `turns_field`: the input field holding the conversation's turns, copied to `__turns__`.
    pub turns_field: String,
    /// `output_format`, inherited and unused, as in `multi_reference_template`.
    #[serde(default, rename = "output_format")]
    _output_format: Option<Value>,
}

impl TemplateKind for MultiTurnTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "MultiTurnTemplate"
    }
    fn default_serializer(&self) -> &'static dyn Serializer {
        plain_multi_type().as_ref()
    }
    fn serialize(&self, data: &mut Fields, instance: &mut Instance) -> Result<Replaced> {
        serialize_multi_reference(self.serializer(), &self.references_field, data, instance)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        multi_reference_target(refs, &self.references_field, self.random_reference)
    }
    fn post_process(&self, input: &mut Fields, instance: &mut Instance) -> Result<()> {
        let turns = dict_get(input, &self.turns_field)?.into_owned();
        instance.insert("__turns__".into(), turns);
        Ok(())
    }
}

fn default_quantum() -> Value {
    crate::json!(0.1)
}

/// `output_quantizing_template`: an `input_output_template` whose serializer first rounds
/// numbers to multiples of `quantum` (default serializer otherwise: a plain
/// `multi_type_serializer`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputQuantizingTemplate {
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
    /// `quantum`: numbers are rounded to the nearest multiple of it before serialization (default
    /// 0.1).
    #[serde(default = "default_quantum")]
    pub quantum: Value,
    /// The quantizer in front of the serializer, built on first use.
    #[serde(skip)]
    quantizing: std::sync::OnceLock<QuantizingFirst>,
}

impl TemplateKind for OutputQuantizingTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "OutputQuantizingTemplate"
    }
    fn own_serializer(&self) -> &dyn Serializer {
        self.quantizing.get_or_init(|| {
            let inner = match self.base.serializer() {
                Some(s) => s.inner.clone(),
                None => plain_multi_type().clone(),
            };
            QuantizingFirst::new(NumberQuantizingSerializer { quantum: self.quantum.clone() }, inner)
        })
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        let t = self.format(refs, "reference field", self.output_format.as_ref(), "output_format")?;
        Ok((t.clone(), vec![t]))
    }
}

fn default_labels_field() -> String {
    "labels".into()
}
fn default_labels_separator() -> String {
    ", ".into()
}
fn default_labels_output_format() -> Option<FormatString> {
    Some("{labels}".into())
}
fn default_empty_label() -> String {
    "None".into()
}

/// The list-of-labels settings of Unitxt's `MultiLabelTemplate`.
#[derive(Deserialize)]
pub struct LabelsSettings {
    /// `labels_field`: the reference field holding the list of labels (default `labels`).
    #[serde(default = "default_labels_field")]
    pub labels_field: String,
    /// `labels_separator`: put between labels in the target (default `", "`).
    #[serde(default = "default_labels_separator")]
    pub labels_separator: String,
    /// `output_format`: the target, a format string in which the joined labels text stands under
    /// the `labels_field` name (default `{labels}`).
    #[serde(default = "default_labels_output_format")]
    pub output_format: Option<FormatString>,
    /// `empty_label`: the target's labels text when there are none (default `None`).
    #[serde(default = "default_empty_label")]
    pub empty_label: String,
}

impl LabelsSettings {
    /// `MultiLabelTemplate.preprocess_reference_fields`: the labels list joined by the
    /// separator (`empty_label` for none), as the only reference field.
    fn join_labels(&self, refs: &Fields) -> Result<Fields> {
        let labels = get_field(refs, &self.labels_field, "labels field")?;
        let list = labels.as_array().ok_or_else(|| {
            Error::invalid(format!(
                "MultiLabelTemplate requires labels field {:?} to be a list, got {}",
                self.labels_field,
                crate::artifact::short(labels)
            ))
        })?;
        let mut texts = Vec::new();
        for l in list {
            texts.push(
                l.as_str()
                    .ok_or_else(|| Error::invalid(format!("labels must be strings, got {}", crate::artifact::short(l))))?
                    .to_string(),
            );
        }
        if texts.is_empty() {
            texts.push(self.empty_label.clone());
        }
        let mut out = Fields::new();
        out.insert(self.labels_field.as_str().into(), Value::String(texts.join(&self.labels_separator).into()));
        Ok(out)
    }
}

/// `multi_label_template`: the target is the list in `labels_field` joined by
/// `labels_separator` (`empty_label` when empty), formatted with `output_format`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiLabelTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// The list-of-labels settings (`labels_field`, `labels_separator`, `output_format`,
    /// `empty_label`), flattened into the artifact.
    #[serde(flatten)]
    pub labels: LabelsSettings,
}

fn labels_target(t: &dyn TemplateKind, fmt: &Option<FormatString>, refs: &Fields) -> Result<(String, Vec<String>)> {
    let s = t.format(refs, "reference field", fmt.as_ref(), "output_format")?;
    Ok((s.clone(), vec![s]))
}

impl TemplateKind for MultiLabelTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "MultiLabelTemplate"
    }
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![Value::String(Str::const_new("processors.to_list_by_comma"))]
    }
    fn preprocess_reference_fields(&self, refs: &Fields) -> Result<Option<Fields>> {
        self.labels.join_labels(refs).map(Some)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        labels_target(self, &self.labels.output_format, refs)
    }
}

fn default_spans_starts() -> String {
    "spans_starts".into()
}
fn default_spans_ends() -> String {
    "spans_ends".into()
}
fn default_text_field() -> String {
    "text".into()
}

/// The span settings of Unitxt's `SpanLabelingBaseTemplate`.
#[derive(Deserialize)]
pub struct SpanSettings {
    /// `spans_starts_field`: the reference field with each span's start offset in the text (default
    /// `spans_starts`).
    #[serde(default = "default_spans_starts")]
    pub spans_starts_field: String,
    /// `spans_ends_field`: the reference field with each span's end offset, exclusive (default
    /// `spans_ends`).
    #[serde(default = "default_spans_ends")]
    pub spans_ends_field: String,
    /// `text_field`: the reference field with the text the spans index into (default `text`).
    #[serde(default = "default_text_field")]
    pub text_field: String,
    /// `labels_support`: only spans with one of these labels are kept (absent: all).
    #[serde(default)]
    pub labels_support: Option<Vec<Value>>,
}

fn as_index(v: &Value, what: &str) -> Result<i64> {
    match v {
        Value::Bool(b) => Ok(*b as i64),
        Value::Number(n) if n.is_i64() => Ok(n.as_i64().unwrap_or(0)),
        other => Err(Error::invalid(format!("{what} must be ints, got {}", crate::artifact::short(other)))),
    }
}

/// Python's `text[start:end]` on code points.
fn py_slice(text: &str, start: i64, end: i64) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len() as i64;
    let fix = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) };
    let (s, e) = (fix(start), fix(end));
    if s >= e {
        String::new()
    } else {
        chars[s as usize..e as usize].iter().collect()
    }
}

fn cmp_label(a: &Value, b: &Value) -> Result<Ordering> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.cmp(y)),
        (Value::Number(_) | Value::Bool(_), Value::Number(_) | Value::Bool(_)) => {
            let (x, y) = (a.as_f64().unwrap_or(if a == &Value::Bool(true) { 1.0 } else { 0.0 }), b.as_f64().unwrap_or(if b == &Value::Bool(true) { 1.0 } else { 0.0 }));
            Ok(x.partial_cmp(&y).unwrap_or(Ordering::Equal))
        }
        _ => Err(Error::invalid("span labels of different types cannot be sorted")),
    }
}

impl SpanSettings {
    /// `SpanLabelingBaseTemplate.extract_span_label_pairs`: (span text, label) pairs of the
    /// supported labels, sorted by (start, end, text, label).
    fn pairs(&self, refs: &Fields, labels_field: &str) -> Result<Vec<(String, Value)>> {
        let list = |name: &str| -> Result<Vec<Value>> {
            get_field(refs, name, "reference field")?
                .as_array()
                .cloned()
                .ok_or_else(|| Error::invalid(format!("reference field {name:?} must be a list")))
        };
        let starts = list(&self.spans_starts_field)?;
        let ends = list(&self.spans_ends_field)?;
        let labels = list(labels_field)?;
        let text = get_field(refs, &self.text_field, "reference field")?
            .as_str()
            .ok_or_else(|| Error::invalid(format!("text field {:?} must be a string", self.text_field)))?;
        let supported = |l: &Value| self.labels_support.as_ref().is_none_or(|s| s.iter().any(|x| crate::py::str_format::py_eq(x, l)));
        let mut spans = Vec::new();
        for ((s, e), l) in starts.iter().zip(&ends).zip(&labels) {
            if supported(l) {
                let (s, e) = (as_index(s, "span starts")?, as_index(e, "span ends")?);
                spans.push((s, e, py_slice(text, s, e), l.clone()));
            }
        }
        let mut err = None;
        spans.sort_by(|a, b| {
            a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)).then_with(|| {
                cmp_label(&a.3, &b.3).unwrap_or_else(|e| {
                    err = Some(e);
                    Ordering::Equal
                })
            })
        });
        if let Some(e) = err {
            return Err(e);
        }
        Ok(spans.into_iter().map(|(_, _, t, l)| (t, l)).collect())
    }
}

fn default_span_label_format() -> FormatString {
    "{span}: {label}".into()
}
fn default_escape_characters() -> Option<Vec<String>> {
    Some(vec![":".into(), ",".into()])
}

/// `span_labeling_template`: each labelled span as `span_label_format` (with `:` and `,`
/// escaped by a backslash in the span), sorted by position, joined like a multi-label target.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanLabelingTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// The list-of-labels settings (`labels_field`, `labels_separator`, `output_format`,
    /// `empty_label`), flattened into the artifact.
    #[serde(flatten)]
    pub labels: LabelsSettings,
    /// The span settings (`spans_starts_field`, `spans_ends_field`, `text_field`,
    /// `labels_support`), flattened into the artifact.
    #[serde(flatten)]
    pub spans: SpanSettings,
    /// `span_label_format`: one labelled span, a format string over `{span}` and `{label}` (default
    /// `{span}: {label}`).
    #[serde(default = "default_span_label_format")]
    pub span_label_format: FormatString,
    /// `escape_characters`: characters backslash-escaped in a span's text (default `:` and `,`).
    #[serde(default = "default_escape_characters")]
    pub escape_characters: Option<Vec<String>>,
}

/// Builds `{"labels": targets}` and joins it as `MultiLabelTemplate` does (which looks the
/// labels up under `labels_field`, as Unitxt does).
fn join_span_targets(labels: &LabelsSettings, targets: Vec<String>) -> Result<Fields> {
    let mut m = Fields::new();
    m.insert("labels".into(), Value::Array(targets.into_iter().map(Value::from).collect()));
    labels.join_labels(&m)
}

impl TemplateKind for SpanLabelingTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "SpanLabelingTemplate"
    }
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![Value::String(Str::const_new("processors.to_span_label_pairs"))]
    }
    fn preprocess_reference_fields(&self, refs: &Fields) -> Result<Option<Fields>> {
        let mut targets = Vec::new();
        for (span, label) in self.spans.pairs(refs, &self.labels.labels_field)? {
            let mut span = span;
            if let Some(chars) = &self.escape_characters {
                for c in chars {
                    span = span.replace(c.as_str(), &format!("\\{c}"));
                }
            }
            let mut data = Fields::new();
            data.insert("span".into(), Value::String(span.into()));
            data.insert("label".into(), label);
            targets.push(self.span_label_format.format(&data).map_err(|e| match e {
                FormatError::Key(k) => Error::invalid(format!("span_label_format needs unknown field {k:?}")),
                FormatError::Other(m) => Error::invalid(format!("span_label_format: {m}")),
            })?);
        }
        join_span_targets(&self.labels, targets).map(Some)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        labels_target(self, &self.labels.output_format, refs)
    }
}

/// `span_labeling_json_template`: the labelled spans grouped by label, as one JSON object
/// (`{"label": ["span", ...]}`, non-ASCII kept); no spans give `empty_label`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanLabelingJsonTemplate {
    /// The arguments every template shares (`instruction`, `target_prefix`, `postprocessors`,
    /// `serializer`, ...), flattened into the artifact.
    #[serde(flatten)]
    pub base: TemplateBase,
    /// `input_format`: the source, a format string over the serialized input fields (`{field}`
    /// placeholders).
    pub input_format: FormatString,
    /// The list-of-labels settings (`labels_field`, `labels_separator`, `output_format`,
    /// `empty_label`), flattened into the artifact.
    #[serde(flatten)]
    pub labels: LabelsSettings,
    /// The span settings (`spans_starts_field`, `spans_ends_field`, `text_field`,
    /// `labels_support`), flattened into the artifact.
    #[serde(flatten)]
    pub spans: SpanSettings,
}

fn json_key(v: &Value) -> Result<String> {
    Ok(match v {
        Value::String(s) => s.as_str().to_owned(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => crate::py::repr::float_repr(n.as_f64().unwrap_or(f64::NAN)),
        Value::Number(n) => n.to_string(),
        other => return Err(Error::invalid(format!("a span label cannot be a JSON key: {}", crate::artifact::short(other)))),
    })
}

impl TemplateKind for SpanLabelingJsonTemplate {
    fn base(&self) -> &TemplateBase {
        &self.base
    }
    fn class_name(&self) -> &'static str {
        "SpanLabelingJsonTemplate"
    }
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![
            Value::String(Str::const_new("processors.load_json")),
            Value::String(Str::const_new("processors.dict_of_lists_to_value_key_pairs")),
        ]
    }
    fn preprocess_reference_fields(&self, refs: &Fields) -> Result<Option<Fields>> {
        let mut groups = Fields::new();
        for (span, label) in self.spans.pairs(refs, &self.labels.labels_field)? {
            let key = json_key(&label)?;
            match groups.entry(key).or_insert_with(|| Value::Array(vec![])) {
                Value::Array(a) => a.push(Value::String(span.into())),
                _ => return Err(Error::invalid("internal: span group is not a list")),
            }
        }
        let targets = if groups.is_empty() {
            vec![]
        } else {
            vec![dumps(&Value::Object(groups), DumpOptions { ensure_ascii: false, ..DumpOptions::default() })]
        };
        join_span_targets(&self.labels, targets).map(Some)
    }
    fn input_fields_to_source(&self, input: &Fields) -> Result<String> {
        self.format(input, "input field", Some(&self.input_format), "input_format")
    }
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)> {
        labels_target(self, &self.labels.output_format, refs)
    }
}
