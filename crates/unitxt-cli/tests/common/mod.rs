//! What the oracle tests of `unitxt-rs infer` and `evaluate` with LLM judges share: a scripted
//! OpenAI-compatible server on 127.0.0.1 that answers with a deterministic function of each
//! request body and records every body, and the comparison of bodies as JSON.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The Python with Unitxt 1.26.10 (`UNITXT_PYTHON`, else `/work/main/.venv/bin/python`).
pub fn python() -> PathBuf {
    std::env::var_os("UNITXT_PYTHON").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/work/main/.venv/bin/python"))
}

/// The text of the answer to a request body.
pub type AnswerFn = fn(&Value) -> String;

/// A server on 127.0.0.1 that answers every `POST .../chat/completions` and records its body
/// (as text). One request per connection (`Connection: close`).
pub struct Server {
    /// Its port on 127.0.0.1.
    pub port: u16,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// A server whose answers' text is `answer(body)`.
    pub fn start(answer: AnswerFn) -> Server {
        Server::failing(answer, "")
    }
    /// A server that answers HTTP 400 to the requests whose body contains `fail` (when not
    /// empty).
    pub fn failing(answer: AnswerFn, fail: &'static str) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let log = bodies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                std::thread::spawn(move || handle(stream, &log, answer, fail));
            }
        });
        Server { port, bodies }
    }
    /// The bodies received since the last call, as text.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.bodies.lock().unwrap())
    }
}

fn handle(stream: TcpStream, log: &Mutex<Vec<String>>, answer_text: AnswerFn, fail: &str) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    let text = String::from_utf8(body).unwrap();
    let (status, out) = if !fail.is_empty() && text.contains(fail) {
        log.lock().unwrap().push(text);
        ("400 Bad Request", r#"{"error": {"message": "refused by the test server"}}"#.to_string())
    } else if path.ends_with("/chat/completions") {
        let parsed: Value = serde_json::from_str(&text).unwrap();
        log.lock().unwrap().push(text);
        // With tools, the answer is a call of the first one.
        let message = match parsed["tools"][0]["function"]["name"].as_str() {
            Some(name) => json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": name, "arguments": format!("{{\"n\": {}}}", answer_text(&parsed).len())}}]}),
            None => json!({"role": "assistant", "content": answer_text(&parsed)}),
        };
        let mut choice = json!({"index": 0, "finish_reason": "stop", "message": message});
        if parsed["logprobs"] == json!(true) {
            choice["logprobs"] = log_probs(&answer_text(&parsed), parsed["top_logprobs"].as_u64().unwrap_or(0) as usize);
        }
        let answer = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": parsed["model"],
            "choices": [choice],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        });
        ("200 OK", answer.to_string())
    } else {
        ("404 Not Found", "{}".to_string())
    };
    let mut stream = stream;
    let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{out}", out.len());
}

/// The `logprobs` of an answer `text` (asked with `"logprobs": true`): one entry per
/// space-separated word, its log probability and `top` alternatives (`Yes`, `No`, ` yes`,
/// ` no`, then other words), all with log probabilities that depend on the word and its place.
fn log_probs(text: &str, top: usize) -> Value {
    let alternatives = ["Yes", "No", " yes", " no", "Maybe", "The", "I", "It"];
    let content: Vec<Value> = text
        .split(' ')
        .enumerate()
        .map(|(k, word)| {
            let seed = word.bytes().fold(k as u64 + 7, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
            let tops: Vec<Value> = alternatives
                .iter()
                .take(top)
                .enumerate()
                .map(|(j, t)| json!({"token": t, "logprob": -(((seed >> (j * 3)) % 40) as f64) / 8.0 - 0.015625 * j as f64, "bytes": null}))
                .collect();
            json!({"token": word, "logprob": -((seed % 13) as f64) / 16.0, "bytes": null, "top_logprobs": tops})
        })
        .collect();
    json!({"content": content})
}

/// `v` with object keys sorted, as text: equal texts are equal JSON (numbers keep their
/// written form, so `0.0` and `0` differ as they do on the wire).
pub fn canonical(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let sorted: BTreeMap<&String, Value> = m.iter().map(|(k, v)| (k, sort(v))).collect();
                let mut out = serde_json::Map::new();
                for (k, v) in sorted {
                    out.insert(k.clone(), v);
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).to_string()
}

/// The bodies as [`canonical`] texts, sorted: equal lists are equal multisets of bodies.
pub fn sorted_canonical(bodies: &[String]) -> Vec<String> {
    let mut out: Vec<String> = bodies.iter().map(|b| canonical(&serde_json::from_str(b).unwrap())).collect();
    out.sort();
    out
}
