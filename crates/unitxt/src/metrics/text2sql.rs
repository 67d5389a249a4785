//! `sql_non_execution_accuracy` (Unitxt's `SQLNonExecutionAccuracy`, an `InstanceMetric`):
//! a predicted SQL query scored against the gold one without running either, by sqlglot and
//! sqlparse as the `unitxt-sql` crate reproduces them.

use serde::Deserialize;

use super::{first_reference, CiSettings, InstanceScorer, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// The seven sub-scores, in Unitxt's order (`SQLNonExecutionMetricResult`).
const SCORES: [&str; 7] = [
    "sqlglot_validity",
    "sqlparse_validity",
    "sqlglot_equivalence",
    "sqlglot_optimized_equivalence",
    "sqlparse_equivalence",
    "sql_exact_match",
    "sql_syntactic_equivalence",
];

/// `sql_non_execution_accuracy`: for each instance the seven 0/1 scores of
/// [`unitxt_sql::metric::non_execution_scores`] (the query extracted from the prediction text,
/// against the first reference); globally their means, each with an interval. The main score is
/// `sqlglot_equivalence`.
///
/// Errors: a prediction or reference that is not a string; an instance whose scores depend on
/// a part of sqlglot that `unitxt-sql` does not reproduce (subqueries, CTEs, `CASE`,
/// arithmetic, ...): the error names the part and the instance, and no score is guessed.
#[derive(Deserialize)]
pub struct SqlNonExecutionAccuracy {
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for SqlNonExecutionAccuracy {
    fn main(&self) -> &str {
        "sqlglot_equivalence"
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn scorer_kind(&self) -> MetricKind {
        MetricKind::Instance
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(SCORES.iter().map(|s| s.to_string()).collect())
    }
    fn score(&self, prediction: &Value, references: &[Value], _: &Instance) -> Result<Scores> {
        let metric = "sql_non_execution_accuracy";
        let Value::String(pred) = prediction else {
            return Err(Error::invalid(format!("`{metric}` needs a string prediction (the model's answer), got {prediction}")));
        };
        let Value::String(gold) = first_reference(references, metric)? else {
            return Err(Error::invalid(format!("`{metric}` needs a string reference (the gold SQL query)")));
        };
        let scores = unitxt_sql::metric::non_execution_scores(pred, gold).map_err(|u| {
            Error::unsupported(format!(
                "`{metric}`: unitxt-rs does not reproduce sqlglot for this instance ({u}); prediction {pred:?}, gold query {gold:?}"
            ))
        })?;
        Ok(scores.named().iter().map(|(k, v)| (k.to_string(), *v as f64)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric() -> SqlNonExecutionAccuracy {
        serde_json::from_str("{}").expect("no fields needed")
    }

    #[test]
    fn scores_one_instance_as_unitxt() {
        // From the metric's oracle: the prediction reorders the projections.
        let s = metric()
            .score(
                &Value::from("SELECT name, age, country FROM singer ORDER BY age DESC"),
                &[Value::from("SELECT name, country, age FROM singer ORDER BY age DESC")],
                &Instance::new(),
            )
            .expect("covered");
        let got: Vec<(String, f64)> = s.into_iter().collect();
        let want = [1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0];
        assert_eq!(got.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), SCORES);
        assert_eq!(got.iter().map(|(_, v)| *v).collect::<Vec<_>>(), want);
    }

    #[test]
    fn refuses_by_name() {
        let err = metric()
            .score(
                &Value::from("SELECT name FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)"),
                &[Value::from("SELECT name FROM t")],
                &Instance::new(),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not reproduce sqlglot") && err.contains("Exists"), "{err}");
        let err = metric().score(&Value::from(3), &[Value::from("SELECT 1")], &Instance::new()).unwrap_err().to_string();
        assert!(err.contains("string prediction"), "{err}");
    }
}
