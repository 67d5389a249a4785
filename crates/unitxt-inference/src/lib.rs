//! The run core of unitxt-rs inference: send chat-completion requests to an OpenAI-compatible
//! HTTP endpoint and get every answer back, losing nothing on faults.
//!
//! ```no_run
//! use unitxt_inference::{run, RunConfig};
//! let mut config = RunConfig::new("http://127.0.0.1:8000/v1");
//! config.cache_path = Some("answers.sqlite".into());
//! let requests = vec![serde_json::json!({
//!     "model": "my-model",
//!     "messages": [{"role": "user", "content": "Hello"}],
//! })];
//! match run(&config, &requests, |_, _| {}) {
//!     Ok(report) => println!("{} answers, {} sent", report.answers.len(), report.sent),
//!     Err(error) => eprintln!("{error}"), // failed requests are listed; a rerun sends only them
//! }
//! ```
//!
//! Where the behaviour comes from:
//! - the knobs (`num_parallel_requests`, `max_requests_per_second`, `max_retries`, `timeout`)
//!   are those of Unitxt's `OpenAiInferenceEngine` and lm-evaluation-harness's `TemplateAPI`;
//! - the retried statuses (429, 408, 409, 5xx) and `Retry-After` are what the OpenAI client
//!   libraries do;
//! - the cache is the idea of lm-evaluation-harness's `CachingLM` and Unitxt's
//!   `InferenceEngine` cache, keyed like inspect_ai's model cache on what determines the
//!   answer (endpoint and request body), but written one committed row per answer as answers
//!   arrive, so a crash or a failed run loses nothing received.
//!
//! The engine crate (`unitxt`) does not depend on this one: the engine hands over request
//! bodies through its `ModelClient` trait and receives answers; [`RunClient`] is that trait
//! implemented with [`run`], for the CLI and the Python bindings.

#![warn(missing_docs)]

mod cache;
mod client;
mod config;
mod request;
mod run;

pub use cache::cache_key;
pub use client::RunClient;
pub use config::RunConfig;
pub use request::FailureKind;
pub use run::{run, run_stream, Failure, Outcome, RunError, RunReport, RunStats, Usage};
