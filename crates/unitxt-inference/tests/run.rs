//! Runs against a real HTTP server on 127.0.0.1 (tests/common), each asserting the exact
//! requests the server received.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{plain, Action, Server};
use serde_json::{json, Value};
use unitxt_inference::{run, FailureKind, RunConfig, RunError, RunReport};

fn prompt(i: usize) -> String {
    format!("q{i}")
}

fn requests(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"model": "m", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": prompt(i)}], "temperature": 0}))
        .collect()
}

/// Fast settings: 4 workers, 3 retries, 2 s timeout, 10–50 ms backoff, no cache, no bar.
fn config(server: &Server) -> RunConfig {
    let mut config = RunConfig::new(server.base_url());
    config.num_parallel_requests = 4;
    config.max_retries = 3;
    config.timeout = Duration::from_secs(2);
    config.min_retry_delay = Duration::from_millis(10);
    config.max_retry_delay = Duration::from_millis(50);
    config.show_progress = false;
    config
}

fn content(answer: &Value) -> &str {
    answer["choices"][0]["message"]["content"].as_str().unwrap()
}

fn assert_all_answered(report: &RunReport, n: usize) {
    assert_eq!(report.answers.len(), n);
    for (i, answer) in report.answers.iter().enumerate() {
        let answer = answer
            .as_ref()
            .unwrap_or_else(|| panic!("request {i} has no answer"));
        assert_eq!(content(answer), format!("echo: {}", prompt(i)));
    }
}

fn failed_report(result: Result<RunReport, RunError>) -> RunReport {
    match result {
        Err(RunError::RequestsFailed(report)) => *report,
        other => panic!("expected RequestsFailed, got {other:?}"),
    }
}

#[test]
fn plain_run_sends_each_request_once_in_parallel() {
    let server = Server::start(Duration::from_millis(50), plain());
    let n = 12;
    let mut seen = vec![0; n];
    let report = run(&config(&server), &requests(n), |i, answer| {
        assert_eq!(content(answer), format!("echo: q{i}"));
        seen[i] += 1;
    })
    .unwrap();
    assert_all_answered(&report, n);
    assert_eq!(seen, vec![1; n]);
    let counts = server.log.counts();
    assert_eq!(server.log.total(), n);
    assert!((0..n).all(|i| counts[&prompt(i)] == 1), "{counts:?}");
    let max = server.log.max_in_flight();
    assert!(max > 1 && max <= 4, "max in flight {max}");
    assert_eq!(
        (report.sent, report.retries, report.cached),
        (n as u64, 0, 0)
    );
    assert_eq!(
        (report.usage.prompt_tokens, report.usage.completion_tokens),
        (n as u64, 2 * n as u64)
    );
}

#[test]
fn rate_limit_spreads_request_starts() {
    let server = Server::start(Duration::ZERO, plain());
    let mut config = config(&server);
    config.max_requests_per_second = Some(20.0);
    let report = run(&config, &requests(8), |_, _| {}).unwrap();
    assert_all_answered(&report, 8);
    let times: Vec<Instant> = server.log.received().iter().map(|r| r.at).collect();
    assert_eq!(times.len(), 8);
    let span = times
        .iter()
        .max()
        .unwrap()
        .duration_since(*times.iter().min().unwrap());
    // 8 starts at 20/s, no burst: 7 intervals of 50 ms.
    assert!(span >= Duration::from_millis(300), "span {span:?}");
}

#[test]
fn retry_after_on_429_and_503_is_honoured() {
    let script = Arc::new(|p: &str, attempt| match (p, attempt) {
        ("q0" | "q3", 0) => Action::Status {
            code: if p == "q0" { 429 } else { 503 },
            retry_after: Some(1),
            body: "{\"error\":\"slow down\"}".into(),
        },
        _ => Action::Answer,
    });
    let server = Server::start(Duration::from_millis(10), script);
    let report = run(&config(&server), &requests(6), |_, _| {}).unwrap();
    assert_all_answered(&report, 6);
    let counts = server.log.counts();
    for i in 0..6 {
        let expected = if i == 0 || i == 3 { 2 } else { 1 };
        assert_eq!(counts[&prompt(i)], expected, "{counts:?}");
        assert_eq!(server.log.answered()[&prompt(i)], 1);
    }
    for p in ["q0", "q3"] {
        let times = server.log.times(p);
        let waited = times[1].duration_since(times[0]);
        assert!(
            waited >= Duration::from_secs(1),
            "{p} retried after {waited:?}"
        );
    }
    assert_eq!((report.sent, report.retries), (8, 2));
}

