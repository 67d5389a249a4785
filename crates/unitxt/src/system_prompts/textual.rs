//! `textual_system_prompt` and `empty_system_prompt`.

use serde::Deserialize;

use crate::error::Result;
use crate::operators::{InstanceOperator, StreamScope};
use crate::value::{Instance, Str, Value};

/// Name of the field system prompts write.
pub const SYSTEM_PROMPT_FIELD: &str = "system_prompt";

fn yes() -> bool {
    true
}

/// Writes `text` to `system_prompt` (appended at the end of the instance when new). With
/// `skip_rendered_instance` (the default), an instance that already has a `system_prompt`
/// field is left unchanged. Mirrors Unitxt's `SystemPrompt.process`.
fn set_system_prompt(
    mut instance: Instance,
    text: &Str,
    skip_rendered_instance: bool,
    scope: &StreamScope,
    split: &str,
) -> Result<Instance> {
    if !scope.applies(split) {
        return Ok(instance);
    }
    // One lookup: an existing field is kept (skipped) or overwritten in place, a new one appended.
    match instance.entry(SYSTEM_PROMPT_FIELD) {
        crate::value::map::Entry::Occupied(_) if skip_rendered_instance => {}
        crate::value::map::Entry::Occupied(v) => *v = Value::String(text.clone()),
        crate::value::map::Entry::Vacant(e) => {
            e.insert(Value::String(text.clone()));
        }
    }
    Ok(instance)
}

/// Unitxt's `TextualSystemPrompt`: the same `text` for every instance.
#[derive(Debug, Clone, Deserialize)]
pub struct TextualSystemPrompt {
    /// `text`: the system prompt (required); interned ([`crate::value::intern`]), since every
    /// instance gets a copy.
    #[serde(deserialize_with = "crate::value::intern::deserialize_interned_str")]
    pub text: Str,
    /// `skip_rendered_instance`: leave an instance that already has a `system_prompt` unchanged
    /// (default true).
    #[serde(default = "yes")]
    pub skip_rendered_instance: bool,
    /// Which splits it applies to (`apply_to_streams`, `dont_apply_to_streams`), flattened into the
    /// artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
}

impl InstanceOperator for TextualSystemPrompt {
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance> {
        set_system_prompt(instance, &self.text, self.skip_rendered_instance, &self.scope, split)
    }
    fn system_prompt_text(&self, split: &str) -> Option<Str> {
        // On a split it does not apply to, the format sees no field: an empty text.
        Some(if self.scope.applies(split) { self.text.clone() } else { Str::default() })
    }
}

/// Unitxt's `EmptySystemPrompt` (the recipe's default): `system_prompt` is `""`.
#[derive(Debug, Clone, Deserialize)]
pub struct EmptySystemPrompt {
    /// `skip_rendered_instance`: leave an instance that already has a `system_prompt` unchanged
    /// (default true).
    #[serde(default = "yes")]
    pub skip_rendered_instance: bool,
    /// Which splits it applies to (`apply_to_streams`, `dont_apply_to_streams`), flattened into the
    /// artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
}

impl Default for EmptySystemPrompt {
    fn default() -> Self {
        EmptySystemPrompt { skip_rendered_instance: true, scope: StreamScope::default() }
    }
}

impl EmptySystemPrompt {
    /// The recipe's default system prompt as an artifact, with the JSON Unitxt records for it
    /// (`{"__type__": "empty_system_prompt"}`).
    pub fn default_artifact() -> crate::artifact::Art<dyn InstanceOperator> {
        let op: std::sync::Arc<dyn InstanceOperator> = std::sync::Arc::new(EmptySystemPrompt::default());
        crate::artifact::Art::new(op, crate::json!({"__type__": "empty_system_prompt"}))
    }
}

impl InstanceOperator for EmptySystemPrompt {
    fn process_instance(&self, instance: Instance, split: &str) -> Result<Instance> {
        set_system_prompt(instance, &Str::default(), self.skip_rendered_instance, &self.scope, split)
    }
    fn system_prompt_text(&self, _split: &str) -> Option<Str> {
        Some(Str::default())
    }
}
