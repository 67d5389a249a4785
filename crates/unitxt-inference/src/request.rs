//! One request, attempted until it is answered or fails for good.

use std::fmt;
use std::io;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use backon::BackoffBuilder;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::Value;

use crate::config::RunConfig;

/// Why an attempt (and, when it is the last one, a request) failed. Retry decisions are made
/// on this kind, never on message text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// HTTP 429 Too Many Requests. Retryable; `Retry-After` is honoured.
    RateLimited,
    /// HTTP 5xx, 408 Request Timeout or 409 Conflict (the statuses the OpenAI client libraries
    /// retry). Retryable; `Retry-After` is honoured on 503.
    Server,
    /// Any other HTTP status ≥ 400 (bad request, authentication, not found, ...). Not retried.
    Client,
    /// The attempt took longer than [`RunConfig::timeout`]. Retryable.
    Timeout,
    /// The connection could not be made or broke before a whole answer was read (refused,
    /// reset, closed early, garbled HTTP). Retryable.
    Connection,
    /// HTTP 200 whose body is not a JSON object. Retryable: a truncated or garbled answer from
    /// an overloaded server usually comes out whole on the next try.
    MalformedAnswer,
    /// The request could not be sent at all (an invalid URL or scheme). Not retried.
    InvalidRequest,
}

impl FailureKind {
    /// Whether another attempt may succeed.
    pub fn is_retryable(self) -> bool {
        !matches!(self, FailureKind::Client | FailureKind::InvalidRequest)
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FailureKind::RateLimited => "rate limited",
            FailureKind::Server => "server error",
            FailureKind::Client => "client error",
            FailureKind::Timeout => "timed out",
            FailureKind::Connection => "connection failed",
            FailureKind::MalformedAnswer => "malformed answer",
            FailureKind::InvalidRequest => "invalid request",
        })
    }
}

/// A failed attempt.
#[derive(Clone, Debug)]
pub(crate) struct AttemptError {
    pub kind: FailureKind,
    pub status: Option<u16>,
    /// The delay the server asked for (`Retry-After`, in seconds, on 429 and 503).
    pub retry_after: Option<Duration>,
    /// A short description, with the API key redacted.
    pub detail: String,
}

/// Shared state of the workers: the HTTP agent, the rate limiter and the counters.
pub(crate) struct Sender<'a> {
    config: &'a RunConfig,
    url: String,
    agent: ureq::Agent,
    limiter: Option<DefaultDirectRateLimiter>,
    /// HTTP requests sent (every attempt).
    pub sent: AtomicU64,
    /// Attempts after the first.
    pub retries: AtomicU64,
}

