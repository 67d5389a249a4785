//! The explorer's JSON API (`unitxt_explore::router`, driven in-process with `tower`'s
//! `oneshot`, no network port) against the `unitxt-rs` binary: `/api/prepare` gives exactly the
//! instances `unitxt-rs prepare` writes for oracle recipes, `/api/evaluate` exactly what
//! `unitxt-rs evaluate` writes (with an LLM judge too, on a scripted local server); bad
//! requests get a 4xx JSON error; names that try to leave the catalog and oversized bodies are
//! refused.
//!
//! Needs the installed Unitxt catalog and the shared hub cache (`scripts/test.sh` sets both up).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn test_catalog() -> PathBuf {
    root().join("tests/explorer/catalog")
}

fn app_with(catalogs: Vec<PathBuf>) -> axum::Router {
    unitxt_explore::router(unitxt_explore::AppState::new(unitxt_explore::Config { catalogs, ..Default::default() }))
}

fn app() -> axum::Router {
    app_with(vec![test_catalog()])
}

/// Runs one request through the router: the status and the body (parsed as JSON when it is).
async fn call(app: axum::Router, method: &str, uri: &str, body: Option<Vec<u8>>) -> (StatusCode, Value, Vec<u8>) {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req.body(body.map(Body::from).unwrap_or_else(Body::empty)).unwrap();
    let resp = app.oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes().to_vec();
    let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, v, bytes)
}

async fn post(app: axum::Router, uri: &str, body: Value) -> (StatusCode, Value) {
    let (s, v, _) = call(app, "POST", uri, Some(serde_json::to_vec(&body).unwrap())).await;
    (s, v)
}

/// `unitxt-rs prepare RECIPE --split SPLIT` (stdout): exit success and its lines.
fn cli_prepare(recipe: &str, split: &str) -> Result<Vec<String>, String> {
    let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
        .args(["prepare", recipe, "--split", split, "--catalog"])
        .arg(test_catalog())
        .current_dir(root())
        .output()
        .expect("run unitxt-rs");
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).to_string());
    }
    Ok(String::from_utf8(o.stdout).unwrap().lines().map(str::to_string).collect())
}

/// The first `n` recipes of `tests/oracle_recipes.tsv` (split, recipe).
fn oracle_recipes(n: usize) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("tests/oracle_recipes.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(s, r)| (s.to_string(), r.to_string())))
        .take(n)
        .collect()
}

/// Every field of every instance of `/api/prepare` equals the CLI's line (parsed, fields in
/// the same order), the `total` is the CLI's line count, and the response holds each line's
/// bytes as the CLI wrote them; a later page is the same slice of the CLI's lines. A recipe the
/// CLI refuses gets a 4xx with the CLI's message. Every recipe of the oracle list.
#[tokio::test(flavor = "multi_thread")]
async fn prepare_equals_the_cli_on_oracle_recipes() {
    let recipes = oracle_recipes(usize::MAX);
    assert!(recipes.len() >= 50);
    let mut compared = 0;
    // One server for all requests, as the page uses it.
    let app = app();
    for (split, recipe) in &recipes {
        let cli = cli_prepare(recipe, split);
        let (status, v, raw) = call(
            app.clone(),
            "POST",
            "/api/prepare",
            Some(serde_json::to_vec(&json!({"recipe": recipe, "split": split, "offset": 0, "limit": 1000})).unwrap()),
        )
        .await;
        match cli {
            Ok(lines) => {
                assert_eq!(status, StatusCode::OK, "{recipe}: {v}");
                assert_eq!(v["total"], json!(lines.len()), "{recipe}");
                let inst = v["instances"].as_array().unwrap();
                assert_eq!(inst.len(), lines.len().min(1000), "{recipe}");
                let raw = String::from_utf8(raw).unwrap();
                for (i, (got, line)) in inst.iter().zip(&lines).enumerate() {
                    let want: Value = serde_json::from_str(line).unwrap();
                    assert_eq!(got, &want, "{recipe}: instance {i}");
                    assert_eq!(
                        got.as_object().unwrap().keys().collect::<Vec<_>>(),
                        want.as_object().unwrap().keys().collect::<Vec<_>>()
                    );
                    assert!(raw.contains(line.as_str()), "{recipe}: instance {i} is not byte for byte the CLI's line");
                }
                // A later page (from the kept split).
                let (s2, page) = post(app.clone(), "/api/prepare", json!({"recipe": recipe, "split": split, "offset": 3, "limit": 2})).await;
                assert_eq!(s2, StatusCode::OK);
                let want: Vec<Value> = lines.iter().skip(3).take(2).map(|l| serde_json::from_str(l).unwrap()).collect();
                assert_eq!(page["instances"], Value::Array(want), "{recipe}: page at offset 3");
                compared += 1;
            }
            Err(stderr) => {
                assert!(status.is_client_error(), "{recipe}: CLI failed ({stderr}) but the API gave {status}");
                let msg = v["error"].as_str().unwrap();
                assert!(stderr.contains(msg.lines().next().unwrap()), "{recipe}: API error {msg:?} is not the CLI's {stderr:?}");
            }
        }
    }
    assert!(compared >= 40, "only {compared} recipes prepared");
}

