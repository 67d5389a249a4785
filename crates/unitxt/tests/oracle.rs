//! Golden comparison against Unitxt 1.26.10 on real data.
//!
//! For every `SPLIT<TAB>RECIPE` line of `tests/oracle_recipes.tsv`, `scripts/oracle.py` (run by
//! the project's test command before this test) wrote Unitxt's rows to
//! `target/oracle/<key>.jsonl` (or `<key>.error` when Unitxt refuses the recipe). This test
//! prepares the same recipe with the engine and fails on any difference: every field of every
//! instance, `task_data` byte for byte. A recipe Unitxt refuses must be refused here too.
//! A missing golden file is a failure, not a skip. Images in `media` are compared by their
//! place and file kind only (see [`media_as_unitxt_gives_it`]).
//!
//! For a wider sweep, `UNITXT_RS_ORACLE_RECIPES` names another recipes file and
//! `UNITXT_RS_ORACLE_DIR` the directory where `scripts/oracle.py` wrote its golden files.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use sha1::{Digest, Sha1};
use unitxt::recipe::{prepare, PrepareOptions};
use unitxt::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn key(split: &str, recipe: &str) -> String {
    let h = Sha1::digest(format!("{split}\t{recipe}").as_bytes());
    h.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 600 {
        format!("{}…", s.chars().take(600).collect::<String>())
    } else {
        s
    }
}

fn first_string_diff(a: &str, b: &str) -> String {
    let i = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let ctx = |s: &str| s.chars().skip(i.saturating_sub(60)).take(160).collect::<String>();
    format!("first difference at char {i}:\n  ours:   {:?}\n  unitxt: {:?}", ctx(a), ctx(b))
}

/// Our `media` (`{"images": [{"image": <data URL>, "format": ...}], ...}`) in the form of
/// Unitxt's `load_dataset` rows as `scripts/oracle.py` writes them: `datasets`' Image feature
/// turns each image into `{"path": null, "bytes": <the file>}`, and the oracle writes the
/// bytes as `{"$bytes": <png | jpeg | other>}`. The pixels are not compared: an image Unitxt
/// draws (`serialize_table_as_image`, with matplotlib) cannot be reproduced byte for byte; the
/// images' own tests check them.
fn media_as_unitxt_gives_it(media: &Value) -> Value {
    let mut media = media.clone();
    if let Some(images) = media.get_mut("images").and_then(|i| i.as_array_mut()) {
        for img in images.iter_mut() {
            let kind = match img.get("image").and_then(|u| u.as_str()) {
                Some(u) if u.starts_with("data:image/png;") => "png",
                Some(u) if u.starts_with("data:image/jpeg;") => "jpeg",
                _ => "other",
            };
            *img = serde_json::from_str(&format!(r#"{{"path": null, "bytes": {{"$bytes": "{kind}"}}}}"#)).expect("valid JSON");
        }
    }
    media
}

fn run_case(split: &str, recipe: &str, golden_dir: &Path) -> Result<(), Failed> {
    let k = key(split, recipe);
    let golden = golden_dir.join(format!("{k}.jsonl"));
    let error = golden_dir.join(format!("{k}.error"));
    let ours = prepare(recipe, &PrepareOptions::default()).and_then(|mut ms| ms.take(split)).and_then(unitxt::stream::collect);
    if error.exists() {
        return match ours {
            Err(_) => Ok(()),
            Ok(rows) => Err(format!(
                "Unitxt refuses this recipe ({}), but we produced {} instances",
                std::fs::read_to_string(&error).unwrap_or_default().lines().last().unwrap_or(""),
                rows.len()
            )
            .into()),
        };
    }
    let text = std::fs::read_to_string(&golden).map_err(|e| {
        format!("golden file {} is missing ({e}); run the test command from the README, which runs scripts/oracle.py first", golden.display())
    })?;
    let expected: Vec<Value> = text.lines().map(serde_json::from_str).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    let ours = ours.map_err(|e| format!("we failed where Unitxt succeeded: {e}"))?;
    if ours.len() != expected.len() {
        return Err(format!("{} instances, Unitxt has {}", ours.len(), expected.len()).into());
    }
    for (i, (o, e)) in ours.iter().zip(&expected).enumerate() {
        let e = e.as_object().ok_or("golden row is not an object")?;
        let ok: Vec<&str> = o.keys().map(|k| k.as_str()).collect();
        let mut ek: Vec<&str> = e.keys().map(|k| k.as_str()).collect();
        let mut ok_sorted = ok.clone();
        ok_sorted.sort();
        ek.sort();
        if ok_sorted != ek {
            return Err(format!("instance {i}: fields {ok:?}, Unitxt has {ek:?}").into());
        }
        for (f, ev) in e {
            let media;
            let ov = if f == "media" {
                media = media_as_unitxt_gives_it(&o[f]);
                &media
            } else {
                &o[f]
            };
            if ov != ev {
                let detail = match (ov, ev) {
                    (Value::String(a), Value::String(b)) => first_string_diff(a, b),
                    _ => format!("\n  ours:   {}\n  unitxt: {}", show(ov), show(ev)),
                };
                return Err(format!("instance {i}, field {f:?} differs: {detail}").into());
            }
        }
    }
    Ok(())
}

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
        trials.push(Trial::test(name, move || run_case(&split, &recipe, &dir)));
    }
    trials.push(Trial::test("conll2003_spans_are_not_empty", conll2003_spans_are_not_empty));
    libtest_mimic::run(&args, trials).exit();
}
