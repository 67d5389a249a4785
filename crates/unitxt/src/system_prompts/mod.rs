//! System prompts (Unitxt's `system_prompts.py`): set the `system_prompt` field of an
//! instance. They are [`crate::operators::InstanceOperator`]s registered as
//! `Artifact::SystemPrompt`.

/// Placeholder type so the registry can name this module before it has artifacts.
pub struct Marker;
