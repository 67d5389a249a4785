//! Operators made of other operators.

use std::sync::Arc;

use serde::Deserialize;

use super::{apply_all, Operator};
use crate::artifact::Art;
use crate::error::Result;
use crate::stream::MultiStream;

/// `sequential_operator`: applies `steps` in order, only the first `max_steps` when given
/// (Unitxt's `SequentialOperator`). Each step is a nested artifact or a catalog name.
#[derive(Deserialize)]
pub struct SequentialOperator {
    /// `steps`: the operators, in order (default none).
    #[serde(default)]
    pub steps: Vec<Art<dyn Operator>>,
    /// `max_steps`: run only the first this many steps (absent: all).
    #[serde(default)]
    pub max_steps: Option<usize>,
}

impl Operator for SequentialOperator {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let n = self.max_steps.unwrap_or(self.steps.len()).min(self.steps.len());
        apply_all(&self.steps[..n], ms)
    }
}