impl<'a> Sender<'a> {
    pub(crate) fn new(config: &'a RunConfig) -> Sender<'a> {
        let agent = ureq::AgentBuilder::new().timeout(config.timeout).build();
        let limiter = config.max_requests_per_second.and_then(|rate| {
            let quota = Quota::with_period(Duration::from_secs_f64(1.0 / rate))?
                .allow_burst(NonZeroU32::MIN);
            Some(RateLimiter::direct(quota))
        });
        Sender {
            config,
            url: config.completions_url(),
            agent,
            limiter,
            sent: AtomicU64::new(0),
            retries: AtomicU64::new(0),
        }
    }

    /// Sends `body` until it is answered or fails for good. On failure, returns the last
    /// attempt's error and the number of attempts made. `on_retry` is called before each retry.
    ///
    /// The delays come from backon's exponential backoff with jitter; the loop is ours because
    /// backon's blocking retry cannot lengthen a delay to a server's `Retry-After`.
    pub(crate) fn send(
        &self,
        body: &str,
        mut on_retry: impl FnMut(),
    ) -> Result<Value, (AttemptError, u32)> {
        let mut delays = backon::ExponentialBuilder::new()
            .with_min_delay(self.config.min_retry_delay)
            .with_max_delay(self.config.max_retry_delay)
            .with_max_times(self.config.max_retries as usize)
            .with_jitter()
            .build();
        let mut attempts = 0u32;
        loop {
            self.wait_for_rate_limit();
            attempts += 1;
            self.sent.fetch_add(1, Ordering::Relaxed);
            let error = match self.attempt(body) {
                Ok(answer) => return Ok(answer),
                Err(error) => error,
            };
            if !error.kind.is_retryable() {
                return Err((error, attempts));
            }
            let Some(delay) = delays.next() else {
                return Err((error, attempts));
            };
            std::thread::sleep(delay.max(error.retry_after.unwrap_or_default()));
            self.retries.fetch_add(1, Ordering::Relaxed);
            on_retry();
        }
    }

    fn wait_for_rate_limit(&self) {
        let Some(limiter) = &self.limiter else { return };
        while let Err(not_until) = limiter.check() {
            std::thread::sleep(not_until.wait_time_from(DefaultClock::default().now()));
        }
    }

    fn attempt(&self, body: &str) -> Result<Value, AttemptError> {
        let mut request = self
            .agent
            .post(&self.url)
            .set("Content-Type", "application/json");
        // ureq writes `Authorization` as `***` in its own debug logs.
        if let Some(key) = &self.config.api_key {
            request = request.set("Authorization", &format!("Bearer {key}"));
        }
        for (name, value) in &self.config.headers {
            request = request.set(name, value);
        }
        match request.send_string(body) {
            Ok(response) => {
                let text = response
                    .into_string()
                    .map_err(|e| io_error(&e, "reading the answer"))?;
                match serde_json::from_str::<Value>(&text) {
                    Ok(value) if value.is_object() => Ok(value),
                    Ok(_) => Err(self.malformed("the answer is JSON but not an object")),
                    Err(e) => Err(self.malformed(&format!("the answer is not JSON: {e}"))),
                }
            }
            Err(ureq::Error::Status(status, response)) => {
                let retry_after = response
                    .header("retry-after")
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64);
                let kind = match status {
                    429 => FailureKind::RateLimited,
                    408 | 409 | 500..=599 => FailureKind::Server,
                    _ => FailureKind::Client,
                };
                let mut text = response.into_string().unwrap_or_default();
                if text.len() > 300 {
                    let mut end = 300;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.truncate(end);
                    text.push('…');
                }
                Err(AttemptError {
                    kind,
                    status: Some(status),
                    retry_after: retry_after.filter(|_| matches!(status, 429 | 503)),
                    detail: self
                        .config
                        .redact(&format!("HTTP {status}: {}", text.trim())),
                })
            }
            Err(ureq::Error::Transport(transport)) => {
                use ureq::ErrorKind as K;
                let kind = match transport.kind() {
                    K::InvalidUrl
                    | K::UnknownScheme
                    | K::InsecureRequestHttpsOnly
                    | K::InvalidProxyUrl => FailureKind::InvalidRequest,
                    _ if is_timeout(&transport) => FailureKind::Timeout,
                    _ => FailureKind::Connection,
                };
                Err(AttemptError {
                    kind,
                    status: None,
                    retry_after: None,
                    detail: self.config.redact(&transport.to_string()),
                })
            }
        }
    }

    fn malformed(&self, detail: &str) -> AttemptError {
        AttemptError {
            kind: FailureKind::MalformedAnswer,
            status: Some(200),
            retry_after: None,
            detail: detail.to_string(),
        }
    }
}

fn is_timeout(transport: &ureq::Transport) -> bool {
    let mut source = std::error::Error::source(transport);
    while let Some(error) = source {
        if let Some(io) = error.downcast_ref::<io::Error>() {
            return matches!(
                io.kind(),
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
            );
        }
        source = error.source();
    }
    false
}

fn io_error(error: &io::Error, doing: &str) -> AttemptError {
    let kind = match error.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => FailureKind::Timeout,
        _ => FailureKind::Connection,
    };
    AttemptError {
        kind,
        status: None,
        retry_after: None,
        detail: format!("{doing}: {error}"),
    }
}
