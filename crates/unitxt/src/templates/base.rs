//! Shared machinery of all templates: the rendering flow of Unitxt's `Template.process`
//! ([`render`]), its formatting errors ([`apply_formatting`]) and the fields every template
//! accepts ([`TemplateBase`]). Python's `str.format` itself is in [`crate::py::str_format`].

use serde::Deserialize;

use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::py::str_format::{py_title, FormatError, FormatString, PlainPiece};
use crate::templates::serializers::{default_template_serializer, serialize_with};
use crate::templates::{PlannedText, RenderPlan, Rendered, Serializer, Template};
use crate::value::{Constant, Instance, Shared, Value};

/// Name of the split Unitxt renders without references (`constants.inference_stream`).
pub const INFERENCE_STREAM: &str = "__INFERENCE_STREAM__";

/// An ordered field map (a Python dict of field name to value).
pub type Fields = crate::value::Map;

/// The values [`TemplateKind::serialize`] replaced by their texts, with their positions.
pub type Replaced = Vec<(usize, Value)>;

/// Puts the values that [`TemplateKind::serialize`] replaced back at their positions in `data`
/// (which has kept its keys and their order since).
pub fn restore_serialized(data: &mut Fields, replaced: Replaced) {
    for (i, v) in replaced {
        if let Some((_, slot)) = data.get_index_entry_mut(i) {
            *slot = v;
        }
    }
}

fn default_true() -> bool {
    true
}

/// Arguments common to every template (Unitxt's `Template` fields).
///
/// `postprocessors` is `None` when the catalog does not give it; each template then uses its
/// own default (see [`TemplateKind::default_postprocessors`]). `serializer` is `None` for the
/// template's default serializer.
#[derive(Deserialize, Default)]
pub struct TemplateBase {
    /// Return instances that already have `source`, `target` and `references` unchanged.
    #[serde(default = "default_true")]
    pub skip_rendered_instance: bool,
    /// Processor names (or inline operator objects) copied to the instance's `postprocessors`.
    #[serde(default)]
    pub postprocessors: Option<Vec<Value>>,
    /// The postprocessors in effect (`postprocessors` or the template's default), made on
    /// first use and lent to every instance the template renders.
    #[serde(skip)]
    postprocessors_constant: std::sync::OnceLock<Constant>,
    /// Format string over the serialized input fields; an instance's own `instruction` wins.
    #[serde(default)]
    pub instruction: FormatString,
    /// Format string over the serialized input fields.
    #[serde(default)]
    pub target_prefix: FormatString,
    /// Input fields whose (string) value is title-cased before serialization.
    #[serde(default)]
    pub title_fields: Vec<String>,
    /// `serializer`: the serializer override, a catalog name or an inline serializer (absent:
    /// the template's default); built by [`TemplateBase::build`].
    #[serde(default, rename = "serializer")]
    pub serializer_json: Option<Value>,
    /// The built `serializer`, set once by [`TemplateBase::build`].
    #[serde(skip)]
    serializer: std::sync::OnceLock<Art<dyn Serializer>>,
    /// The serializer in effect once a recipe added its own ([`Template::add_serializers`]).
    #[serde(skip)]
    added_serializers: std::sync::OnceLock<std::sync::Arc<dyn Serializer>>,
}

impl TemplateBase {
    /// Builds the `serializer` override in `cx`, once (the registry calls it when it builds
    /// the template).
    pub fn build(&self, cx: &crate::artifact::BuildContext<'_>) -> Result<()> {
        if let Some(s) = cx.build_opt::<dyn Serializer>(self.serializer_json.as_ref())? {
            let _ = self.serializer.set(s);
        }
        Ok(())
    }
    /// The built serializer override, if the template has one.
    pub fn serializer(&self) -> Option<&Art<dyn Serializer>> {
        self.serializer.get()
    }
}

