//! System prompts (Unitxt's `system_prompts.py`): set the `system_prompt` field of an
//! instance. They are [`crate::operators::InstanceOperator`]s registered as
//! `Artifact::SystemPrompt`.

pub mod textual;

pub use textual::{EmptySystemPrompt, TextualSystemPrompt};

/// Kept so the registry skeleton can name this module.
pub struct Marker;
