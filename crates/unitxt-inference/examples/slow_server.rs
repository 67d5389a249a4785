//! A bench-only OpenAI-compatible server on 127.0.0.1 that answers every
//! `POST /v1/chat/completions` after a fixed latency, for `scripts/bench.py`'s `infer` case
//! (the setup of the inference benchmark: a model that takes 200 ms per answer, and a server
//! that is never the bottleneck). `GET /stats` returns `{"requests": N}`, the chat completions
//! answered so far.
//!
//! ```text
//! cargo run --release -p unitxt-inference --example slow_server -- [--latency-ms 200] [--port 0] [--answer TEXT]
//! ```
//! It prints `listening on http://127.0.0.1:PORT` once bound, then serves until killed.
//! Each answer is `"echo: " + <last user message>` (or TEXT, with `--answer`) with `usage`
//! counts (words of the message, and 3 completion tokens).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The text after `--answer`, when given.
fn answer_arg() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == "--answer").and_then(|i| args.get(i + 1)).cloned()
}

#[tokio::main]
async fn main() {
    let latency = Duration::from_millis(arg("--latency-ms", 200));
    let fixed: Arc<Option<String>> = Arc::new(answer_arg());
    let port = arg("--port", 0) as u16;
    let count = Arc::new(AtomicU64::new(0));
    let answered = count.clone();
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(move |Json(body): Json<Value>| {
                let answered = answered.clone();
                let fixed = fixed.clone();
                async move {
                    tokio::time::sleep(latency).await;
                    let last = body["messages"]
                        .as_array()
                        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                        .and_then(|m| m["content"].as_str())
                        .unwrap_or("")
                        .to_string();
                    let words = last.split_whitespace().count();
                    answered.fetch_add(1, Ordering::Relaxed);
                    Json(json!({
                        "id": "chatcmpl-bench",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": fixed.as_deref().map(str::to_string).unwrap_or_else(|| format!("echo: {last}"))}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": words, "completion_tokens": 3, "total_tokens": words + 3},
                    }))
                }
            }),
        )
        .route("/stats", get(move || async move { Json(json!({"requests": count.load(Ordering::Relaxed)})) }));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind 127.0.0.1");
    println!("listening on http://{}", listener.local_addr().expect("bound address"));
    axum::serve(listener, app).await.expect("serve");
}
