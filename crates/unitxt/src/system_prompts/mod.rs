//! System prompts (Unitxt's `system_prompts.py`): the text a format puts in the model input's
//! system part. They implement [`SystemPrompt`] and are registered as `Artifact::SystemPrompt`.

pub mod textual;

pub use textual::{EmptySystemPrompt, TextualSystemPrompt};

use crate::error::Result;
use crate::value::{Instance, Value};

/// Name of the instance field that holds the system prompt.
pub const SYSTEM_PROMPT_FIELD: &str = "system_prompt";

/// A system prompt (Unitxt's `SystemPrompt`).
pub trait SystemPrompt: Send + Sync {
    /// The instance's `system_prompt` once this system prompt ran on an instance of split
    /// `split` whose own `system_prompt` is `own` (`None`: the instance has none, and keeps
    /// none when the result is `None`).
    fn system_prompt(&self, own: Option<Value>, split: &str) -> Option<Value>;

    /// Unitxt's `SystemPrompt.process` on an instance: its `system_prompt` field becomes
    /// [`SystemPrompt::system_prompt`] of its own (replaced in place, or added last).
    fn process_instance(&self, mut instance: Instance, split: &str) -> Result<Instance> {
        let own = instance.get(SYSTEM_PROMPT_FIELD).cloned();
        if let Some(v) = self.system_prompt(own, split) {
            instance.insert(SYSTEM_PROMPT_FIELD.into(), v);
        }
        Ok(instance)
    }

    /// Python's `repr` of this kind of system prompt made without arguments (Unitxt
    /// 1.26.10's dataclass `repr`), when the engine reproduces it (a recipe's refiner seeds
    /// from it, see [`crate::operators::streams::RefinerSeedContext`]); `None` by default.
    fn bare_repr(&self) -> Option<&'static str> {
        None
    }
}

impl crate::artifact::ArtifactKind for dyn SystemPrompt {
    const KIND: &'static str = "system prompt";
}
