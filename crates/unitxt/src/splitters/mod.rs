//! Splitters (operators that re-split streams, Unitxt's `splitters.py`) and the demos
//! samplers.

pub mod splitters;

use crate::error::Result;
use crate::value::Instance;

/// Picks demos for an instance from the demos pool (Unitxt's `Sampler`).
pub trait Sampler: Send + Sync {
    /// The `sample_size` demos for `instance`, in order, drawn from `pool` (already filtered
    /// of demos whose input fields equal the instance's). The demos are the pool's instances
    /// themselves (or the sampler's own copies of them), not clones, so that the recipe can
    /// render each distinct demo once.
    fn sample<'a>(
        &'a self,
        sample_size: usize,
        pool: &[&'a Instance],
        instance: &Instance,
        sampling_seed: Option<i64>,
    ) -> Result<Vec<&'a Instance>>;
}

pub mod difflib;
pub mod samplers;

impl crate::artifact::ArtifactKind for dyn Sampler {
    const KIND: &'static str = "sampler";
}
