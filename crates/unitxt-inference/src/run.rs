//! A run: every request answered once, from the cache or the endpoint, nothing received lost.

use std::collections::HashMap;
use std::fmt;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use crate::cache::{cache_key, Cache};
use crate::config::RunConfig;
use crate::request::{AttemptError, FailureKind, Sender};

/// Token counts summed from the `usage` object of answers (`prompt_tokens`,
/// `completion_tokens`, as OpenAI-compatible servers report them); answers without `usage`
/// add nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Sum of `usage.prompt_tokens`.
    pub prompt_tokens: u64,
    /// Sum of `usage.completion_tokens`.
    pub completion_tokens: u64,
}

impl Usage {
    fn add(&mut self, answer: &Value) {
        let count = |name: &str| {
            answer
                .pointer(&format!("/usage/{name}"))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        self.prompt_tokens += count("prompt_tokens");
        self.completion_tokens += count("completion_tokens");
    }
}

/// A request that failed for good: its last attempt's failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Position of the request in the run's input.
    pub index: usize,
    /// Why the last attempt failed.
    pub kind: FailureKind,
    /// HTTP status of the last attempt, when one was received (200 for a malformed answer).
    pub status: Option<u16>,
    /// Attempts made (1 when the failure was not retryable).
    pub attempts: u32,
    /// A short description (the server's error text, truncated, or the transport error), with
    /// the API key redacted.
    pub detail: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request {}: {}", self.index, self.kind)?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        write!(
            f,
            " after {} attempt{}: {}",
            self.attempts,
            if self.attempts == 1 { "" } else { "s" },
            self.detail
        )
    }
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// One slot per input request, in input order: the answer's JSON (the whole response
    /// body), or `None` for a request that failed (see `failures`).
    pub answers: Vec<Option<Value>>,
    /// The requests that failed for good, by input position. Empty in an `Ok` report.
    pub failures: Vec<Failure>,
    /// HTTP requests sent, retries included. Identical request bodies in one run are sent once.
    pub sent: u64,
    /// Attempts beyond the first (`sent` minus the number of distinct bodies sent).
    pub retries: u64,
    /// Input requests answered from the cache, without sending anything.
    pub cached: usize,
    /// Tokens of the answers received from the endpoint in this run (cached answers cost
    /// nothing and are not counted).
    pub usage: Usage,
}

/// Why a run did not answer every request.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Some requests failed for good. The report holds every answer that did arrive (also
    /// committed to the cache, when there is one) and the failures, by input position; a
    /// rerun sends only the failed requests.
    #[error("{}", failed_message(.0))]
    RequestsFailed(Box<RunReport>),
    /// The cache could not be opened or written. On a write failure the run stops taking new
    /// requests; answers received so far were passed to `on_answer`.
    #[error("answer cache {path}: {source}")]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The configuration cannot be used (the message says which field).
    #[error("invalid run configuration: {0}")]
    Config(String),
}

fn failed_message(report: &RunReport) -> String {
    const SHOWN: usize = 5;
    let mut text = format!(
        "{} of {} requests failed",
        report.failures.len(),
        report.answers.len()
    );
    for failure in report.failures.iter().take(SHOWN) {
        text.push_str("; ");
        text.push_str(&failure.to_string());
    }
    if report.failures.len() > SHOWN {
        text.push_str(&format!("; and {} more", report.failures.len() - SHOWN));
    }
    text
}

/// One distinct request body to send, and the input positions that carry it.
struct Job<'a> {
    key: String,
    body: &'a Value,
    text: String,
    indices: Vec<usize>,
}

