//! Formats: wrap the verbalized instance (instruction, demos, source, target prefix, system
//! prompt) into the model's input string or chat messages (Unitxt's `formats.py`).
//! Formats are [`crate::operators::InstanceOperator`]s registered as `Artifact::Format`.

/// Placeholder type so the registry can name this module before it has artifacts.
pub struct Marker;
