//! Templates: verbalize task fields into `source`, `target` and `references`
//! (Unitxt's `templates.py`), and the serializers that turn field values into text
//! (Unitxt's `serializers.py`).
//!
//! [`base`] holds the rendering flow shared by all templates; [`input_output`],
//! [`multiple_choice`] and [`others`] the template families; [`serializers`] the serializers.

use crate::error::Result;
use crate::value::{Instance, Shared, Value};

pub mod base;
pub mod input_output;
pub mod multiple_choice;
pub mod others;
pub mod serializers;

impl crate::artifact::ArtifactKind for dyn Template {
    const KIND: &'static str = "template";
}

impl crate::artifact::ArtifactKind for dyn Serializer {
    const KIND: &'static str = "serializer";
}

#[cfg(test)]
mod tests;

/// A template (Unitxt's `Template.process`): verbalizes the task's output of an instance (its
/// `input_fields` and `reference_fields`) into `source`, `instruction`, `target_prefix`,
/// `target`, `references` and `postprocessors`.
pub trait Template: Send + Sync {
    /// Renders `instance`, an instance of split `split` as the task leaves it. Returns what
    /// the template makes ([`Rendered`]); `instance` keeps its other fields (a template's last
    /// step may add some, such as a multi-turn template's `__turns__`), with empty dicts in
    /// the places of `input_fields` and `reference_fields` (the rendered ones are in the
    /// [`Rendered`]). An instance's own `instruction` is the format string of the instruction.
    /// `None` when rendering is skipped: the instance already has `source`, `target` and
    /// `references` and the template keeps rendered instances (`skip_rendered_instance`,
    /// the default); the instance is then untouched. On the inference split
    /// ([`base::INFERENCE_STREAM`]) no `target` and `references` are made and
    /// `reference_fields` is optional. Errors: a missing or non-dict `input_fields` or
    /// `reference_fields`, and every error of the template's formatting and serializers.
    ///
    /// `plan` holds texts made once for the instances of a split ([`Template::plan`]); each is
    /// used only where the instance's own field texts are the ones it was made from.
    fn render(&self, instance: &mut Instance, split: &str, plan: &RenderPlan) -> Result<Option<Rendered<'_>>>;

    /// The texts of this template that a split's fixed fields (`fixed`, the same values in
    /// every instance, see [`crate::task::Fixed`]) determine: the instruction and the target
    /// prefix when all their fields are among them. None by default.
    fn plan(&self, _fixed: &Instance) -> RenderPlan {
        RenderPlan::default()
    }

    /// Puts `serializers` in front of those of the template's multi-type serializer (Unitxt's
    /// `MultiTypeSerializer.add_serializers`, which the recipe's `serializer` argument calls),
    /// on a template built for one recipe. Errors: the template's serializer is not a
    /// multi-type serializer, or serializers were added already.
    fn add_serializers(&self, serializers: Vec<crate::artifact::Art<dyn Serializer>>) -> Result<()>;

    /// Unitxt's `Template.process` on an instance: [`Template::render`], its result written
    /// into the instance ([`Rendered::write_into`]).
    fn process_instance(&self, mut instance: Instance, split: &str) -> Result<Instance> {
        if let Some(r) = self.render(&mut instance, split, &RenderPlan::default())? {
            r.write_into(&mut instance);
        }
        Ok(instance)
    }
}

/// Texts of a template made once for a split (see [`Template::plan`]).
#[derive(Debug, Default)]
pub struct RenderPlan {
    /// The instruction, when its fields are all fixed.
    pub instruction: Option<PlannedText>,
    /// The target prefix, likewise.
    pub target_prefix: Option<PlannedText>,
}

/// A format string's text made from the texts of its (plain `{name}`) fields.
#[derive(Debug)]
pub struct PlannedText {
    /// Each field with the text it had.
    pub fields: Vec<(crate::value::FieldName, crate::value::Str)>,
    /// The formatted text.
    pub text: crate::value::Str,
}

impl PlannedText {
    /// The text, when every field of `inputs` (the serialized input fields) has the text it
    /// was made from: the format string then gives this text.
    pub fn recall(&self, inputs: &crate::value::Map) -> Option<crate::value::Str> {
        self.fields
            .iter()
            .all(|(name, text)| matches!(inputs.get_name(name), Some(Value::String(s)) if crate::value::json::same_str(s, text)))
            .then(|| self.text.clone())
    }
}

