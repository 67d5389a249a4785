//! Chat-template formats (`hf_system_format`, `granite_documents_format`) against Unitxt 1.26.10
//! with `transformers`' `apply_chat_template`.
//!
//! The test writes the models of `tests/chat_templates/models.json` (a chat template written for
//! the tests, special tokens, a minimal `tokenizer.json` so that `transformers` can load the
//! tokenizer) into a temporary Hugging Face hub cache in the layout `huggingface_hub` writes
//! (`models--org--name/refs/main`, `snapshots/<commit>/...`), links the datasets of the shared
//! hub cache next to them, and points `HF_HUB_CACHE` there. Then it runs `scripts/oracle.py` (Unitxt
//! with `transformers`, in the project's venv: `UNITXT_RS_ORACLE_PYTHON`, else `.venv/bin/python`)
//! on `tests/oracle_chat_recipes.tsv`, prepares every recipe with the engine and compares every
//! field of every instance. The oracle runs each time (its output holds today's date where a
//! template calls `strftime_now`). A recipe Unitxt refuses must be refused here too; a missing
//! Python, Unitxt or `transformers` is a failure, not a skip.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{root, run_prepare_case};
use libtest_mimic::{Arguments, Failed, Trial};
use unitxt::api::{prepare, PrepareOptions};

/// The commit name of every test model's snapshot.
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// A tokenizer `transformers` loads without network (a one-word vocabulary; only the chat
/// template matters here).
const TOKENIZER_JSON: &str = r#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,"model":{"type":"WordLevel","vocab":{"<unk>":0},"unk_token":"<unk>"}}"#;

/// Writes the test models into hub cache `hub` and links the datasets of `shared`.
fn write_hub(hub: &Path, shared: &Path) -> Result<(), String> {
    let dir = root().join("tests/chat_templates");
    let models: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("models.json")).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    for m in models.as_array().ok_or("models.json must be a list")? {
        let id = m["id"].as_str().ok_or("a model needs an id")?;
        let template = std::fs::read_to_string(dir.join(m["template"].as_str().ok_or("a model needs a template")?)).map_err(|e| e.to_string())?;
        let mut config = m["tokenizer_config"].as_object().cloned().unwrap_or_default();
        config.insert("tokenizer_class".into(), "PreTrainedTokenizerFast".into());
        config.insert("chat_template".into(), template.into());
        let repo = hub.join(format!("models--{}", id.replace('/', "--")));
        let snap = repo.join("snapshots").join(COMMIT);
        std::fs::create_dir_all(&snap).map_err(|e| e.to_string())?;
        std::fs::create_dir_all(repo.join("refs")).map_err(|e| e.to_string())?;
        std::fs::write(repo.join("refs/main"), COMMIT).map_err(|e| e.to_string())?;
        std::fs::write(snap.join("tokenizer_config.json"), serde_json::to_string_pretty(&config).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        std::fs::write(snap.join("tokenizer.json"), TOKENIZER_JSON).map_err(|e| e.to_string())?;
        std::fs::write(snap.join("config.json"), r#"{"model_type": "llama"}"#).map_err(|e| e.to_string())?;
    }
    for entry in std::fs::read_dir(shared).map_err(|e| format!("{}: {e}", shared.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with("datasets--") {
            let link = hub.join(&name);
            if !link.exists() {
                std::os::unix::fs::symlink(entry.path(), &link).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// A model that is not in the cache: building the format fails with an error naming the model
/// and the cache directory.
fn missing_model_is_a_clear_error(hub: &Path) -> Result<(), Failed> {
    let err = match prepare(
        "card=cards.sst2,template=templates.classification.multi_class.default,format=formats.models.llava,max_test_instances=2",
        &PrepareOptions::default(),
    ) {
        Ok(_) => return Err("a format whose model is not in the cache was built".into()),
        Err(e) => e.to_string(),
    };
    let hub = hub.display().to_string();
    if !err.contains("llava-hf/llava-1.5-7b-hf") || !err.contains(&hub) {
        return Err(format!("the error does not name the model and the cache {hub}: {err}").into());
    }
    Ok(())
}

/// Runs the oracle on every recipe of `recipes` into `golden_dir`, then compares each recipe;
/// the failures are reported together.
fn all_recipes_match(python: &Path, recipes: &Path, golden_dir: &Path) -> Result<(), Failed> {
    let status = Command::new(python).arg(root().join("scripts/oracle.py")).arg(recipes).arg(golden_dir).status();
    if !matches!(status, Ok(s) if s.success()) {
        return Err(format!("the oracle ({} scripts/oracle.py) failed to run; scripts/test.sh installs it", python.display()).into());
    }
    let list = std::fs::read_to_string(recipes).map_err(|e| format!("{}: {e}", recipes.display()))?;
    let mut failures = Vec::new();
    let mut n = 0;
    for line in list.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (split, recipe) = line.split_once('\t').ok_or("SPLIT<TAB>RECIPE")?;
        n += 1;
        if let Err(e) = run_prepare_case(split, recipe, golden_dir, true) {
            failures.push(format!("{recipe}: {}", e.message().unwrap_or("failed")));
        }
    }
    if n == 0 {
        return Err("no recipes".into());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} of {n} recipes differ from Unitxt:\n{}", failures.len(), failures.join("\n")).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let shared = std::env::var_os("HF_HUB_CACHE").map(PathBuf::from).unwrap_or_else(|| root().join("../shared/hf-hub"));
    // A hub cache of this process's own (nextest runs each test in a process of its own).
    let work = root().join("target/tmp").join(format!("oracle-chat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let hub = work.join("hub");
    let golden_dir = work.join("golden");
    std::fs::create_dir_all(&hub).expect("temporary hub cache");
    write_hub(&hub, &shared).expect("writing the test models into the temporary hub cache");
    std::env::set_var("HF_HUB_CACHE", &hub);
    std::env::set_var("HF_HUB_OFFLINE", "1");
    std::env::remove_var("UNITXT_HF_OFFLINE_DATASETS_PATH");
    if std::env::var_os("UNITXT_CATALOGS").is_none() {
        std::env::set_var("UNITXT_CATALOGS", root().join("tests/catalog"));
    }
    let recipes = root().join("tests/oracle_chat_recipes.tsv");
    let python = std::env::var_os("UNITXT_RS_ORACLE_PYTHON").map(PathBuf::from).unwrap_or_else(|| root().join(".venv/bin/python"));
    let h = hub.clone();
    let trials = vec![
        Trial::test("chat_template_recipes_match_unitxt", move || all_recipes_match(&python, &recipes, &golden_dir)),
        Trial::test("missing_model_is_a_clear_error", move || missing_model_is_a_clear_error(&h)),
    ];
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&work);
    conclusion.exit();
}