/// The hooks of a concrete template, called in order by [`render`] (mirrors the overridable
/// methods of Unitxt's `Template`). Every type implementing it is a [`Template`].
pub trait TemplateKind: Send + Sync {
    /// The common arguments.
    fn base(&self) -> &TemplateBase;
    /// Unitxt's class name, for error messages.
    fn class_name(&self) -> &'static str;
    /// Postprocessors used when the catalog gives none.
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![Value::String(crate::value::Str::const_new("processors.to_string_stripped"))]
    }
    /// The serializer used when the catalog gives none.
    fn default_serializer(&self) -> &'static dyn Serializer {
        default_template_serializer()
    }
    /// The serializer in effect. Borrowed, not an `Arc` clone: a clone per instance would
    /// update a reference count shared by the worker threads, passing its cache line between
    /// the cores for every instance.
    fn serializer(&self) -> &dyn Serializer {
        match self.base().added_serializers.get() {
            Some(s) => s.as_ref(),
            None => self.own_serializer(),
        }
    }
    /// The template's own serializer, before a recipe adds any: the catalog's `serializer`,
    /// or the template's default. A template that builds its serializer differently overrides
    /// this one, not [`TemplateKind::serializer`].
    fn own_serializer(&self) -> &dyn Serializer {
        match self.base().serializer() {
            Some(s) => s.inner.as_ref(),
            None => self.default_serializer(),
        }
    }
    /// Changes input and reference fields in place (not on the inference split). The maps are
    /// the instance's own `input_fields` / `reference_fields`, so changes stay in the output.
    fn preprocess_input_and_reference_fields(&self, _input: &mut Fields, _refs: Option<&mut Fields>) -> Result<()> {
        Ok(())
    }
    /// Prepares input fields for serialization: `None` after changing `input` in place (these
    /// changes stay in the instance), or `Some` new map that leaves the instance untouched.
    fn preprocess_input_fields(&self, _input: &mut Fields) -> Result<Option<Fields>> {
        Ok(None)
    }
    /// Prepares reference fields for serialization: `Some` new map to serialize instead of
    /// `refs`, or `None` (the default) to serialize `refs` itself. The instance keeps `refs`
    /// either way.
    fn preprocess_reference_fields(&self, _refs: &Fields) -> Result<Option<Fields>> {
        Ok(None)
    }
    /// Serializes every field value to text, in place (Unitxt's `Template.serialize`): each
    /// value of `data` becomes the string of its text, and the values replaced are returned
    /// with their positions, for [`restore_serialized`]. A string that the serializer passes
    /// unchanged ([`Serializer::passes_strings`]) is its own text: it stays and is not
    /// returned. A serializer may change a value before it is replaced (an image becomes its
    /// placeholder); the value returned is the changed one.
    fn serialize(&self, data: &mut Fields, instance: &mut Instance) -> Result<Replaced> {
        let ser = self.serializer();
        let passes = ser.passes_strings();
        let mut replaced = Replaced::new();
        for (i, (_, v)) in data.iter_mut().enumerate() {
            serialize_in_place(ser, passes, (i, v), instance, &mut replaced)?;
        }
        Ok(replaced)
    }
    /// The `source` text from the serialized input fields.
    fn input_fields_to_source(&self, input: &Fields) -> Result<String>;
    /// `target` and `references` from the serialized reference fields.
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)>;
    /// [`TemplateKind::reference_fields_to_target_and_references`] as the values the instance
    /// gets: the `target` string and the `references` list of strings. A template whose one
    /// reference is its target makes the two without copying the text between `String`s.
    fn target_and_references(&self, refs: &Fields) -> Result<(Value, Value)> {
        let (target, references) = self.reference_fields_to_target_and_references(refs)?;
        Ok((Value::String(target.into()), Value::Array(references.into_iter().map(Value::from).collect())))
    }
    /// Last changes, once everything is rendered: to the input fields as the instance keeps
    /// them (`input`, its `input_fields`), and to the instance's other fields.
    fn post_process(&self, _input: &mut Fields, _instance: &mut Instance) -> Result<()> {
        Ok(())
    }
    /// Python's `format_str.format(**data)` with Unitxt's error for a missing field.
    fn format(&self, data: &Fields, data_type: &str, format_str: Option<&FormatString>, format_name: &str) -> Result<String> {
        apply_formatting(self.class_name(), data, data_type, format_str, format_name)
    }
    /// [`TemplateKind::format`] as a [`Str`](crate::value::Str) (see [`FormatString::format_str`]):
    /// `render` formats the instruction and the target prefix with this one, and
    /// `input_output_template` its target. A template that overrides `format` must override
    /// this too, with the same texts and errors (none overrides either).
    fn format_str(&self, data: &Fields, data_type: &str, format_str: Option<&FormatString>, format_name: &str) -> Result<crate::value::Str> {
        apply_formatting_with(self.class_name(), data, data_type, format_str, format_name, FormatString::format_str)
    }
}