/// What a template makes of an instance (see [`Template::render`]), or, for an instance that
/// came already rendered, what it has of the same fields ([`Rendered::taken_from`]).
#[derive(Debug, Clone)]
pub struct Rendered<'t> {
    /// The `source` text (the input fields in the template's `input_format`).
    pub source: Value,
    /// The `instruction` text (`None`: the instance has none).
    pub instruction: Option<Value>,
    /// The `target_prefix` text (`None`: the instance has none).
    pub target_prefix: Option<Value>,
    /// The instance's `input_fields`, as the template leaves them (its values, not their
    /// texts); `None` when the instance has none.
    pub input_fields: Option<crate::value::Map>,
    /// The instance's `reference_fields`, likewise.
    pub reference_fields: Option<crate::value::Map>,
    /// The `target` text (a string; `None` on the inference split).
    pub target: Option<Value>,
    /// The `references` texts (a list of strings; `None` on the inference split).
    pub references: Option<Value>,
    /// The postprocessor names (a list of strings, the template's); `None` when the
    /// instance has none.
    pub postprocessors: Option<Shared<'t>>,
}

impl Rendered<'_> {
    /// Writes the fields into `instance`, as Unitxt's `Template.process` merges them: a field
    /// the instance has keeps its place, the others are added in the order `source`,
    /// `instruction`, `target_prefix`, `postprocessors`, `input_fields`, `reference_fields`,
    /// `target`, `references` (a field that the template's last step added, such as
    /// `__turns__`, then comes before the new ones rather than after them).
    pub fn write_into(self, instance: &mut Instance) {
        let put = |instance: &mut Instance, k: &str, v: Option<Value>| {
            if let Some(v) = v {
                instance.insert(k.into(), v);
            }
        };
        put(instance, "source", Some(self.source));
        put(instance, "instruction", self.instruction);
        put(instance, "target_prefix", self.target_prefix);
        put(instance, "postprocessors", self.postprocessors.map(Shared::into_value));
        put(instance, "input_fields", self.input_fields.map(Value::Object));
        put(instance, "reference_fields", self.reference_fields.map(Value::Object));
        put(instance, "target", self.target);
        put(instance, "references", self.references);
    }

    /// The fields of an instance that came already rendered (see [`Template::render`]), moved
    /// out of it. Errors when it has no `source`.
    pub fn taken_from(instance: &mut Instance) -> Result<Rendered<'static>> {
        let mut take = |k: &str| instance.swap_remove(k);
        let dict = |v: Option<Value>| match v {
            Some(Value::Object(m)) => Some(m),
            _ => None,
        };
        Ok(Rendered {
            source: take("source").ok_or_else(|| crate::error::Error::invalid("the finished instance has no \"source\" field"))?,
            instruction: take("instruction"),
            target_prefix: take("target_prefix"),
            input_fields: dict(take("input_fields")),
            reference_fields: dict(take("reference_fields")),
            target: take("target"),
            references: take("references"),
            postprocessors: take("postprocessors").map(Shared::Own),
        })
    }
}

/// Turns one field value into text (Unitxt's `Serializer.serialize`).
pub trait Serializer: Send + Sync {
    /// The text for `value`, or `None` when this serializer does not handle the value's type
    /// (so that a multi-type serializer tries the next one).
    fn serialize(&self, value: &Value, instance: &Instance) -> Result<Option<String>>;

    /// Like [`Serializer::serialize`], for serializers that record things in the instance
    /// (images in `media/images`, tools in `__tools__`) or rewrite the value (an image's
    /// `image` becomes its media path), as Unitxt's do. Templates call this one.
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        self.serialize(value, instance)
    }

    /// True when this serializer answers `None` for every string (it handles only lists,
    /// dicts or numbers), so that a multi-type serializer can pass strings by without asking.
    fn skips_strings(&self) -> bool {
        false
    }

    /// True when this serializer answers `None` for every non-empty list whose items are all
    /// strings, without touching the value or the instance (it handles dicts, numbers, or lists
    /// of dicts only), so that a multi-type serializer can pass such lists on without asking.
    fn skips_string_lists(&self) -> bool {
        false
    }

    /// True when every string serializes to itself and nothing else happens (no change to the
    /// value or the instance): a template may then use a string field's text as its
    /// serialization without asking (see [`base::TemplateKind::serialize`]).
    fn passes_strings(&self) -> bool {
        false
    }

    /// The serializers a multi-type serializer tries, in order; `None` for any other.
    fn serializers(&self) -> Option<&[crate::artifact::Art<dyn Serializer>]> {
        None
    }
}

