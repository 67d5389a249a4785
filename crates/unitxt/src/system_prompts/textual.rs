//! `textual_system_prompt` and `empty_system_prompt`.

use serde::Deserialize;

use super::SystemPrompt;
use crate::stream::StreamScope;
use crate::value::{Str, Value};

fn yes() -> bool {
    true
}

/// The system prompt `text` as Unitxt's `SystemPrompt.process` sets it: on a split outside
/// `scope` the instance's own (`own`) stays; with `skip_rendered_instance` an instance that
/// has one keeps it; otherwise it is `text`.
fn set_system_prompt(own: Option<Value>, text: &Str, skip_rendered_instance: bool, scope: &StreamScope, split: &str) -> Option<Value> {
    if !scope.applies(split) || (own.is_some() && skip_rendered_instance) {
        return own;
    }
    Some(Value::String(text.clone()))
}

/// Unitxt's `TextualSystemPrompt`: the same `text` for every instance.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextualSystemPrompt {
    /// `text`: the system prompt (required).
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

impl SystemPrompt for TextualSystemPrompt {
    fn system_prompt(&self, own: Option<Value>, split: &str) -> Option<Value> {
        set_system_prompt(own, &self.text, self.skip_rendered_instance, &self.scope, split)
    }
}

/// Unitxt's `EmptySystemPrompt` (the recipe's default): `system_prompt` is `""`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
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
    pub fn default_artifact() -> crate::artifact::Art<dyn SystemPrompt> {
        let op: std::sync::Arc<dyn SystemPrompt> = std::sync::Arc::new(EmptySystemPrompt::default());
        crate::artifact::Art::new(op, crate::json!({"__type__": "empty_system_prompt"}))
    }
}

impl SystemPrompt for EmptySystemPrompt {
    fn system_prompt(&self, own: Option<Value>, split: &str) -> Option<Value> {
        set_system_prompt(own, &Str::default(), self.skip_rendered_instance, &self.scope, split)
    }

    /// Python's `repr` of `EmptySystemPrompt()` in Unitxt 1.26.10.
    fn bare_repr(&self) -> Option<&'static str> {
        Some("EmptySystemPrompt(__type__='empty_system_prompt', __title__=None, __description__=None, __tags__={}, __deprecated_msg__=None, data_classification_policy=None, requirements=[], caching=None, apply_to_streams=None, dont_apply_to_streams=None, skip_rendered_instance=True)")
    }
}
