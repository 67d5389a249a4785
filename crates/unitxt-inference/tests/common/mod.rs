//! A scripted OpenAI-compatible server on 127.0.0.1 for the tests: a plain `TcpListener` and a
//! tiny HTTP/1.1 handler (one request per connection, `Connection: close`).
//!
//! `POST /v1/chat/completions` answers `"echo: " + <last user message>` with `usage` counts
//! (prompt_tokens = words of the message, completion_tokens = that + 1), unless the script
//! says otherwise for this (message, attempt). Every request received is logged.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// What the server does with one request.
#[derive(Clone, Debug)]
pub enum Action {
    /// The echo answer (after the server's base delay).
    Answer,
    /// This status, with an optional `Retry-After` (seconds) and this body.
    Status {
        code: u16,
        retry_after: Option<u64>,
        body: String,
    },
    /// Wait this long, then answer.
    Slow(Duration),
    /// HTTP 200 with a truncated JSON body.
    Malformed,
    /// Close the connection without answering.
    Reset,
}

/// `(last user message, attempt)` → action; `attempt` counts earlier receipts of the same
/// message by this log (0 for the first).
pub type Script = Arc<dyn Fn(&str, usize) -> Action + Send + Sync>;

pub fn plain() -> Script {
    Arc::new(|_, _| Action::Answer)
}

/// One request received.
#[derive(Clone, Debug)]
pub struct Received {
    pub prompt: String,
    pub at: Instant,
    pub authorization: Option<String>,
    /// Whether a 200 echo answer was written for it.
    pub answered: bool,
}

#[derive(Default)]
struct LogInner {
    received: Vec<Received>,
    in_flight: usize,
    max_in_flight: usize,
}

/// Everything the server(s) sharing this log received. Shared across a restart.
#[derive(Default)]
pub struct Log {
    inner: Mutex<LogInner>,
}

impl Log {
    pub fn received(&self) -> Vec<Received> {
        self.inner.lock().unwrap().received.clone()
    }
    pub fn total(&self) -> usize {
        self.inner.lock().unwrap().received.len()
    }
    /// Requests received per message.
    pub fn counts(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for r in self.received() {
            *counts.entry(r.prompt).or_insert(0) += 1;
        }
        counts
    }
    /// Echo answers written per message.
    pub fn answered(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for r in self.received().into_iter().filter(|r| r.answered) {
            *counts.entry(r.prompt).or_insert(0) += 1;
        }
        counts
    }
    pub fn answered_total(&self) -> usize {
        self.received().iter().filter(|r| r.answered).count()
    }
    pub fn max_in_flight(&self) -> usize {
        self.inner.lock().unwrap().max_in_flight
    }
    /// Receipt times of one message, in order.
    pub fn times(&self, prompt: &str) -> Vec<Instant> {
        self.received()
            .into_iter()
            .filter(|r| r.prompt == prompt)
            .map(|r| r.at)
            .collect()
    }
}

pub struct Server {
    pub port: u16,
    pub log: Arc<Log>,
    dead: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// A server on a free port; every echo answer waits `delay` first.
    pub fn start(delay: Duration, script: Script) -> Server {
        Server::start_on(0, Arc::new(Log::default()), delay, script)
    }

    /// A server on `port` (0 for any) logging into `log`.
    pub fn start_on(port: u16, log: Arc<Log>, delay: Duration, script: Script) -> Server {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let dead = Arc::new(AtomicBool::new(false));
        let accept = {
            let (log, dead) = (log.clone(), dead.clone());
            std::thread::spawn(move || {
                while !dead.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let (log, dead, script) = (log.clone(), dead.clone(), script.clone());
                            std::thread::spawn(move || handle(stream, &log, &dead, delay, &script));
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
                // The listener is dropped here: new connections are refused.
            })
        };
        Server {
            port,
            log,
            dead,
            accept: Some(accept),
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Stops listening; requests being handled are dropped without an answer.
    pub fn kill(&mut self) {
        self.dead.store(true, Ordering::SeqCst);
        if let Some(accept) = self.accept.take() {
            accept.join().unwrap();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

fn handle(stream: TcpStream, log: &Log, dead: &AtomicBool, delay: Duration, script: &Script) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut content_length = 0;
    let mut authorization = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => content_length = value.trim().parse().unwrap_or(0),
                "authorization" => authorization = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; content_length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut stream = reader.into_inner();
    if !request_line.starts_with("POST /v1/chat/completions ") {
        let _ = write_response(&mut stream, 404, None, "{\"error\":\"not found\"}");
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let prompt = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string();

    let slot = {
        let mut inner = log.inner.lock().unwrap();
        inner.in_flight += 1;
        inner.max_in_flight = inner.max_in_flight.max(inner.in_flight);
        inner.received.push(Received {
            prompt: prompt.clone(),
            at: Instant::now(),
            authorization,
            answered: false,
        });
        inner.received.len() - 1
    };
    let attempt = log.received()[..slot]
        .iter()
        .filter(|r| r.prompt == prompt)
        .count();
    let answer = |stream: &mut TcpStream, wait: Duration| {
        std::thread::sleep(wait);
        if dead.load(Ordering::SeqCst) {
            return; // killed: the connection is dropped unanswered
        }
        let words = prompt.split_whitespace().count() as u64;
        let answer = json!({
            "id": format!("chatcmpl-{slot}"),
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": format!("echo: {prompt}")}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": words, "completion_tokens": words + 1, "total_tokens": 2 * words + 1},
        });
        // Marked before writing: the client may finish (and the test read the log) before
        // this thread runs again; a write that fails takes the mark back.
        log.inner.lock().unwrap().received[slot].answered = true;
        if write_response(stream, 200, None, &answer.to_string()).is_err() {
            log.inner.lock().unwrap().received[slot].answered = false;
        }
    };
    match script(&prompt, attempt) {
        Action::Answer => answer(&mut stream, delay),
        Action::Slow(wait) => answer(&mut stream, wait),
        Action::Status {
            code,
            retry_after,
            body,
        } => {
            let _ = write_response(&mut stream, code, retry_after, &body);
        }
        Action::Malformed => {
            let _ = write_response(&mut stream, 200, None, "{\"choices\": [{\"message\": ");
        }
        Action::Reset => {}
    }
    log.inner.lock().unwrap().in_flight -= 1;
}

fn write_response(
    stream: &mut TcpStream,
    code: u16,
    retry_after: Option<u64>,
    body: &str,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {code} Status\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(seconds) = retry_after {
        head.push_str(&format!("Retry-After: {seconds}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}
