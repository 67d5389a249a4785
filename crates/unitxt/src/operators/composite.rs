//! Operators made of other operators.

use std::sync::Arc;

use serde::Deserialize;

use super::{apply_all, Operator};
use crate::artifact::{Art, BuildContext};
use crate::error::Result;
use crate::stream::MultiStream;
use crate::value::Value;

/// The catalog JSON of `sequential_operator` (Unitxt's `SequentialOperator`), which builds
/// into a [`SequentialOperator`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SequentialOperatorConfig {
    /// `steps`: the operators, in order (default none), each a nested artifact or a catalog
    /// name.
    #[serde(default)]
    pub steps: Vec<Value>,
    /// `max_steps`: run only the first this many steps (absent: all).
    #[serde(default)]
    pub max_steps: Option<usize>,
}

impl SequentialOperatorConfig {
    /// Builds the steps in `cx`.
    pub fn build(self, cx: &BuildContext<'_>) -> Result<SequentialOperator> {
        Ok(SequentialOperator { steps: cx.build_all(&self.steps)?, max_steps: self.max_steps })
    }
}

/// `sequential_operator`: applies `steps` in order, only the first `max_steps` when given
/// (Unitxt's `SequentialOperator`).
pub struct SequentialOperator {
    /// The operators, in order.
    pub steps: Vec<Art<dyn Operator>>,
    /// Run only the first this many steps (`None`: all).
    pub max_steps: Option<usize>,
}

impl Operator for SequentialOperator {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let n = self.max_steps.unwrap_or(self.steps.len()).min(self.steps.len());
        apply_all(&self.steps[..n], ms)
    }
}
