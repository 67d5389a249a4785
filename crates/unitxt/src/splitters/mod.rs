//! Splitters (operators that re-split streams, Unitxt's `splitters.py`) and the demos
//! samplers.

pub mod splitters;

use crate::error::Result;
use crate::value::Instance;

/// Picks demos for an instance from the demos pool (Unitxt's `Sampler`).
pub trait Sampler: Send + Sync {
    /// The `sample_size` demos for `instance`, in order, drawn from `pool` (already filtered
    /// of demos whose input fields equal the instance's).
    fn sample(&self, sample_size: usize, pool: &[&Instance], instance: &Instance, sampling_seed: Option<i64>) -> Result<Vec<Instance>>;
}

pub mod difflib;
pub mod samplers;