/// Sends every request body in `requests` as a chat completion (`POST
/// <base_url><completions_path>`) and returns every answer, in input order.
///
/// - Answers already in the cache are returned without sending anything (`report.cached`).
/// - The rest go out on up to `num_parallel_requests` worker threads, rate limited to
///   `max_requests_per_second`, each retried with exponential backoff and jitter on 429, 5xx
///   (and 408/409), timeouts, broken connections and malformed 200 answers, up to
///   `max_retries` times; a `Retry-After` (seconds) on 429/503 lengthens the delay. Other 4xx
///   fail the request at once.
/// - Each answer is committed to the cache the moment it arrives, then handed to
///   `on_answer(input_index, &answer)` (called on the calling thread, cached answers first).
///
/// Errors: [`RunError::RequestsFailed`] when some requests failed for good (the report inside
/// holds all the answers that arrived); [`RunError::Cache`] when the cache cannot be opened or
/// written; [`RunError::Config`] for an unusable configuration.
pub fn run(
    config: &RunConfig,
    requests: &[Value],
    mut on_answer: impl FnMut(usize, &Value),
) -> Result<RunReport, RunError> {
    validate(config)?;
    let cache_error = |path: &PathBuf, source| RunError::Cache {
        path: path.clone(),
        source,
    };
    let cache = match &config.cache_path {
        Some(path) => Some(Cache::open(path).map_err(|e| cache_error(path, e))?),
        None => None,
    };

    let url = config.completions_url();
    let mut jobs: Vec<Job> = Vec::new();
    let mut job_of_key: HashMap<String, usize> = HashMap::new();
    for (index, body) in requests.iter().enumerate() {
        let key = cache_key(&url, body);
        if let Some(&job) = job_of_key.get(&key) {
            jobs[job].indices.push(index);
        } else {
            job_of_key.insert(key.clone(), jobs.len());
            jobs.push(Job {
                key,
                body,
                text: body.to_string(),
                indices: vec![index],
            });
        }
    }

    let mut report = RunReport {
        answers: vec![None; requests.len()],
        ..RunReport::default()
    };
    let mut pending = Vec::new();
    for job in jobs {
        let hit = match (&cache, &config.cache_path) {
            (Some(cache), Some(path)) => cache.get(&job.key).map_err(|e| cache_error(path, e))?,
            _ => None,
        };
        match hit {
            Some(answer) => {
                for &index in &job.indices {
                    on_answer(index, &answer);
                    report.answers[index] = Some(answer.clone());
                    report.cached += 1;
                }
            }
            None => pending.push(job),
        }
    }

    let progress = progress_bar(config, requests.len() as u64, report.cached as u64);
    let sender = Sender::new(config);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut write_error = None;
    std::thread::scope(|scope| {
        let (results, received) = mpsc::channel::<(usize, Result<Value, (AttemptError, u32)>)>();
        for _ in 0..config.num_parallel_requests.min(pending.len()) {
            let results = results.clone();
            let (pending, sender, next, stop, progress) =
                (&pending, &sender, &next, &stop, &progress);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    let Some(Job { text, .. }) = pending.get(job) else {
                        break;
                    };
                    let result = sender.send(text, || {
                        progress.set_message(format!(
                            "retries: {}",
                            sender.retries.load(Ordering::Relaxed)
                        ));
                    });
                    if results.send((job, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(results);
        for (job, result) in received {
            let job = &pending[job];
            match result {
                Ok(answer) => {
                    if write_error.is_none() {
                        if let (Some(cache), Some(path)) = (&cache, &config.cache_path) {
                            if let Err(e) = cache.put(&job.key, job.body, &answer) {
                                write_error = Some(cache_error(path, e));
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    report.usage.add(&answer);
                    for &index in &job.indices {
                        on_answer(index, &answer);
                        report.answers[index] = Some(answer.clone());
                    }
                }
                Err((error, attempts)) => {
                    for &index in &job.indices {
                        report.failures.push(Failure {
                            index,
                            kind: error.kind,
                            status: error.status,
                            attempts,
                            detail: error.detail.clone(),
                        });
                    }
                }
            }
            progress.inc(job.indices.len() as u64);
        }
    });
    progress.finish_and_clear();

    report.sent = sender.sent.load(Ordering::Relaxed);
    report.retries = sender.retries.load(Ordering::Relaxed);
    report.failures.sort_by_key(|f| f.index);
    if let Some(error) = write_error {
        return Err(error);
    }
    if report.failures.is_empty() {
        Ok(report)
    } else {
        Err(RunError::RequestsFailed(Box::new(report)))
    }
}

fn validate(config: &RunConfig) -> Result<(), RunError> {
    let bad = |message: &str| Err(RunError::Config(message.to_string()));
    if config.base_url.trim().is_empty() {
        return bad("base_url is empty");
    }
    if config.num_parallel_requests == 0 {
        return bad("num_parallel_requests must be at least 1");
    }
    if let Some(rate) = config.max_requests_per_second {
        let period = std::time::Duration::try_from_secs_f64(1.0 / rate);
        if !(rate.is_finite() && rate > 0.0 && period.is_ok()) {
            return bad("max_requests_per_second must be a positive number");
        }
    }
    Ok(())
}

/// done/total, rate, ETA and retries, on stderr; hidden when disabled or not a terminal.
fn progress_bar(config: &RunConfig, total: u64, done: u64) -> ProgressBar {
    let target = if config.show_progress && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    if let Ok(style) =
        ProgressStyle::with_template("{wide_bar} {pos}/{len} {per_sec} ETA {eta} {msg}")
    {
        bar.set_style(style);
    }
    bar.set_position(done);
    bar.reset_eta(); // the rate and ETA count what is sent, not the cached answers
    bar.set_message("retries: 0");
    bar
}
