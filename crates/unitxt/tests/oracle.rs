//! Golden comparison against Unitxt 1.26.10 on real data.
//!
//! For every `SPLIT<TAB>RECIPE` line of `tests/oracle_recipes.tsv`, `scripts/oracle.py` (run by
//! the project's test command before this test) wrote Unitxt's rows to
//! `target/oracle/<key>.jsonl` (or `<key>.error` when Unitxt refuses the recipe). This test
//! prepares the same recipe with the engine and fails on any difference: every field of every
//! instance, `task_data` byte for byte. A recipe Unitxt refuses must be refused here too.
//! A missing golden file is a failure, not a skip. Images in `media` are compared by their
//! place and file kind only (see `common::run_prepare_case`).
//!
//! For a wider sweep, `UNITXT_RS_ORACLE_RECIPES` names another recipes file and
//! `UNITXT_RS_ORACLE_DIR` the directory where `scripts/oracle.py` wrote its golden files.

mod common;

use std::path::PathBuf;

use common::{root, run_prepare_case};
use libtest_mimic::{Arguments, Failed, Trial};
use unitxt::api::{prepare, PrepareOptions};
use unitxt::Value;

/// The CoNLL-2003 card of tests/catalog turns IOB tags into spans and copies them with
/// `spans/*/...` paths: most sentences must come out with spans and a non-empty target (a
/// wildcard path read as missing would give every instance empty spans, on both sides of the
/// golden comparison if the card were wrong too).
fn conll2003_spans_are_not_empty() -> Result<(), Failed> {
    let recipe = "card=cards.conll2003,template=templates.span_labeling.extraction.title,loader_limit=100,max_test_instances=50";
    let rows = prepare(recipe, &PrepareOptions::default())
        .and_then(|mut ms| ms.take("test"))
        .and_then(unitxt::stream::collect)
        .map_err(|e| e.to_string())?;
    let mut with_spans = 0;
    for row in &rows {
        let td: Value = serde_json::from_str(row["task_data"].as_str().ok_or("task_data is not text")?).map_err(|e| e.to_string())?;
        let starts = td["spans_starts"].as_array().ok_or("no spans_starts")?;
        let labels = td["labels"].as_array().ok_or("no labels")?;
        if starts.len() != labels.len() {
            return Err(format!("{} span starts for {} labels", starts.len(), labels.len()).into());
        }
        if !starts.is_empty() {
            with_spans += 1;
            if row["target"].as_str().is_none_or(|t| t.is_empty() || t == "None") {
                return Err(format!("an instance with spans has target {}", row["target"]).into());
            }
        }
    }
    if rows.len() != 50 || with_spans < 40 {
        return Err(format!("{with_spans} of {} instances have spans", rows.len()).into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    if std::env::var_os("HF_HUB_CACHE").is_none() {
        std::env::set_var("HF_HUB_CACHE", root().join("../shared/hf-hub"));
    }
    std::env::set_var("HF_HUB_OFFLINE", "1");
    if std::env::var_os("UNITXT_CATALOGS").is_none() {
        std::env::set_var("UNITXT_CATALOGS", root().join("tests/catalog"));
    }
    let golden_dir = std::env::var_os("UNITXT_RS_ORACLE_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target/oracle"));
    // Another recipes file (with its golden dir in UNITXT_RS_ORACLE_DIR) for wider sweeps.
    let recipes = std::env::var_os("UNITXT_RS_ORACLE_RECIPES").map(PathBuf::from).unwrap_or_else(|| root().join("tests/oracle_recipes.tsv"));
    let list = std::fs::read_to_string(&recipes).unwrap_or_else(|e| panic!("{}: {e}", recipes.display()));
    let mut trials = Vec::new();
    for (n, line) in list.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (split, recipe) = line.split_once('\t').expect("SPLIT<TAB>RECIPE");
        let (split, recipe, dir) = (split.to_string(), recipe.to_string(), golden_dir.clone());
        let name = format!("line{:03}::{}::{}", n + 1, split, recipe.replace([',', '='], "_"));
        trials.push(Trial::test(name, move || run_prepare_case(&split, &recipe, &dir, false)));
    }
    trials.push(Trial::test("conll2003_spans_are_not_empty", conll2003_spans_are_not_empty));
    libtest_mimic::run(&args, trials).exit();
}
