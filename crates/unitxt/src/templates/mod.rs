//! Templates: verbalize task fields into `source`, `target` and `references`
//! (Unitxt's `templates.py`), and the serializers that turn field values into text
//! (Unitxt's `serializers.py`).
//!
//! [`base`] holds the rendering flow shared by all templates; [`input_output`],
//! [`multiple_choice`] and [`others`] the template families; [`serializers`] the serializers.

use crate::error::Result;
use crate::task::TaskParts;
use crate::value::{Instance, Value};

pub mod base;
pub mod input_output;
pub mod multiple_choice;
pub mod others;
pub mod serializers;

#[cfg(test)]
mod tests;

/// A template: reads `input_fields` and `reference_fields` of an instance and adds `source`,
/// `target`, `references`, `instruction`, `target_prefix` and `postprocessors`
/// (Unitxt's `Template.process`).
pub trait Template: Send + Sync {
    /// Verbalizes one instance of split `split` (demos are verbalized with split `""`... the
    /// caller passes the instance's own split).
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance>;

    /// [`Template::process_instance`] for a recipe that hands what the template makes on to
    /// its format and finalization directly. When the instance has none of `source`,
    /// `instruction` and `target_prefix` to begin with and the split is not the inference
    /// split, everything the template makes or changes (the three texts, the input and
    /// reference fields, `target`, `references`, `postprocessors`) is returned as a
    /// [`Rendered`] instead of written into the instance: the instance keeps its other fields,
    /// with empty dicts in the places of `input_fields` and `reference_fields`, and
    /// [`Rendered::write_into`] gives back what `process_instance` gives. Otherwise, or when
    /// rendering is skipped, the instance is rendered as `process_instance` renders it and
    /// `None` is returned. This default always does the latter.
    fn verbalize(&self, instance: Instance, split: &str) -> Result<(Instance, Option<Rendered>)> {
        Ok((self.process_instance(instance, split)?, None))
    }

    /// [`Template::verbalize`] of the task's output given in parts ([`TaskParts`], without
    /// `metrics`): the same as `verbalize` of the carried fields with `input_fields` and
    /// `reference_fields` added, but for where these two are. When [`Rendered`] is returned,
    /// the instance holds neither (not even an empty dict in their places); otherwise they
    /// may come after fields that the template adds. This default builds that instance.
    fn verbalize_parts(&self, parts: TaskParts, split: &str) -> Result<(Instance, Option<Rendered>)> {
        let TaskParts { input_fields, reference_fields, mut carried } = parts;
        carried.insert("input_fields".into(), Value::Object(input_fields));
        carried.insert("reference_fields".into(), Value::Object(reference_fields));
        self.verbalize(carried, split)
    }
}

/// What a template makes of an instance, handed over instead of written into it (see
/// [`Template::verbalize`]).
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The `source` text (the input fields in the template's `input_format`).
    pub source: String,
    /// The `instruction` text.
    pub instruction: crate::value::Str,
    /// The `target_prefix` text.
    pub target_prefix: crate::value::Str,
    /// The instance's `input_fields`, as the template leaves them (its values, not their
    /// texts).
    pub input_fields: crate::value::Map,
    /// The instance's `reference_fields`, likewise.
    pub reference_fields: crate::value::Map,
    /// The `target` text (a string).
    pub target: Value,
    /// The `references` texts (a list of strings).
    pub references: Value,
    /// The postprocessor names (a list of strings).
    pub postprocessors: crate::recipe::SharedValue,
}

impl Rendered {
    /// Writes the fields into `instance` (as returned next to them by [`Template::verbalize`]):
    /// the instance then holds what `process_instance` gives, with the same values; only a
    /// field that the template's last step added (`__turns__` of a multi-turn template) may
    /// come before the fields written here rather than after them.
    pub fn write_into(self, instance: &mut Instance) {
        instance.insert("source".into(), Value::String(self.source.into()));
        instance.insert("instruction".into(), Value::String(self.instruction));
        instance.insert("target_prefix".into(), Value::String(self.target_prefix));
        instance.insert("input_fields".into(), Value::Object(self.input_fields));
        instance.insert("postprocessors".into(), self.postprocessors.into_value());
        instance.insert("reference_fields".into(), Value::Object(self.reference_fields));
        instance.insert("target".into(), self.target);
        instance.insert("references".into(), self.references);
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
}

/// Placeholder type so the registry can name this module before it has artifacts.
pub struct Marker;
