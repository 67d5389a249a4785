//! A run: every request answered once, from the cache or the endpoint, nothing received lost.

use std::collections::HashMap;
use std::fmt;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

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
    pub(crate) fn add(&mut self, answer: &Value) {
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

/// Totals of a [`run_stream`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Requests taken from the input.
    pub requests: usize,
    /// Requests answered from the cache, without sending anything.
    pub cached: usize,
    /// Requests that failed for good (each was passed to the callback as a [`Failure`]).
    pub failed: usize,
    /// HTTP requests sent, retries included.
    pub sent: u64,
    /// Attempts beyond the first.
    pub retries: u64,
    /// Tokens of the answers received from the endpoint (cached answers are not counted).
    pub usage: Usage,
}

/// What became of one request of a [`run_stream`].
#[derive(Clone, Copy, Debug)]
pub enum Outcome<'a> {
    /// The endpoint answered (the answer is in the cache, when there is one).
    Answered(&'a Value),
    /// The cache had the answer; nothing was sent.
    Cached(&'a Value),
    /// The request failed for good.
    Failed(&'a Failure),
}

/// Sends every request body in `requests` as a chat completion (`POST
/// <base_url><completions_path>`) and returns every answer, in input order.
///
/// - Identical bodies are sent once; their answer goes to each of their positions.
/// - Answers already in the cache are returned without sending anything (`report.cached`).
/// - The rest go out as [`run_stream`] sends them: up to `num_parallel_requests` at once, rate
///   limited, retried with backoff, each answer committed to the cache as it arrives and then
///   handed to `on_answer(input_index, &answer)` (on the calling thread).
///
/// Errors: [`RunError::RequestsFailed`] when some requests failed for good (the report inside
/// holds all the answers that arrived); [`RunError::Cache`] when the cache cannot be opened or
/// written; [`RunError::Config`] for an unusable configuration.
pub fn run(
    config: &RunConfig,
    requests: &[Value],
    mut on_answer: impl FnMut(usize, &Value),
) -> Result<RunReport, RunError> {
    // The distinct bodies, each with the input positions that carry it.
    // Each body's cache key is computed once, here, and handed on with it.
    let url = config.completions_url();
    let mut distinct: Vec<(String, &Value)> = Vec::new();
    let mut positions: Vec<Vec<usize>> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, body) in requests.iter().enumerate() {
        match seen.entry(cache_key(&url, body)) {
            std::collections::hash_map::Entry::Occupied(d) => positions[*d.get()].push(index),
            std::collections::hash_map::Entry::Vacant(v) => {
                distinct.push((v.key().clone(), body));
                v.insert(distinct.len() - 1);
                positions.push(vec![index]);
            }
        }
    }
    drop(seen);
    let mut report = RunReport {
        answers: vec![None; requests.len()],
        ..RunReport::default()
    };
    let stats = run_keyed(config, distinct.into_iter().map(|(key, body)| (key, body.clone())), |d, outcome| {
        let (answer, cached) = match outcome {
            Outcome::Answered(a) => (a, false),
            Outcome::Cached(a) => (a, true),
            Outcome::Failed(failure) => {
                for &index in &positions[d] {
                    report.failures.push(Failure { index, ..failure.clone() });
                }
                return;
            }
        };
        for &index in &positions[d] {
            on_answer(index, answer);
            report.answers[index] = Some(answer.clone());
        }
        if cached {
            report.cached += positions[d].len();
        }
    })?;
    report.sent = stats.sent;
    report.retries = stats.retries;
    report.usage = stats.usage;
    report.failures.sort_by_key(|f| f.index);
    if report.failures.is_empty() {
        Ok(report)
    } else {
        Err(RunError::RequestsFailed(Box::new(report)))
    }
}

/// Most cache hits a worker takes in one go (one message to the calling thread).
const HIT_BATCH: usize = 64;

/// What a worker hands back to the calling thread.
enum Done {
    /// Requests that were in the cache, with their answers.
    Hits(Vec<(usize, Value)>),
    /// Request `index` (cache key `key`, body `text`) was sent: its answer, or its last
    /// attempt's error and the attempts made.
    Sent {
        index: usize,
        key: String,
        text: String,
        result: Result<Value, (AttemptError, u32)>,
    },
    /// The cache could not be read.
    CacheError(rusqlite::Error),
}

/// Sends each request body `requests` yields, as it yields them, and hands each outcome to
/// `on_outcome(input_index, outcome)` on the calling thread, without keeping the answers: a
/// run's memory does not grow with the number of requests (at most about twice
/// `num_parallel_requests` bodies are taken and not yet handed on). Each request is first
/// looked up in the cache; the others go out on up to `num_parallel_requests` worker threads
/// (which pull the next body from `requests` when they are free; they start as requests go
/// out, so a run answered from the cache uses one), rate limited to
/// `max_requests_per_second`, each retried with exponential backoff and jitter on 429, 5xx
/// (and 408/409), timeouts, broken connections and malformed 200 answers, up to
/// `max_retries` times; a `Retry-After` (seconds) on 429/503 lengthens the delay. Other 4xx
/// fail the request at once. Each answer is committed to the cache before its outcome is
/// handed on. Identical bodies are not merged (a repeat is answered from the cache when its
/// first answer is already there).
///
/// Errors: [`RunError::Cache`] when the cache cannot be opened, read or written (the run
/// stops taking new requests; outcomes so far were handed on); [`RunError::Config`] for an
/// unusable configuration. Requests that fail for good are not an error here: they are
/// outcomes, counted in [`RunStats::failed`].
pub fn run_stream<I>(
    config: &RunConfig,
    requests: I,
    on_outcome: impl FnMut(usize, Outcome<'_>),
) -> Result<RunStats, RunError>
where
    I: Iterator<Item = Value> + Send,
{
    let url = config.completions_url();
    run_keyed(config, requests.map(move |body| (cache_key(&url, &body), body)), on_outcome)
}

/// [`run_stream`] over `(cache key, body)` pairs: the key is computed by whoever yields the
/// body ([`run`] has it already from merging identical bodies).
fn run_keyed<I>(
    config: &RunConfig,
    requests: I,
    mut on_outcome: impl FnMut(usize, Outcome<'_>),
) -> Result<RunStats, RunError>
where
    I: Iterator<Item = (String, Value)> + Send,
{
    validate(config)?;
    let cache_error = |path: &PathBuf, source| RunError::Cache {
        path: path.clone(),
        source,
    };
    // The writer, on the calling thread.
    let cache = match &config.cache_path {
        Some(path) => Some(Cache::open(path).map_err(|e| cache_error(path, e))?),
        None => None,
    };
    let total = match requests.size_hint() {
        (low, Some(high)) if low == high => Some(low as u64),
        _ => None,
    };
    // The input and the cache's reader, taken together: a worker looks its request up while it
    // holds the input (one reader connection for the run), and parses a hit after letting go.
    let reader = match &config.cache_path {
        Some(path) => Some(Cache::open_reader(path).map_err(|e| cache_error(path, e))?),
        None => None,
    };
    let source = Mutex::new((requests.enumerate(), reader));
    let progress = progress_bar(config, total);
    let sender = Sender::new(config);
    let stop = AtomicBool::new(false);
    let mut stats = RunStats::default();
    let mut error = None;
    let workers = total.map_or(config.num_parallel_requests, |t| config.num_parallel_requests.min(t.max(1) as usize));
    // Bounded: a worker waits while the calling thread is behind, so that no more than about
    // twice the workers' bodies are ever taken and not yet handed on.
    let (results, received) = mpsc::sync_channel::<Done>(workers);
    let pool = Pool { source: &source, sender: &sender, stop: &stop, progress: &progress, spawned: AtomicUsize::new(0), workers };
    std::thread::scope(|scope| {
        pool.spawn(scope, results.clone());
        drop(results);
        for done in received {
            // The requests this message settles.
            let settled = match &done {
                Done::Hits(hits) => hits.len(),
                Done::Sent { .. } => 1,
                Done::CacheError(_) => 0,
            };
            stats.requests += settled;
            progress.inc(settled as u64);
            match done {
                Done::Hits(hits) => {
                    stats.cached += hits.len();
                    for (index, answer) in &hits {
                        on_outcome(*index, Outcome::Cached(answer));
                    }
                }
                Done::Sent { index, key, text, result: Ok(answer) } => {
                    if let (Some(cache), Some(path), None) = (&cache, &config.cache_path, &error) {
                        if let Err(e) = cache.put(&key, &text, &answer) {
                            error = Some(cache_error(path, e));
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    stats.usage.add(&answer);
                    on_outcome(index, Outcome::Answered(&answer));
                }
                Done::Sent { index, result: Err((e, attempts)), .. } => {
                    stats.failed += 1;
                    let failure = Failure { index, kind: e.kind, status: e.status, attempts, detail: e.detail };
                    on_outcome(index, Outcome::Failed(&failure));
                }
                Done::CacheError(e) => {
                    if error.is_none() {
                        if let Some(path) = &config.cache_path {
                            error = Some(cache_error(path, e));
                        }
                    }
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    progress.finish_and_clear();
    stats.sent = sender.sent.load(Ordering::Relaxed);
    stats.retries = sender.retries.load(Ordering::Relaxed);
    match error {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// Sends request `index` (cache key `key`) and makes its [`Done`].
fn send(sender: &Sender<'_>, progress: &ProgressBar, index: usize, key: String, body: Value) -> Done {
    let text = body.to_string();
    drop(body);
    let result = sender.send(&text, || {
        progress.set_message(format!("retries: {}", sender.retries.load(Ordering::Relaxed)));
    });
    Done::Sent { index, key, text, result }
}

/// The workers' shared state. Workers are started as they are needed: the first at once, and
/// each worker that is about to send a request starts one more, up to `workers`; a run answered
/// from the cache keeps one worker and never starts the others.
struct Pool<'a, I> {
    source: &'a Mutex<(std::iter::Enumerate<I>, Option<Cache>)>,
    sender: &'a Sender<'a>,
    stop: &'a AtomicBool,
    progress: &'a ProgressBar,
    spawned: AtomicUsize,
    workers: usize,
}

impl<'a, I: Iterator<Item = (String, Value)> + Send> Pool<'a, I> {
    /// Starts one more worker, unless all are running.
    fn spawn<'scope>(&'scope self, scope: &'scope std::thread::Scope<'scope, '_>, results: mpsc::SyncSender<Done>)
    where
        'a: 'scope,
    {
        if self.spawned.fetch_add(1, Ordering::SeqCst) >= self.workers {
            self.spawned.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        scope.spawn(move || self.work(scope, results));
    }

    /// A worker: takes requests until the input is exhausted or the run stops.
    fn work<'scope>(&'scope self, scope: &'scope std::thread::Scope<'scope, '_>, results: mpsc::SyncSender<Done>)
    where
        'a: 'scope,
    {
        let (source, sender, stop, progress) = (self.source, self.sender, self.stop, self.progress);
        while !stop.load(Ordering::Relaxed) {
            // Take requests while they are in the cache (up to HIT_BATCH of them), and the
            // first that is not: hits go to the calling thread as one message.
            let mut hits: Vec<(usize, String, String, Value)> = Vec::new();
            let mut miss = None;
            let mut read_error = None;
            if let Ok(mut guard) = source.lock() {
                let (input, reader) = &mut *guard;
                while hits.len() < HIT_BATCH {
                    let Some((index, (key, body))) = input.next() else { break };
                    match reader.as_ref().map(|r| r.get_text(&key)).transpose() {
                        Ok(Some(Some(text))) => hits.push((index, text, key, body)),
                        Ok(_) => {
                            miss = Some((index, key, body));
                            break;
                        }
                        Err(e) => {
                            read_error = Some(e);
                            break;
                        }
                    }
                }
            }
            if hits.is_empty() && miss.is_none() && read_error.is_none() {
                break;
            }
            let mut parsed = Vec::with_capacity(hits.len());
            let mut resend = Vec::new();
            for (index, text, key, body) in hits {
                match serde_json::from_str::<Value>(&text) {
                    Ok(answer) => parsed.push((index, answer)),
                    // A row that no longer parses counts as missing.
                    Err(_) => resend.push((index, key, body)),
                }
            }
            if !parsed.is_empty() && results.send(Done::Hits(parsed)).is_err() {
                break;
            }
            for (index, key, body) in resend {
                if results.send(send(sender, progress, index, key, body)).is_err() {
                    break;
                }
            }
            if let Some(e) = read_error {
                let _ = results.send(Done::CacheError(e));
                break;
            }
            if let Some((index, key, body)) = miss {
                // A request goes out: let another worker take the next one meanwhile.
                self.spawn(scope, results.clone());
                if results.send(send(sender, progress, index, key, body)).is_err() {
                    break;
                }
            }
        }
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

/// done/total (or done, when the total is unknown), rate, ETA and retries, on stderr; hidden
/// when disabled or not a terminal.
fn progress_bar(config: &RunConfig, total: Option<u64>) -> ProgressBar {
    let target = if config.show_progress && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(total, target);
    let template = if total.is_some() { "{wide_bar} {pos}/{len} {per_sec} ETA {eta} {msg}" } else { "{spinner} {pos} {per_sec} {msg}" };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_message("retries: 0");
    bar
}