#[test]
fn transient_faults_are_retried() {
    let script = Arc::new(|p: &str, attempt| match (p, attempt) {
        ("q0", 0..=2) => Action::Status {
            code: 500,
            retry_after: None,
            body: "oops".into(),
        },
        ("q1", 0) => Action::Slow(Duration::from_millis(1500)),
        ("q2", 0) => Action::Malformed,
        ("q3", 0) => Action::Reset,
        _ => Action::Answer,
    });
    let server = Server::start(Duration::ZERO, script);
    let mut config = config(&server);
    config.timeout = Duration::from_millis(500);
    let report = run(&config, &requests(5), |_, _| {}).unwrap();
    assert_all_answered(&report, 5);
    let counts = server.log.counts();
    let expected = [4, 2, 2, 2, 1];
    for (i, &n) in expected.iter().enumerate() {
        assert_eq!(counts[&prompt(i)], n, "{counts:?}");
    }
    assert_eq!((report.sent, report.retries), (11, 6));
}

#[test]
fn server_killed_mid_run_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(Duration::from_millis(40), plain());
    let (port, log) = (server.port, server.log.clone());
    let mut config = config(&server);
    config.max_retries = 2;
    config.min_retry_delay = Duration::from_millis(50);
    config.max_retry_delay = Duration::from_millis(100);
    config.cache_path = Some(dir.path().join("cache.sqlite"));
    let n = 20;
    let first = std::thread::scope(|scope| {
        let running = scope.spawn(|| run(&config, &requests(n), |_, _| {}));
        while log.answered_total() < 6 {
            std::thread::sleep(Duration::from_millis(2));
        }
        server.kill();
        std::thread::sleep(Duration::from_millis(400));
        server = Server::start_on(port, log.clone(), Duration::from_millis(40), plain());
        running.join().unwrap()
    });
    let after_first = log.total();
    let answered_first = match first {
        Ok(report) => {
            assert_all_answered(&report, n);
            n
        }
        Err(RunError::RequestsFailed(report)) => {
            eprintln!("first run: {}", RunError::RequestsFailed(report.clone()));
            let failed: Vec<usize> = report.failures.iter().map(|f| f.index).collect();
            for (i, answer) in report.answers.iter().enumerate() {
                assert_eq!(answer.is_none(), failed.contains(&i), "request {i}");
            }
            assert!(report
                .failures
                .iter()
                .all(|f| f.kind.is_retryable() && f.attempts == 3));
            n - failed.len()
        }
        Err(other) => panic!("{other}"),
    };
    // The rerun takes what arrived from the cache and sends each missing request once.
    let report = run(&config, &requests(n), |_, _| {}).unwrap();
    assert_all_answered(&report, n);
    assert_eq!(report.cached, answered_first);
    assert_eq!(log.total() - after_first, n - answered_first);
    // Over both runs, each request got exactly one answer, and after it was answered it was
    // never sent again.
    let received = log.received();
    for i in 0..n {
        let mine: Vec<_> = received.iter().filter(|r| r.prompt == prompt(i)).collect();
        assert_eq!(
            mine.iter().filter(|r| r.answered).count(),
            1,
            "q{i}: {mine:?}"
        );
        assert!(
            mine.last().unwrap().answered,
            "q{i} re-sent after its answer: {mine:?}"
        );
    }
}

#[test]
fn warm_cache_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(Duration::ZERO, plain());
    let mut config = config(&server);
    config.cache_path = Some(dir.path().join("cache.sqlite"));
    let first = run(&config, &requests(6), |_, _| {}).unwrap();
    assert_eq!((first.sent, first.cached), (6, 0));
    // Same bodies with their keys in another order, another API key and other run settings:
    // the same cache entries.
    let reordered: Vec<Value> = (0..6)
        .map(|i| json!({"temperature": 0, "messages": [{"content": "be brief", "role": "system"}, {"content": prompt(i), "role": "user"}], "model": "m"}))
        .collect();
    config.api_key = Some("another-key".into());
    config.num_parallel_requests = 1;
    config.max_retries = 0;
    let mut seen = 0;
    let second = run(&config, &reordered, |_, _| seen += 1).unwrap();
    assert_all_answered(&second, 6);
    assert_eq!((second.sent, second.cached, seen), (0, 6, 6));
    assert_eq!(server.log.total(), 6);
}

#[test]
fn duplicate_bodies_are_sent_once() {
    let server = Server::start(Duration::ZERO, plain());
    let mut bodies = requests(3);
    bodies.push(bodies[1].clone());
    let report = run(&config(&server), &bodies, |_, _| {}).unwrap();
    assert_eq!(server.log.total(), 3);
    assert_eq!(content(report.answers[3].as_ref().unwrap()), "echo: q1");
}

