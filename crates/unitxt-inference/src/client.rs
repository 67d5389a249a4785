//! [`RunClient`]: the engine's [`ModelClient`] over [`crate::run`], shared by the CLI
//! (`unitxt-rs infer`, `evaluate --engine`) and the Python bindings (`unitxt_rs.api.infer`).

use std::path::PathBuf;

use unitxt::error::{Error, Result};
use unitxt::inference::{Answers, Endpoint, FailedRequest, ModelClient, RequestCounts};
use unitxt::Value;

use crate::{run, run_stream, Outcome, RunConfig, RunError};

/// A [`ModelClient`] that sends the engine's request bodies with [`crate::run`] (retries,
/// rate limit, answer cache). The endpoint's API key goes only into the request headers: no
/// error or message of this client shows it.
#[derive(Debug, Clone, Default)]
pub struct RunClient {
    /// The answer cache file (SQLite); `None`: no cache.
    pub cache: Option<PathBuf>,
    /// Whether to draw a progress bar on stderr.
    pub progress: bool,
    /// Whether each engine decides if its answers are cached (its `use_cache`, as Unitxt's
    /// engines do: Python's `evaluate` for LLM judges); false: `cache` keeps every answer (the
    /// CLI's `--cache`, asked for explicitly).
    pub respect_use_cache: bool,
}

impl RunClient {
    /// The run configuration of `endpoint` with this client's cache and progress bar.
    fn config(&self, endpoint: &Endpoint) -> RunConfig {
        let mut config = RunConfig::new(endpoint.base_url.clone());
        config.completions_path = endpoint.completions_path.clone();
        config.api_key = endpoint.api_key.clone();
        config.headers = endpoint.headers.clone();
        config.num_parallel_requests = endpoint.num_parallel_requests.max(1);
        config.max_requests_per_second = endpoint.max_requests_per_second;
        if let Some(r) = endpoint.max_retries {
            config.max_retries = r;
        }
        config.cache_path = if self.respect_use_cache && !endpoint.use_cache { None } else { self.cache.clone() };
        config.show_progress = self.progress;
        config
    }
}

/// The engine's error for a run that could not go on (a cache that cannot be used, a bad
/// configuration); never shows the key.
fn run_error(e: RunError) -> Error {
    match e {
        e @ RunError::Cache { .. } => Error::io(e.to_string()),
        e => Error::invalid(e.to_string()),
    }
}

impl ModelClient for RunClient {
    fn complete(&self, endpoint: &Endpoint, bodies: &[Value]) -> Result<Answers> {
        let requests: Vec<serde_json::Value> = bodies.iter().map(|b| serde_json::Value::from(b.clone())).collect();
        let report = match run(&self.config(endpoint), &requests, |_, _| {}) {
            Ok(report) => report,
            Err(RunError::RequestsFailed(report)) => *report,
            Err(e) => return Err(run_error(e)),
        };
        let counts = RequestCounts {
            sent: report.sent,
            retries: report.retries,
            cached: report.cached as u64,
            prompt_tokens: report.usage.prompt_tokens,
            completion_tokens: report.usage.completion_tokens,
        };
        Ok(Answers {
            counts,
            answers: report.answers.into_iter().map(|a| a.map(Value::from)).collect(),
            failed: report.failures.iter().map(|f| FailedRequest { index: f.index, detail: f.to_string() }).collect(),
        })
    }

    fn complete_each(
        &self,
        endpoint: &Endpoint,
        bodies: &mut (dyn Iterator<Item = Value> + Send),
        on_answer: &mut dyn FnMut(usize, std::result::Result<&Value, &FailedRequest>),
    ) -> Result<RequestCounts> {
        let requests = bodies.map(serde_json::Value::from);
        let stats = run_stream(&self.config(endpoint), requests, |i, outcome| match outcome {
            Outcome::Answered(a) | Outcome::Cached(a) => on_answer(i, Ok(&Value::from(a.clone()))),
            Outcome::Failed(f) => on_answer(i, Err(&FailedRequest { index: i, detail: f.to_string() })),
        })
        .map_err(run_error)?;
        Ok(RequestCounts {
            sent: stats.sent,
            retries: stats.retries,
            cached: stats.cached as u64,
            prompt_tokens: stats.usage.prompt_tokens,
            completion_tokens: stats.usage.completion_tokens,
        })
    }
}
