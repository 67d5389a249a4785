//! What a run talks to and how hard it tries: [`RunConfig`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// How to run a batch of chat-completion requests against one OpenAI-compatible endpoint.
///
/// The fields mirror the knobs of Unitxt's `OpenAiInferenceEngine` / lm-evaluation-harness's
/// `TemplateAPI` (`num_parallel_requests`, `max_requests_per_second`, `max_retries`,
/// `timeout`, a cache path). Build one with [`RunConfig::new`] and set the fields you need.
///
/// `Debug` is written by hand: it prints `api_key: Some("[redacted]")`, never the key.
#[derive(Clone)]
pub struct RunConfig {
    /// Base URL of the API, e.g. `http://127.0.0.1:8000/v1` or `https://api.openai.com/v1`.
    /// Requests are POSTed to `<base_url><completions_path>` (a trailing `/` of the base is
    /// ignored). Together with the request body, that URL identifies an answer in the cache.
    pub base_url: String,
    /// The path of chat completions under `base_url`: `/chat/completions` (the default);
    /// Azure's deployments take `/chat/completions/?api-version=...`.
    pub completions_path: String,
    /// Sent as `Authorization: Bearer <key>` when set. Never written to the cache, errors,
    /// logs or `Debug` output, and not part of the cache key.
    pub api_key: Option<String>,
    /// Extra HTTP headers sent with every request (an engine's `default_headers`; RITS sends
    /// its key in `RITS_API_KEY`). Their values are treated as secrets, like the API key: not
    /// part of the cache key, redacted from errors and `Debug` output (which shows the names).
    pub headers: Vec<(String, String)>,
    /// How many requests may be in flight at once (worker threads); at least 1.
    pub num_parallel_requests: usize,
    /// Upper bound on request starts per second (retries included), spread evenly (no burst);
    /// `None` for no limit. May be fractional (`0.5` = one request every 2 s).
    pub max_requests_per_second: Option<f64>,
    /// How many times a request is retried after its first attempt on a retryable failure
    /// (so at most `max_retries + 1` attempts).
    pub max_retries: u32,
    /// Timeout of one attempt, from connecting to reading the whole answer.
    pub timeout: Duration,
    /// First backoff delay between attempts; it doubles per retry, with random jitter added,
    /// up to [`max_retry_delay`](Self::max_retry_delay). A `Retry-After: <seconds>` on a 429
    /// or 503 raises the delay to at least what it asks (an HTTP-date value is ignored).
    pub min_retry_delay: Duration,
    /// Cap of the backoff delay (not of a server's `Retry-After`).
    pub max_retry_delay: Duration,
    /// SQLite file that keeps every answer as it arrives; `None` keeps nothing between runs.
    pub cache_path: Option<PathBuf>,
    /// Draw a progress bar on stderr (only when stderr is a terminal).
    pub show_progress: bool,
}

impl RunConfig {
    /// A configuration for `base_url` with defaults: no API key, 10 parallel requests, no rate
    /// limit, 5 retries, 60 s timeout, backoff from 1 s up to 60 s, no cache, progress shown.
    pub fn new(base_url: impl Into<String>) -> Self {
        RunConfig {
            base_url: base_url.into(),
            completions_path: "/chat/completions".into(),
            api_key: None,
            headers: Vec::new(),
            num_parallel_requests: 10,
            max_requests_per_second: None,
            max_retries: 5,
            timeout: Duration::from_secs(60),
            min_retry_delay: Duration::from_secs(1),
            max_retry_delay: Duration::from_secs(60),
            cache_path: None,
            show_progress: true,
        }
    }

    /// The URL requests are POSTed to: `<base_url><completions_path>`.
    pub fn completions_url(&self) -> String {
        format!("{}{}", self.base_url.trim_end_matches('/'), self.completions_path)
    }

    /// Replaces every occurrence of the API key and of the header values in `text` by
    /// `[redacted]` (for error details that quote a server's answer, which may echo them).
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in self.api_key.iter().chain(self.headers.iter().map(|(_, v)| v)) {
            if !secret.is_empty() {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }
}

impl fmt::Debug for RunConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunConfig")
            .field("base_url", &self.base_url)
            .field("completions_path", &self.completions_path)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("headers", &self.headers.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>())
            .field("num_parallel_requests", &self.num_parallel_requests)
            .field("max_requests_per_second", &self.max_requests_per_second)
            .field("max_retries", &self.max_retries)
            .field("timeout", &self.timeout)
            .field("min_retry_delay", &self.min_retry_delay)
            .field("max_retry_delay", &self.max_retry_delay)
            .field("cache_path", &self.cache_path)
            .field("show_progress", &self.show_progress)
            .finish()
    }
}