#[test]
fn exhausted_retries_list_the_failed_requests() {
    let dir = tempfile::tempdir().unwrap();
    let script = Arc::new(|p: &str, _| match p {
        "q1" => Action::Status {
            code: 500,
            retry_after: None,
            body: "down".into(),
        },
        "q2" => Action::Status {
            code: 400,
            retry_after: None,
            body: "{\"error\":\"bad request\"}".into(),
        },
        "q4" => Action::Slow(Duration::from_millis(1500)),
        _ => Action::Answer,
    });
    let mut server = Server::start(Duration::ZERO, script);
    let mut config = config(&server);
    config.max_retries = 2;
    config.timeout = Duration::from_millis(500);
    config.cache_path = Some(dir.path().join("cache.sqlite"));
    let error = run(&config, &requests(6), |_, _| {}).unwrap_err();
    let message = error.to_string();
    assert!(message.starts_with("3 of 6 requests failed"), "{message}");
    assert!(
        message.contains("request 1: server error (HTTP 500) after 3 attempts"),
        "{message}"
    );
    let report = failed_report(Err(error));
    let failures: Vec<_> = report
        .failures
        .iter()
        .map(|f| (f.index, f.kind, f.status, f.attempts))
        .collect();
    assert_eq!(
        failures,
        [
            (1, FailureKind::Server, Some(500), 3),
            (2, FailureKind::Client, Some(400), 1),
            (4, FailureKind::Timeout, None, 3),
        ]
    );
    for i in [0, 3, 5] {
        assert_eq!(
            content(report.answers[i].as_ref().unwrap()),
            format!("echo: q{i}")
        );
    }
    let counts = server.log.counts();
    for (i, n) in [(0, 1), (1, 3), (2, 1), (3, 1), (4, 3), (5, 1)] {
        assert_eq!(counts[&prompt(i)], n, "{counts:?}");
    }
    // The answers that arrived are in the cache: a rerun against a healthy server on the same
    // endpoint sends only the three failed requests.
    server.kill();
    let healthy = Server::start_on(server.port, Arc::default(), Duration::ZERO, plain());
    let rerun = run(&config, &requests(6), |_, _| {}).unwrap();
    assert_all_answered(&rerun, 6);
    assert_eq!((rerun.cached, rerun.sent), (3, 3));
    let counts = healthy.log.counts();
    assert_eq!(counts.len(), 3);
    assert!(
        ["q1", "q2", "q4"].iter().all(|p| counts[*p] == 1),
        "{counts:?}"
    );
}

#[test]
fn api_key_never_leaks() {
    const KEY: &str = "sk-test-SECRET-4242";
    let dir = tempfile::tempdir().unwrap();
    let script = Arc::new(|p: &str, _| match p {
        "q1" => Action::Status {
            code: 401,
            retry_after: None,
            body: format!("{{\"error\":\"Incorrect API key provided: {KEY}\"}}"),
        },
        _ => Action::Answer,
    });
    let server = Server::start(Duration::ZERO, script);
    let mut config = config(&server);
    config.api_key = Some(KEY.into());
    config.cache_path = Some(dir.path().join("cache.sqlite"));
    let error = run(&config, &requests(3), |_, _| {}).unwrap_err();
    // The key was sent...
    assert!(server
        .log
        .received()
        .iter()
        .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {KEY}"))));
    // ...and appears nowhere else.
    for text in [
        error.to_string(),
        format!("{error:?}"),
        format!("{config:?}"),
    ] {
        assert!(!text.contains(KEY), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }
    let report = failed_report(Err(error));
    assert_eq!(
        (report.failures[0].kind, report.failures[0].status),
        (FailureKind::Client, Some(401))
    );
    let mut files = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        files += 1;
        assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()));
    }
    assert!(files >= 1);
}

/// `run_stream` pulls a body only when a worker is free (never more than twice the workers
/// ahead of the outcomes handed on), hands every outcome on once, and answers a rerun from the cache.
#[test]
fn run_stream_pulls_as_workers_free_and_keeps_nothing() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(Duration::from_millis(20), plain());
    let mut config = config(&server);
    config.cache_path = Some(dir.path().join("cache.sqlite"));
    let n = 40;
    let pulled = Arc::new(AtomicUsize::new(0));
    let bodies = {
        let pulled = pulled.clone();
        requests(n).into_iter().inspect(move |_| {
            pulled.fetch_add(1, Ordering::SeqCst);
        })
    };
    let (mut handed, mut ahead) = (vec![0; n], 0);
    let stats = unitxt_inference::run_stream(&config, bodies, |i, outcome| {
        let done: usize = handed.iter().sum();
        ahead = ahead.max(pulled.load(Ordering::SeqCst) - done);
        match outcome {
            unitxt_inference::Outcome::Answered(a) => assert_eq!(content(a), format!("echo: {}", prompt(i))),
            other => panic!("request {i}: {other:?}"),
        }
        handed[i] += 1;
    })
    .unwrap();
    assert_eq!(handed, vec![1; n]);
    // In flight, plus answers waiting for the calling thread (a bounded queue).
    assert!(ahead <= 2 * config.num_parallel_requests + 1, "{ahead} bodies pulled ahead of their outcomes");
    assert_eq!((stats.requests, stats.sent, stats.cached, stats.failed), (n, n as u64, 0, 0));
    assert_eq!(server.log.total(), n);
    let mut cached = 0;
    let again = unitxt_inference::run_stream(&config, requests(n).into_iter(), |_, outcome| {
        assert!(matches!(outcome, unitxt_inference::Outcome::Cached(_)));
        cached += 1;
    })
    .unwrap();
    assert_eq!((cached, again.cached, again.sent), (n, n, 0));
    assert_eq!(server.log.total(), n, "a rerun sends nothing");
}