impl<T: TemplateKind> Template for T {
    fn render(&self, instance: &mut Instance, split: &str, plan: &RenderPlan) -> Result<Option<Rendered<'_>>> {
        render(self, instance, split, plan)
    }

    fn plan(&self, fixed: &Instance) -> RenderPlan {
        let b = self.base();
        RenderPlan { instruction: plan_text(self, &b.instruction, fixed), target_prefix: plan_text(self, &b.target_prefix, fixed) }
    }

    fn add_serializers(&self, serializers: Vec<Art<dyn Serializer>>) -> Result<()> {
        let items = self.serializer().serializers().ok_or_else(|| {
            Error::unsupported(format!(
                "the serializer of this {} is not a multi_type_serializer: the recipe's `serializer` cannot be added to it",
                self.class_name()
            ))
        })?;
        let all: Vec<Art<dyn Serializer>> = serializers.into_iter().chain(items.iter().cloned()).collect();
        let added: std::sync::Arc<dyn Serializer> = std::sync::Arc::new(crate::templates::serializers::MultiTypeSerializer::new(all));
        self.base().added_serializers.set(added).map_err(|_| Error::invalid("serializers were added to this template already"))
    }
}

/// `format` over the fixed fields it names, serialized by `t`, when all its fields are plain
/// and fixed (and serialize into strings).
fn plan_text<T: TemplateKind + ?Sized>(t: &T, format: &FormatString, fixed: &Instance) -> Option<PlannedText> {
    let names: Vec<String> = format
        .plain_pieces()?
        .into_iter()
        .filter_map(|p| match p {
            PlainPiece::Field(n) => Some(n),
            PlainPiece::Text(_) => None,
        })
        .collect();
    let mut data = Fields::new();
    for n in &names {
        data.insert(n.as_str().into(), fixed.get(n)?.clone());
    }
    t.serialize(&mut data, &mut Instance::new()).ok()?;
    let text = t.format_str(&data, "input field", Some(format), "planned text").ok()?;
    let fields = names
        .iter()
        .map(|n| match data.get(n) {
            Some(Value::String(s)) => Some((crate::value::FieldName::new(n), s.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(PlannedText { fields, text })
}

/// Takes the dict in field `key` out of `instance`, leaving an empty dict in its place (so
/// that putting it back keeps the key's position). `None` when missing or `null`.
fn take_fields_of(instance: &mut Instance, key: &str) -> Result<Option<Fields>> {
    match instance.get_mut(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(std::mem::take(m))),
        Some(other) => Err(Error::invalid(format!(
            "instance field `{key}` must be a dict, got {}",
            crate::artifact::short(other)
        ))),
    }
}

/// Replaces field value `v` (at position `i` of its dict) by its text, unless `passes` (the
/// serializer gives strings back unchanged) and it is a string; the value replaced is pushed
/// onto `replaced` with its position (see [`TemplateKind::serialize`]).
#[inline(always)]
pub(crate) fn serialize_in_place(
    ser: &dyn Serializer,
    passes: bool,
    (i, v): (usize, &mut Value),
    instance: &mut Instance,
    replaced: &mut Replaced,
) -> Result<()> {
    if !(passes && v.is_string()) {
        let text = serialize_with(ser, v, instance)?;
        replaced.push((i, std::mem::replace(v, Value::String(text.into()))));
    }
    Ok(())
}

/// [`Template::render`] of a [`TemplateKind`], in the order of Unitxt's `Template.process`:
/// the input fields are prepared, title-cased and serialized; `source`, `instruction` and
/// `target_prefix` are formatted from their texts; then (except on the inference split) the
/// reference fields are serialized into `target` and `references`; last comes the
/// template's `post_process`. The input and reference fields are handed back with their
/// values, not their texts.
pub fn render<'t, T: TemplateKind + ?Sized>(t: &'t T, instance: &mut Instance, split: &str, plan: &RenderPlan) -> Result<Option<Rendered<'t>>> {
    let b = t.base();
    if b.skip_rendered_instance
        && instance.contains_key("source")
        && instance.contains_key("target")
        && instance.contains_key("references")
    {
        return Ok(None);
    }
    let inference = split == INFERENCE_STREAM;
    let mut input =
        take_fields_of(instance, "input_fields")?.ok_or_else(|| Error::invalid("the instance has no `input_fields` to render"))?;
    let mut refs = take_fields_of(instance, "reference_fields")?;
    if !inference {
        t.preprocess_input_and_reference_fields(&mut input, refs.as_mut())?;
    }
    let mut fresh = t.preprocess_input_fields(&mut input)?;
    let replaced = {
        let cur = match fresh.as_mut() {
            Some(f) => f,
            None => &mut input,
        };
        for f in &b.title_fields {
            let v = cur
                .get_mut(f)
                .ok_or_else(|| Error::not_found(format!("title field {f:?} is not an input field")))?;
            match v {
                Value::String(s) => *s = py_title(s).into(),
                other => {
                    return Err(Error::invalid(format!(
                        "title field {f:?} must be a string, got {}",
                        crate::artifact::short(other)
                    )))
                }
            }
        }
        t.serialize(cur, instance)?
    };
    // The input fields hold their texts until they are restored below.
    let serialized_inputs = fresh.as_ref().unwrap_or(&input);
    let source = t.input_fields_to_source(serialized_inputs)?;
    // An instance's own instruction is the format string (after serializing: serializers may
    // add fields, but none adds this one).
    // A text of the split's plan is used where the field texts are the planned ones.
    let planned = |p: &Option<PlannedText>| p.as_ref().and_then(|p| p.recall(serialized_inputs));
    let own;
    let instruction_fmt = match instance.get("instruction") {
        None => Some(&b.instruction),
        Some(Value::String(s)) => {
            own = FormatString::new(s.as_str());
            Some(&own)
        }
        Some(_) => None,
    };
    let instruction = match planned(&plan.instruction).filter(|_| !instance.contains_key("instruction")) {
        Some(text) => text,
        None => t.format_str(serialized_inputs, "input field", instruction_fmt, "instruction")?,
    };
    let target_prefix = match planned(&plan.target_prefix) {
        Some(text) => text,
        None => t.format_str(serialized_inputs, "input field", Some(&b.target_prefix), "target_prefix")?,
    };
    if fresh.is_none() {
        restore_serialized(&mut input, replaced);
    }
    // Serialized in place and put back (or a new map of the template's), so that the instance
    // keeps its reference fields as they were.
    let (target, references) = if inference {
        (None, None)
    } else {
        let r = refs.as_mut().ok_or_else(|| Error::invalid("the instance has no `reference_fields` to render"))?;
        let (target, references) = match t.preprocess_reference_fields(r)? {
            Some(mut prepared) => {
                t.serialize(&mut prepared, instance)?;
                t.target_and_references(&prepared)?
            }
            None => {
                let replaced = t.serialize(r, instance)?;
                let out = t.target_and_references(r)?;
                restore_serialized(r, replaced);
                out
            }
        };
        (Some(target), Some(references))
    };
    t.post_process(&mut input, instance)?;
    let postprocessors = b.postprocessors_constant.get_or_init(|| {
        Constant::new(Value::Array(b.postprocessors.clone().unwrap_or_else(|| t.default_postprocessors())))
    });
    Ok(Some(Rendered {
        source: Value::String(source.into()),
        instruction: Some(Value::String(instruction)),
        target_prefix: Some(Value::String(target_prefix)),
        input_fields: Some(input),
        reference_fields: refs,
        target,
        references,
        postprocessors: Some(Shared::Lent(postprocessors)),
    }))
}

/// Unitxt's `Template.apply_formatting`: `format_str.format(**data)`; a missing field becomes
/// an error listing the available ones, a missing format string an error naming it.
pub fn apply_formatting(
    class: &str,
    data: &Fields,
    data_type: &str,
    format_str: Option<&FormatString>,
    format_name: &str,
) -> Result<String> {
    apply_formatting_with(class, data, data_type, format_str, format_name, FormatString::format)
}

/// [`apply_formatting`] through `format` ([`FormatString::format`] or
/// [`FormatString::format_str`]).
fn apply_formatting_with<S>(
    class: &str,
    data: &Fields,
    data_type: &str,
    format_str: Option<&FormatString>,
    format_name: &str,
    format: fn(&FormatString, &Fields) -> std::result::Result<S, FormatError>,
) -> Result<S> {
    let f = format_str.ok_or_else(|| {
        Error::invalid(format!("required field '{format_name}' of class {class} is not set"))
    })?;
    format(f, data).map_err(|e| match e {
        FormatError::Key(_) => Error::invalid(format!(
            "available {data_type}s are [{}] but {class}.{format_name} format requires different ones: {f:?}",
            data.keys().cloned().collect::<Vec<_>>().join(", ")
        )),
        FormatError::Other(m) => Error::invalid(format!("in {class}.{format_name} {f:?}: {m}")),
    })
}

/// Reads a required field from a field map, with Unitxt-like wording on error.
pub fn get_field<'a>(data: &'a Fields, name: &str, what: &str) -> Result<&'a Value> {
    data.get(name).ok_or_else(|| {
        Error::not_found(format!(
            "{what} {name:?} is missing; available fields are [{}]",
            data.keys().cloned().collect::<Vec<_>>().join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn d(v: Value) -> Fields {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn missing_field_error_names_fields() {
        let data = d(json!({"question": "q"}));
        let e = apply_formatting("InputOutputTemplate", &data, "input field", Some(&"{text}".into()), "input_format")
            .unwrap_err()
            .to_string();
        assert!(e.contains("[question]") && e.contains("input_format"), "{e}");
        assert!(apply_formatting("X", &data, "reference field", None, "output_format").is_err());
    }
}
