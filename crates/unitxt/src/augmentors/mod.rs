//! Augmentors: pseudo-random perturbations of task inputs (Unitxt's `augmentors.py`).

use std::sync::Arc;

use crate::error::Result;
use crate::operators::InstanceOperator;

/// An augmentor; the recipe tells it which fields to perturb (the task's
/// `augmentable_inputs`, as `input_fields/<name>` paths).
pub trait Augmentor: Send + Sync {
    /// The per-instance operator that augments `fields`.
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>>;
}