/// `/api/evaluate` returns what `unitxt-rs evaluate --output -` writes (global scores with
/// confidence intervals, instance scores), for predictions given as a list or as JSON Lines text.
#[tokio::test(flavor = "multi_thread")]
async fn evaluate_equals_the_cli() {
    let recipe = "card=cards.sst2,template=templates.classification.multi_class.title,max_test_instances=40";
    let lines = cli_prepare(recipe, "test").unwrap();
    let preds: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let v: Value = serde_json::from_str(l).unwrap();
            if i % 3 == 0 { "positive".to_string() } else { v["target"].as_str().unwrap().to_string() }
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("explore-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pf = dir.join("preds.json");
    std::fs::write(&pf, serde_json::to_string(&preds).unwrap()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
        .args(["evaluate", recipe, "--split", "test", "--output", "-", "--predictions"])
        .arg(&pf)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(cli["global"]["score_ci_low"].is_number());

    let (s, api) = post(app(), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": preds})).await;
    assert_eq!(s, StatusCode::OK, "{api}");
    assert_eq!(api, cli);
    let jsonl: String = preds.iter().map(|p| format!("{{\"prediction\": {}}}\n", json!(p))).collect();
    let (s, api2) = post(app(), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": jsonl})).await;
    assert_eq!(s, StatusCode::OK, "{api2}");
    assert_eq!(api2, cli);
    // The first 10 only (as the page scores the instances it has predictions for) equals the
    // CLI on a data file of those 10 instances.
    let data = dir.join("first10.jsonl");
    std::fs::write(&data, lines[..10].join("\n") + "\n").unwrap();
    std::fs::write(&pf, serde_json::to_string(&preds[..10]).unwrap()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
        .args(["evaluate", "--output", "-", "--data"])
        .arg(&data)
        .arg("--predictions")
        .arg(&pf)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cli10: Value = serde_json::from_slice(&o.stdout).unwrap();
    let (s, api10) = post(app(), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": &preds[..10], "limit": 10, "processed": true})).await;
    assert_eq!(s, StatusCode::OK, "{api10}");
    assert_eq!(api10["global"], cli10["global"]);
    assert_eq!(api10["instances"], cli10["instances"]);
    let first: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(api10["processed"][0]["references"], json!([first["target"]]));
    // Too few predictions for the whole split: the engine's error, 4xx.
    let (s, e) = post(app(), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": ["positive"]})).await;
    assert!(s.is_client_error(), "{s}");
    assert!(e["error"].as_str().unwrap().contains("prediction"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Malformed or impossible requests get a 4xx with a JSON message (and a location when the
/// engine knows one); the server answers the next request normally.
#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_4xx_json_errors() {
    let (s, _, body) = call(app(), "POST", "/api/prepare", Some(b"{not json".to_vec())).await;
    assert!(s.is_client_error(), "{s}");
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert!(v["error"].as_str().unwrap().len() > 5);

    let (s, v) = post(app(), "/api/prepare", json!({"split": "test"})).await;
    assert!(s.is_client_error(), "{s}");
    assert!(v["error"].as_str().unwrap().contains("recipe"), "{v}");

    let (s, v) = post(app(), "/api/prepare", json!({"recipe": "card=cards.sst2,template=templates.classification.multi_class.title", "limit": 100000})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(v["error"].as_str().unwrap().contains("limit"), "{v}");

    let (s, v) = post(app(), "/api/prepare", json!({"recipe": "card=cards.sst_two,template=templates.classification.multi_class.title"})).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(v["error"].as_str().unwrap().contains("cards.sst_two"), "{v}");
    assert!(v["error"].as_str().unwrap().contains("did you mean"), "{v}");

    // A template whose fields the task does not have: located in the template.
    let (s, v) = post(app(), "/api/prepare", json!({"recipe": "card=cards.sst2,template=templates.qa.open.title", "split": "test"})).await;
    assert!(s.is_client_error(), "{s} {v}");
    assert_eq!((&v["location"]["split"], &v["location"]["instance"]), (&json!("test"), &json!(0)), "{v}");
    assert!(v["error"].as_str().unwrap().contains("templates.qa.open.title"), "{v}");

    let (s, v) = post(app(), "/api/prepare", json!({"recipe": "card=cards.sst2,template=templates.classification.multi_class.title", "split": "nosuchsplit"})).await;
    assert!(s.is_client_error(), "{s}");
    assert!(v["error"].as_str().unwrap().contains("nosuchsplit"), "{v}");

    let (s, _, _) = call(app(), "GET", "/api/artifact/cards.no_such_card_here", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _, _) = call(app(), "GET", "/no/such/page", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, v) = post(app(), "/api/evaluate", json!({"recipe": "card=cards.sst2", "predictions": 3})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
}

/// Artifact names resolve only inside the configured catalogs: path separators, `..`, absolute
/// paths and a symbolic link that points out of its catalog are refused.
#[tokio::test(flavor = "multi_thread")]
async fn names_that_leave_the_catalog_are_refused() {
    for uri in [
        "/api/artifact/../../../etc/passwd",
        "/api/artifact/..%2F..%2Fetc%2Fpasswd",
        "/api/artifact/%2Fetc%2Fpasswd",
        "/api/artifact/cards..sst2",
        "/api/artifact/cards.sst2%00",
    ] {
        let (s, v, _) = call(app(), "GET", uri, None).await;
        assert!(s.is_client_error(), "{uri}: {s}");
        assert!(v["error"].is_string(), "{uri}: {v}");
    }
    // A catalog with a link to a file outside it.
    let dir = std::env::temp_dir().join(format!("explore-link-{}", std::process::id()));
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    std::fs::write(dir.join("secret.json"), "{\"__type__\": \"secret\"}").unwrap();
    std::os::unix::fs::symlink(dir.join("secret.json"), cat.join("cards/escape.json")).unwrap();
    let (s, v, _) = call(app_with(vec![cat.clone()]), "GET", "/api/artifact/cards.escape", None).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert!(!v.to_string().contains("secret\""), "{v}");
    let (_, list, _) = call(app_with(vec![cat.clone()]), "GET", "/api/catalog?prefix=cards.escape", None).await;
    assert_eq!(list, json!([]));
    // A recipe that names it, directly or through another artifact, is refused before it runs.
    std::fs::create_dir_all(cat.join("recipes")).unwrap();
    std::fs::write(cat.join("recipes/via_escape.json"), r#"{"__type__": "dataset_recipe", "card": "cards.escape", "template": "templates.x"}"#).unwrap();
    for recipe in ["card=cards.escape,template=templates.classification.multi_class.title", "recipes.via_escape"] {
        let (s, v) = post(app_with(vec![cat.clone()]), "/api/prepare", json!({"recipe": recipe})).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{recipe}: {v}");
        assert!(v["error"].as_str().unwrap().contains("cards.escape resolves outside"), "{v}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    // An artifact of the test catalog is served.
    let (s, v, _) = call(app(), "GET", "/api/artifact/cards.explorer_xss", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["refs"], json!(["tasks.classification.multi_class", "templates.explorer_xss"]));
}

/// Bodies over the limit get 413 and the server keeps answering.
#[tokio::test(flavor = "multi_thread")]
async fn oversized_bodies_are_refused() {
    let big = vec![b' '; unitxt_explore::MAX_BODY_BYTES + 10];
    let (s, _, _) = call(app(), "POST", "/api/evaluate", Some(big)).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    let a = Arc::new(app());
    let (s, _, _) = call((*a).clone(), "GET", "/api/catalog?q=sst2&prefix=cards.&limit=3", None).await;
    assert_eq!(s, StatusCode::OK);
}

/// Catalog search is ranked and typo-tolerant; an artifact lists what refers to it; tasks
/// count their cards; a card's templates come first; the page and its assets are served.
#[tokio::test(flavor = "multi_thread")]
async fn catalog_browsing() {
    let (_, v, _) = call(app(), "GET", "/api/catalog?prefix=cards.&q=sst2", None).await;
    assert_eq!(v[0], json!({"name": "cards.sst2", "type": "task_card"}));
    let (_, v, _) = call(app(), "GET", "/api/catalog?prefix=cards.&q=sst3", None).await;
    assert!(v.as_array().unwrap().iter().take(5).any(|e| e["name"] == "cards.sst2"), "{v}");
    let (_, v, _) = call(app(), "GET", "/api/catalog?q=mmlu%20anatmy&kind=cards", None).await;
    assert_eq!(v[0]["name"], "cards.mmlu.anatomy", "{v}");

    let (_, v, _) = call(app(), "GET", "/api/artifact/templates.classification.multi_class.title", None).await;
    assert!(v["used_by"].as_array().unwrap().iter().any(|u| u == "templates.classification.multi_class.all"), "{v}");

    let (_, tasks, _) = call(app(), "GET", "/api/tasks", None).await;
    let mc = tasks.as_array().unwrap().iter().find(|t| t["name"] == "tasks.classification.multi_class").unwrap();
    assert!(mc["cards"].as_u64().unwrap() > 50, "{mc}");
    assert_eq!(mc["group"], "classification");
    assert_eq!(mc["augmentable"], true);

    let (_, cards, _) = call(app(), "GET", "/api/cards?task=tasks.classification.multi_class", None).await;
    let sst2 = cards.as_array().unwrap().iter().find(|c| c["name"] == "cards.sst2").unwrap();
    assert_eq!(sst2["local"], true);

    let (_, t, _) = call(app(), "GET", "/api/templates?card=cards.sst2", None).await;
    assert!(t["card"].as_array().unwrap().iter().any(|x| x == "templates.classification.multi_class.title"), "{t}");
    let (_, t, _) = call(app(), "GET", "/api/templates?card=cards.explorer_xss", None).await;
    assert_eq!(t["card"], json!(["templates.explorer_xss"]));
    assert!(t["task"].as_array().unwrap().iter().any(|x| x == "templates.classification.multi_class.title"), "{t}");

    let (s, _, page) = call(app(), "GET", "/", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8(page).unwrap().contains("<script src=\"/app.js\">"));

    let (_, d) = post(app(), "/api/diff", json!({"a": "Answer the question.\nQ: x", "b": "Answer this question.\nQ: x"})).await;
    assert_eq!(
        d,
        json!([{"op": "equal", "text": "Answer "}, {"op": "delete", "text": "the"}, {"op": "insert", "text": "this"}, {"op": "equal", "text": " question.\nQ: x"}])
    );
}

/// `/api/infer` sends each instance to an OpenAI-compatible endpoint (here a local one written
/// for the test: it records the requests and answers "positive"), chat sources as their
/// messages and text sources as one user message, and scores the answers as `/api/evaluate`
/// does. Without an endpoint it says so.
#[tokio::test(flavor = "multi_thread")]
async fn infer_runs_instances_through_an_openai_compatible_endpoint() {
    use std::sync::Mutex;
    let seen: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(Vec::new()));
    let rec = seen.clone();
    let fake = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |headers: axum::http::HeaderMap, axum::Json(body): axum::Json<Value>| {
            let rec = rec.clone();
            async move {
                assert_eq!(headers.get("authorization").unwrap(), "Bearer test-key");
                rec.lock().unwrap().push(body);
                axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": "positive"}}]}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, fake).await.unwrap() });
    let config = unitxt_explore::Config {
        catalogs: vec![test_catalog()],
        model_url: Some(format!("http://{addr}/v1")),
        model: Some("fake-model".into()),
        api_key: Some("test-key".into()),
        ..Default::default()
    };
    let app = unitxt_explore::router(unitxt_explore::AppState::new(config));

    let recipe = "card=cards.sst2,template=templates.classification.multi_class.title,format=formats.chat_api,max_test_instances=20";
    let (s, r) = post(app.clone(), "/api/infer", json!({"recipe": recipe, "split": "test", "offset": 2, "limit": 4})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["predictions"], json!(["positive", "positive", "positive", "positive"]));
    let lines = cli_prepare(recipe, "test").unwrap();
    let sent = seen.lock().unwrap().clone();
    assert_eq!(sent.len(), 4);
    // Sent in parallel (as `unitxt-rs infer` sends them): compare as a multiset.
    let mut got: Vec<String> = sent.iter().map(|b| b["messages"].to_string()).collect();
    let mut want: Vec<String> = (2..6).map(|k| serde_json::from_str::<Value>(&lines[k]).unwrap()["source"].to_string()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "chat sources sent as their messages");
    assert!(sent.iter().all(|b| b["model"] == "fake-model" && b["temperature"] == 0 && b.get("logprobs").is_none()), "{sent:?}");
    let (_, ev) = post(app.clone(), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": r["predictions"], "offset": 2, "limit": 4, "processed": true})).await;
    assert_eq!(r["scores"], ev);
    assert_eq!(r["scores"]["global"]["num_of_instances"], 4);

    // A text source goes as one user message.
    let text_recipe = "card=cards.sst2,template=templates.classification.multi_class.title,max_test_instances=20";
    let (s, _) = post(app, "/api/infer", json!({"recipe": text_recipe, "split": "test", "offset": 0, "limit": 1})).await;
    assert_eq!(s, StatusCode::OK);
    let first: Value = serde_json::from_str(&cli_prepare(text_recipe, "test").unwrap()[0]).unwrap();
    assert_eq!(seen.lock().unwrap()[4]["messages"], json!([{"role": "user", "content": first["source"]}]));

    let (s, e) = post(app_with(vec![test_catalog()]), "/api/infer", json!({"recipe": recipe})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(e["error"].as_str().unwrap().contains("no inference engine"), "{e}");
}

/// On every recipe of `tests/oracle_eval_recipes.tsv`, with predictions derived from the
/// instances (the target, or the next instance's target for every third one), `/api/evaluate`
/// returns exactly what `unitxt-rs evaluate --output -` writes.
#[tokio::test(flavor = "multi_thread")]
async fn evaluate_equals_the_cli_on_the_oracle_eval_recipes() {
    let text = std::fs::read_to_string(root().join("tests/oracle_eval_recipes.tsv")).unwrap();
    let recipes: Vec<(&str, &str)> = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).filter_map(|l| l.split_once('\t')).collect();
    assert!(recipes.len() >= 10);
    let app = app();
    let dir = std::env::temp_dir().join(format!("explore-eval-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (split, recipe) in recipes {
        let rows: Vec<Value> = cli_prepare(recipe, split).unwrap().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        let preds: Vec<Value> = (0..rows.len()).map(|i| if i % 3 == 2 { rows[(i + 1) % rows.len()]["target"].clone() } else { rows[i]["target"].clone() }).collect();
        let pf = dir.join("p.json");
        std::fs::write(&pf, serde_json::to_string(&preds).unwrap()).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
            .args(["evaluate", recipe, "--split", split, "--output", "-", "--catalog"])
            .arg(test_catalog())
            .arg("--predictions")
            .arg(&pf)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{recipe}: {}", String::from_utf8_lossy(&o.stderr));
        let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
        let (s, api) = post(app.clone(), "/api/evaluate", json!({"recipe": recipe, "split": split, "predictions": preds})).await;
        assert_eq!(s, StatusCode::OK, "{recipe}: {api}");
        assert_eq!(api, cli, "{recipe}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One raw HTTP/1.1 request to `addr` with the given `Host` and optional `Origin`: the status
/// code of the answer.
fn raw_status(addr: std::net::SocketAddr, method: &str, path: &str, host: &str, origin: Option<&str>) -> u16 {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let body = r#"{"a": "x", "b": "y"}"#;
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    let req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A served explorer answers only requests addressed to it: a `Host` naming another site
/// (DNS rebinding) gets 403, and so does a POST from another origin; its own address,
/// `localhost`, and a POST without `Origin` (a script, curl) or from its own page pass.
#[test]
fn served_explorer_refuses_other_hosts_and_cross_origin_posts() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let config = unitxt_explore::Config { catalogs: vec![test_catalog()], ..Default::default() };
        unitxt_explore::serve_blocking(config, "127.0.0.1", 0, |addr| tx.send(addr).unwrap()).unwrap();
    });
    let addr = rx.recv().unwrap();
    let port = addr.port();
    let own = format!("127.0.0.1:{port}");
    assert_eq!(raw_status(addr, "GET", "/api/options", &own, None), 200);
    assert_eq!(raw_status(addr, "GET", "/api/options", &format!("localhost:{port}"), None), 200);
    assert_eq!(raw_status(addr, "GET", "/api/options", &format!("evil.example:{port}"), None), 403);
    assert_eq!(raw_status(addr, "GET", "/", "evil.example", None), 403);
    assert_eq!(raw_status(addr, "POST", "/api/diff", &own, None), 200);
    assert_eq!(raw_status(addr, "POST", "/api/diff", &own, Some(&format!("http://{own}"))), 200);
    assert_eq!(raw_status(addr, "POST", "/api/diff", &own, Some("http://evil.example")), 403);
    assert_eq!(raw_status(addr, "POST", "/api/diff", &own, Some("null")), 403);
}

/// The answer of the judge test's server: for an option selection, the first option the prompt
/// lists after the words "I pick"; else an assessment text (with markup, which the page must
/// show as text) that depends on the body.
fn judge_answer(body: &Value) -> String {
    let last = body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("");
    if last.contains("The selected criteria option is:") {
        let option = last.lines().filter_map(|l| l.strip_prefix("- \"")).filter_map(|l| l.split('"').next()).next().unwrap_or("");
        return format!("I pick {option}");
    }
    let h = common::canonical(body).bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
    format!("Assessment {}: <b>fine</b>.", h % 997)
}

/// `/api/evaluate` with a direct LLM judge among the metrics (its engine an OpenAI engine on a
/// scripted local server) calls the judge's endpoint as `unitxt-rs evaluate` does and returns
/// exactly what the CLI writes: the score, the selected option, the assessments and the
/// prompts of each instance. The assessment shown is the server's answer to the prompt shown.
/// A judge whose endpoint refuses every request is a 502 naming the judge.
#[tokio::test(flavor = "multi_thread")]
async fn evaluate_with_an_llm_judge_equals_the_cli() {
    let server = common::Server::start(judge_answer);
    let dir = std::env::temp_dir().join(format!("explore-judge-{}", std::process::id()));
    let catalog = dir.join("catalog");
    let put = |rel: &str, v: &Value| {
        let p = catalog.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    };
    let engine = |port: u16| json!({"__type__": "open_ai_inference_engine", "model_name": "judge-model",
        "base_url": format!("http://127.0.0.1:{port}/v1"), "credentials": {"api_key": "k"}, "temperature": 0, "use_cache": false});
    put("explore_judge/judge.json", &json!({"__type__": "llm_judge_direct", "inference_engine": engine(server.port),
        "criteria": "metrics.llm_as_judge.direct.criteria.answer_relevance", "context_fields": ["question"]}));
    let rows = json!([{"question": "What is 2+2?", "answer": "4"}, {"question": "What is the capital of France?", "answer": "Paris"}]);
    let card = |metric: &str| json!({"__type__": "task_card", "loader": {"__type__": "load_from_dictionary", "data": {"test": rows}},
        "task": {"__type__": "task", "input_fields": {"question": "str"}, "reference_fields": {"answer": "str"}, "prediction_type": "str", "metrics": [metric]},
        "templates": [{"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}]});
    put("cards/explore_judge.json", &card("explore_judge.judge"));
    let preds = json!(["four", "Lyon <img src=x>"]);
    let pf = dir.join("preds.json");
    std::fs::write(&pf, preds.to_string()).unwrap();
    let recipe = "card=cards.explore_judge,template_card_index=0";
    let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
        .args(["evaluate", recipe, "--split", "test", "--output", "-", "--catalog"])
        .arg(&catalog)
        .arg("--predictions")
        .arg(&pf)
        .current_dir(root())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cli_bodies = common::sorted_canonical(&server.take());
    // Assessment and option selection, each again with the options reversed.
    assert_eq!(cli_bodies.len(), 8);

    let app = app_with(vec![test_catalog(), catalog.clone()]);
    let (s, api) = post(app.clone(), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": preds})).await;
    assert_eq!(s, StatusCode::OK, "{api}");
    assert_eq!(common::sorted_canonical(&server.take()), cli_bodies, "the same requests as the CLI's");
    assert_eq!(api, cli);
    let inst = &api["instances"][1];
    assert_eq!(inst["answer_relevance_selected_option"], json!("Excellent"), "{inst}");
    // With the options reversed, the first one listed is the last.
    assert_eq!(inst["answer_relevance_positional_bias_selected_option"], json!("Bad"));
    assert_eq!(inst["answer_relevance_positional_bias"], json!(true));
    assert_eq!(inst["answer_relevance"], json!(1.0));
    let prompt = &inst["answer_relevance_prompts"]["assessment"];
    assert!(prompt.as_array().unwrap().iter().any(|m| m["content"].as_str().unwrap().contains("Lyon <img src=x>")), "{prompt}");
    let body = json!({"messages": prompt});
    let sent: Vec<Value> = cli_bodies.iter().map(|b| serde_json::from_str(b).unwrap()).filter(|b: &Value| b["messages"] == body["messages"]).collect();
    assert_eq!(sent.len(), 1, "the assessment prompt shown is a request sent");
    assert_eq!(inst["answer_relevance_assessment"], json!(judge_answer(&sent[0])));
    assert_eq!(inst["answer_relevance_option_selection_completion"], json!("I pick Excellent"));

    // A judge whose endpoint refuses every request: 502, naming the judge's stage.
    let refusing = common::Server::failing(judge_answer, "\"messages\"");
    put("explore_judge/judge.json", &json!({"__type__": "llm_judge_direct", "inference_engine": engine(refusing.port),
        "criteria": "metrics.llm_as_judge.direct.criteria.answer_relevance", "context_fields": ["question"]}));
    let (s, e) = post(app_with(vec![test_catalog(), catalog]), "/api/evaluate", json!({"recipe": recipe, "split": "test", "predictions": preds})).await;
    assert_eq!(s, StatusCode::BAD_GATEWAY, "{e}");
    assert!(e["error"].as_str().unwrap().contains("assessment request"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
