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
//! The engine crate does not depend on this one's internals: it hands over request bodies
//! and receives answers.

mod cache;
mod config;
mod request;
mod run;

pub use cache::cache_key;
pub use config::RunConfig;
pub use request::FailureKind;
pub use run::{run, Failure, RunError, RunReport, Usage};
