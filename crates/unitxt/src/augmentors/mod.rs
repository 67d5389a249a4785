//! Augmentors: pseudo-random perturbations of task inputs (Unitxt's `augmentors.py`).
//!
//! An augmentor is told by the recipe which task inputs to perturb ([`Augmentor::for_fields`])
//! and then runs as a per-instance operator on `input_fields/<name>` of every instance, before
//! the template. The randomness of each value is seeded by the value itself (Unitxt's
//! `new_random_generator(sub_seed=value)`), so results do not depend on instance order.

pub mod image;
pub mod table;
pub mod text;

use std::sync::Arc;

use crate::error::Result;
use crate::operators::{FieldOp, FieldOperator, FieldSpec, InstanceOperator};
use crate::value::Value;

pub use text::{AugmentPrefixSuffix, AugmentWhitespace, NullAugmentor};

/// An augmentor; the recipe tells it which fields to perturb (the task's
/// `augmentable_inputs`, as `input_fields/<name>` paths).
pub trait Augmentor: Send + Sync {
    /// The per-instance operator that augments `fields`.
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>>;

    /// Whether the augmentor leaves every value as it is (Unitxt's `NullAugmentor`): a recipe
    /// then runs nothing for it, and does not need the task to name augmentable inputs.
    /// `false` by default.
    fn is_identity(&self) -> bool {
        false
    }
}

/// The path of task input `field` (Unitxt's `TaskInputsAugmentor.set_fields` prefixes
/// `input_fields/`); a name already given as an `input_fields/...` path is kept.
pub fn input_field_path(field: &str) -> String {
    if field.starts_with("input_fields/") {
        field.to_string()
    } else {
        format!("input_fields/{field}")
    }
}

/// The field operator that applies `op` to each of `fields` in place (Unitxt's
/// `field_to_field = {f: f}`). Errors when `fields` is empty; the built operator errors on an
/// instance that lacks one of the fields.
pub fn task_inputs_op<T: FieldOperator + 'static>(op: T, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
    let mut map = crate::value::Instance::new();
    for f in fields {
        let p = input_field_path(f);
        map.insert(p.as_str().into(), Value::String(p.into()));
    }
    let spec = FieldSpec { field_to_field: Some(Value::Object(map)), ..Default::default() };
    Ok(Arc::new(FieldOp::new(spec, Arc::new(op))?))
}

impl crate::artifact::ArtifactKind for dyn Augmentor {
    const KIND: &'static str = "augmentor";
}
