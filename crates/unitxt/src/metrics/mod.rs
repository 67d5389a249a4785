//! Metrics (Unitxt's `metrics.py`), shaped as map/reduce so that confidence intervals
//! re-reduce stored per-instance records instead of recomputing metrics from text.
//!
//! - `map`: one (postprocessed) prediction and its references → a record (any JSON value:
//!   a score, counts, a label pair...).
//! - `instance_scores`: a record → the instance's scores (Unitxt's instance scores).
//! - `reduce`: records (all instances, or one bootstrap resample of them) → global scores.

pub mod bootstrap;
pub mod text;

use indexmap::IndexMap;

use crate::error::Result;
use crate::value::{Instance, Value};

/// Scores by name (`accuracy`, `f1_micro`, `f1_<label>`, ...).
pub type Scores = IndexMap<String, f64>;

/// A metric in map/reduce form.
pub trait Metric: Send + Sync {
    /// The main score's name (Unitxt's `main_score`), e.g. `accuracy`.
    fn main_score(&self) -> &str;
    /// The per-instance record of one prediction with its references and task data.
    fn map(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Value>;
    /// The instance scores of one record.
    fn instance_scores(&self, record: &Value) -> Result<Scores>;
    /// The global scores of a sequence of records (all instances or a resample).
    fn reduce(&self, records: &[&Value]) -> Result<Scores>;
    /// Names of the global scores that get confidence intervals (Unitxt's `ci_scores`).
    fn ci_scores(&self) -> Vec<String> {
        vec![self.main_score().to_string()]
    }
}
