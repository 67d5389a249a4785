//! Chat templates rendered as `transformers` 5.23.0 renders them (`chat_template_cases.json`,
//! written by `oracle_gen.py` next to it), and the hub-cache lookup.

use super::*;

/// A directory of this test process's own under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("unitxt-rs-chat-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes a case's model files (as the generator wrote them into its hub cache) into `dir`.
fn write_model(dir: &Path, case: &serde_json::Value) {
    let mut cfg = case["tokenizer_config"].as_object().cloned().unwrap();
    cfg.insert("tokenizer_class".into(), "PreTrainedTokenizerFast".into());
    std::fs::write(dir.join("tokenizer_config.json"), serde_json::to_string(&cfg).unwrap()).unwrap();
    for (name, text) in case["files"].as_object().unwrap() {
        std::fs::write(dir.join(name), text.as_str().unwrap()).unwrap();
    }
}

#[test]
fn renders_as_transformers() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(include_str!("chat_template_cases.json")).unwrap();
    assert_eq!(cases.len(), 8);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let dir = temp_dir(name);
        write_model(&dir, case);
        let tpl = ChatTemplate::from_dir(&format!("t/{}", case["model"].as_str().unwrap()), &dir).unwrap();
        let messages: Vec<Value> = Value::from(case["messages"].clone()).as_array().unwrap().clone();
        let kwargs = Value::from(case["kwargs"].clone()).as_object().unwrap().clone();
        let got = tpl.render(&messages, &kwargs, true);
        match (case.get("expected"), case.get("error")) {
            (Some(exp), _) => assert_eq!(got.unwrap(), exp.as_str().unwrap(), "case {name}"),
            (None, Some(err)) => {
                let e = got.expect_err(name).to_string();
                assert!(e.contains(err.as_str().unwrap()) && e.contains("t/b"), "case {name}: {e}");
            }
            _ => panic!("case {name} has no expected outcome"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn strftime_now_is_the_local_date() {
    let dir = temp_dir("date");
    std::fs::write(dir.join("tokenizer_config.json"), r#"{"chat_template": "{{ strftime_now('%Y-%m-%d|%B %d, %Y|%d %b %Y') }}"}"#).unwrap();
    let tpl = ChatTemplate::from_dir("t/date", &dir).unwrap();
    let msg = crate::json!([{"role": "user", "content": "x"}]);
    let before = chrono::Local::now().format("%Y-%m-%d|%B %d, %Y|%d %b %Y").to_string();
    let got = tpl.render(msg.as_array().unwrap(), &Map::new(), true).unwrap();
    let after = chrono::Local::now().format("%Y-%m-%d|%B %d, %Y|%d %b %Y").to_string();
    assert!(got == before || got == after, "{got}");
    assert_eq!(got.len(), before.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_model_names_model_and_cache() {
    let dir = temp_dir("empty-hub");
    let e = model_snapshot(&dir, "org/absent-model").unwrap_err();
    let text = e.to_string();
    assert!(text.contains("org/absent-model") && text.contains(&dir.display().to_string()), "{text}");
    assert!(text.contains("models--org--absent-model"), "{text}");
    // A snapshot named by refs/main is found.
    let repo = dir.join("models--org--there");
    std::fs::create_dir_all(repo.join("snapshots/abc")).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), "abc\n").unwrap();
    assert_eq!(model_snapshot(&dir, "org/there").unwrap(), repo.join("snapshots/abc"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_template_and_bad_template_are_errors() {
    let dir = temp_dir("none");
    std::fs::write(dir.join("tokenizer_config.json"), r#"{"eos_token": "x"}"#).unwrap();
    let e = ChatTemplate::from_dir("t/none", &dir).unwrap_err().to_string();
    assert!(e.contains("has no chat template"), "{e}");
    std::fs::write(dir.join("tokenizer_config.json"), r#"{"chat_template": "{% for m in messages %}"}"#).unwrap();
    let e = ChatTemplate::from_dir("t/none", &dir).unwrap_err().to_string();
    assert!(e.contains("does not compile"), "{e}");
    std::fs::write(dir.join("tokenizer_config.json"), r#"{"chat_template": "{{ messages[0].content }}"}"#).unwrap();
    let tpl = ChatTemplate::from_dir("t/none", &dir).unwrap();
    let e = tpl.render(&[], &Map::new(), true).unwrap_err().to_string();
    assert!(e.contains("empty conversation"), "{e}");
    let kw = crate::json!({"tokenize": false});
    let e = tpl.render(crate::json!([{"role": "user", "content": "x"}]).as_array().unwrap(), kw.as_object().unwrap(), true).unwrap_err().to_string();
    assert!(e.contains("multiple values for keyword argument 'tokenize'"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
