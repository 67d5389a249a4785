//! End-to-end tests of the `unitxt-rs` binary on the example catalog shipped in `examples/`:
//! the README's first command, and bad input giving a clear error, a non-zero exit, and no
//! output file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
        .args(args)
        .current_dir(root())
        .env("UNITXT_RS_CATALOG", root().join("target/no-installed-catalog"))
        .env_remove("UNITXT_CATALOGS")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .expect("run unitxt-rs")
}

const EXAMPLE: &str = "card=cards.example.capitals,template=templates.example.capital,num_demos=2,demos_pool_size=4";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn readme_example_prepares_the_test_split() {
    let o = run(&["prepare", EXAMPLE, "--catalog", "examples/catalog", "--split", "test"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 6);
    let first = &rows[0];
    assert_eq!(first["target"], "Rome");
    assert_eq!(first["references"], serde_json::json!(["Rome"]));
    assert_eq!(first["postprocessors"], serde_json::json!(["processors.take_first_non_empty_line"]));
    // Unitxt's default system_format: instruction, then each demo, then the instance.
    assert_eq!(
        first["source"],
        "Answer with the name of the city only.\nWhat is the capital of France (Europe)?\nCapital: Paris\n\n\
         What is the capital of Kenya (Africa)?\nCapital: Nairobi\n\nWhat is the capital of Italy (Europe)?\nCapital: "
    );
    let td: serde_json::Value = serde_json::from_str(first["task_data"].as_str().unwrap()).unwrap();
    assert_eq!(td["metadata"]["num_demos"], 2);
    assert_eq!(td["demos"].as_array().unwrap().len(), 2);
}

fn assert_fails(args: &[&str], needles: &[&str]) {
    let o = run(args);
    assert!(!o.status.success(), "expected failure for {args:?}");
    let e = stderr(&o);
    for n in needles {
        assert!(e.contains(n), "stderr lacks {n:?}:\n{e}");
    }
}

#[test]
fn unknown_artifact_name_suggests_the_nearest() {
    assert_fails(
        &["prepare", "card=cards.example.capitols,template=templates.example.capital", "--catalog", "examples/catalog", "--split", "test"],
        &["\"cards.example.capitols\" is not in the catalog", "did you mean `cards.example.capitals`"],
    );
}

#[test]
fn malformed_recipe_is_rejected() {
    assert_fails(&["prepare", "card=cards.example.capitals,template", "--catalog", "examples/catalog"], &["recipe"]);
    assert_fails(&["prepare", "card=cards.example.capitals,tempalte=x", "--catalog", "examples/catalog"], &["\"tempalte\" is not a recipe argument", "did you mean template"]);
}

#[test]
fn missing_split_names_the_available_ones() {
    assert_fails(
        &["prepare", EXAMPLE, "--catalog", "examples/catalog", "--split", "validation"],
        &["split \"validation\" does not exist", "\"test\""],
    );
}

#[test]
fn too_many_demos_for_the_pool() {
    assert_fails(
        &["prepare", "card=cards.example.capitals,template=templates.example.capital,num_demos=5,demos_pool_size=4", "--catalog", "examples/catalog", "--split", "test"],
        &["num_demos (got: 5) should not exceed demos_pool_size - 1"],
    );
}

#[test]
fn unknown_type_and_bad_field_type_are_located() {
    let dir = tempdir();
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    let card = serde_json::json!({
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"x": "a", "y": 1}, {"x": "b", "y": "oops"}]}},
        "task": {"__type__": "task", "input_fields": {"x": "str"}, "reference_fields": {"y": "int"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{x}", "output_format": "{y}"}]
    });
    std::fs::write(cat.join("cards/mine.json"), card.to_string()).unwrap();
    // The second instance fails after the first was written: no output file may remain.
    let out = dir.join("out.jsonl");
    let o = run(&["prepare", "card=cards.mine", "--catalog", cat.to_str().unwrap(), "--split", "test", "--output", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("value \"oops\" of field \"y\" is not of the required type int"), "{e}");
    assert!(e.contains("split \"test\", instance 1"), "{e}");
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "temporary files left behind");

    let bad = serde_json::json!({"__type__": "task_card", "loader": {"__type__": "load_hf_nonexistent"}, "task": "tasks.x"});
    std::fs::write(cat.join("cards/bad.json"), bad.to_string()).unwrap();
    let o = run(&["prepare", "card=cards.bad", "--catalog", cat.to_str().unwrap(), "--split", "test"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown artifact type `__type__: load_hf_nonexistent`"), "{}", stderr(&o));
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("unitxt-rs-cli-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

#[test]
fn without_split_every_split_goes_to_the_directory() {
    let dir = tempdir();
    let out = dir.join("splits");
    let o = run(&["prepare", "card=cards.example.capitals,template=templates.example.capital", "--catalog", "examples/catalog", "--output", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let count = |name: &str| std::fs::read_to_string(out.join(name)).unwrap().lines().count();
    assert_eq!(count("train.jsonl"), 8);
    assert_eq!(count("test.jsonl"), 6);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2);
}

#[test]
fn failing_expression_names_the_expression_and_instance() {
    let dir = tempdir();
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    let card = serde_json::json!({
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": [{"x": "7"}, {"x": "seven"}]}},
        "preprocess_steps": [{"__type__": "execute_expression", "expression": "int(x) * 2", "to_field": "y"}],
        "task": {"__type__": "task", "input_fields": {"x": "str"}, "reference_fields": {"y": "int"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{x}", "output_format": "{y}"}]
    });
    std::fs::write(cat.join("cards/expr.json"), card.to_string()).unwrap();
    let o = run(&["prepare", "card=cards.expr", "--catalog", cat.to_str().unwrap(), "--split", "test"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("int(x) * 2"), "{e}");
    assert!(e.contains("execute_expression"), "{e}");
    assert!(e.contains("split \"test\", instance 1"), "{e}");
    // The first instance was fine and is on stdout (stdout output streams).
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
}

/// With `UNITXT_HF_OFFLINE_DATASETS_PATH` set, `load_hf` reads `<that path>/<dataset path>` (as
/// Unitxt joins them) and nothing else: here a folder holding only a link to the hub fixture's
/// GLUE snapshot, with `HF_HUB_CACHE` pointing at an empty folder. A dataset missing from it is
/// an error naming the variable.
#[test]
fn load_hf_reads_the_offline_datasets_path() {
    let hub = match std::env::var("HF_HUB_CACHE") {
        Ok(p) if !p.is_empty() => PathBuf::from(p),
        _ => root().join("../shared/hf-hub"),
    };
    let glue = hub.join("datasets--nyu-mll--glue");
    let commit = std::fs::read_to_string(glue.join("refs/main"))
        .unwrap_or_else(|e| panic!("the hub fixture lacks nyu-mll/glue at {}: {e}", glue.display()));
    let dir = tempdir();
    let offline = dir.join("offline");
    std::fs::create_dir_all(offline.join("nyu-mll")).unwrap();
    std::os::unix::fs::symlink(glue.join("snapshots").join(commit.trim()), offline.join("nyu-mll/glue")).unwrap();
    std::fs::create_dir_all(dir.join("empty-hub")).unwrap();
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    for (name, path) in [("glue", "nyu-mll/glue"), ("nothing", "nobody/nothing")] {
        let card = serde_json::json!({
            "__type__": "task_card",
            "loader": {"__type__": "load_hf", "path": path, "name": "wnli"},
            "task": {"__type__": "task", "input_fields": {"sentence1": "str"}, "reference_fields": {"label": "int"}, "metrics": ["metrics.accuracy"]},
            "templates": [{"__type__": "input_output_template", "input_format": "{sentence1}", "output_format": "{label}"}]
        });
        std::fs::write(cat.join(format!("cards/{name}.json")), card.to_string()).unwrap();
    }
    let prepare = |card: &str| {
        Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
            .args(["prepare", &format!("card=cards.{card},max_train_instances=1"), "--catalog", cat.to_str().unwrap(), "--split", "train"])
            .current_dir(root())
            .env("UNITXT_RS_CATALOG", root().join("target/no-installed-catalog"))
            .env("UNITXT_HF_OFFLINE_DATASETS_PATH", &offline)
            .env("HF_HUB_CACHE", dir.join("empty-hub"))
            .env("HF_HUB_OFFLINE", "1")
            .env("UNITXT_RS_ARROW_CACHE", "off")
            .env_remove("UNITXT_CATALOGS")
            .output()
            .expect("run unitxt-rs")
    };
    let o = prepare("glue");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let row: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(row["source"].as_str().unwrap().starts_with("I stuck a pin"), "{row}");

    let o = prepare("nothing");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("dataset `nobody/nothing` not found") && e.contains("UNITXT_HF_OFFLINE_DATASETS_PATH"), "{e}");
}

/// A catalog of two metrics and two postprocessors, written as Unitxt's catalog writes them, and
/// prepared data that names them: three capital-city instances.
fn eval_fixture() -> (PathBuf, PathBuf) {
    let dir = tempdir();
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("metrics")).unwrap();
    std::fs::create_dir_all(cat.join("processors")).unwrap();
    std::fs::write(cat.join("metrics/acc.json"), r#"{"__type__": "accuracy_fast"}"#).unwrap();
    std::fs::write(cat.join("metrics/mse.json"), r#"{"__type__": "mean_squared_error"}"#).unwrap();
    std::fs::write(
        cat.join("processors/first_line.json"),
        r#"{"__type__": "post_process", "process_references": true, "process_prediction": true, "operator": {"__type__": "take_first_non_empty_line"}}"#,
    )
    .unwrap();
    std::fs::write(
        cat.join("processors/to_float.json"),
        r#"{"__type__": "post_process", "process_references": true, "process_prediction": true, "operator": {"__type__": "cast", "to": "float", "failure_default": 0.0}}"#,
    )
    .unwrap();
    let mut data = String::new();
    for (t, refs) in [("Rome", "Rome"), ("Paris", "Paris"), ("Nairobi", "Nairobi")] {
        let row = serde_json::json!({
            "source": "q", "target": t, "references": [refs], "metrics": ["metrics.acc"], "groups": [], "subset": [],
            "postprocessors": ["processors.first_line"], "task_data": "{}", "data_classification_policy": ["public"]
        });
        data.push_str(&row.to_string());
        data.push('\n');
    }
    std::fs::write(dir.join("data.jsonl"), data).unwrap();
    (dir, cat)
}

fn evaluate(dir: &Path, cat: &Path, data: &str, predictions: &str) -> Output {
    std::fs::write(dir.join("preds.json"), predictions).unwrap();
    run(&[
        "evaluate",
        "--data",
        dir.join(data).to_str().unwrap(),
        "--predictions",
        dir.join("preds.json").to_str().unwrap(),
        "--output",
        dir.join("scores.json").to_str().unwrap(),
        "--catalog",
        cat.to_str().unwrap(),
    ])
}

#[test]
fn evaluate_writes_global_and_instance_scores() {
    let (dir, cat) = eval_fixture();
    // The first prediction's answer is on its second line: take_first_non_empty_line keeps "Rome".
    let o = evaluate(&dir, &cat, "data.jsonl", r#"["\n Rome\nextra", "Lyon", "Nairobi"]"#);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("Main Score: accuracy"), "{out}");
    assert!(out.contains("Num Instances: 3"), "{out}");
    let scores: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("scores.json")).unwrap()).unwrap();
    let g = &scores["global"];
    assert_eq!(g["score_name"], "accuracy");
    assert!((g["accuracy"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12, "{g}");
    assert_eq!(g["num_of_instances"], 3);
    let inst: Vec<f64> = scores["instances"].as_array().unwrap().iter().map(|i| i["accuracy"].as_f64().unwrap()).collect();
    assert_eq!(inst, vec![1.0, 0.0, 1.0]);
}

#[test]
fn evaluate_prediction_count_mismatch_names_both_counts() {
    let (dir, cat) = eval_fixture();
    let o = evaluate(&dir, &cat, "data.jsonl", r#"["Rome", "Paris"]"#);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("2 predictions for 3 instances"), "{}", stderr(&o));
    assert!(!dir.join("scores.json").exists());
}

#[test]
fn evaluate_rejects_unknown_metric_and_processor_names() {
    let (dir, cat) = eval_fixture();
    let text = std::fs::read_to_string(dir.join("data.jsonl")).unwrap();
    std::fs::write(dir.join("badmetric.jsonl"), text.replace("metrics.acc", "metrics.acc_nope")).unwrap();
    std::fs::write(dir.join("badproc.jsonl"), text.replace("processors.first_line", "processors.first_lines")).unwrap();
    let preds = r#"["Rome", "Paris", "Nairobi"]"#;
    let o = evaluate(&dir, &cat, "badmetric.jsonl", preds);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("\"metrics.acc_nope\" is not in the catalog") && e.contains("metrics.acc"), "{e}");
    let o = evaluate(&dir, &cat, "badproc.jsonl", preds);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("\"processors.first_lines\" is not in the catalog") && e.contains("processors.first_line"), "{e}");
    assert!(!dir.join("scores.json").exists());
}

#[test]
fn evaluate_rejects_data_without_metrics_and_empty_data() {
    let (dir, cat) = eval_fixture();
    let text = std::fs::read_to_string(dir.join("data.jsonl")).unwrap();
    std::fs::write(dir.join("nometrics.jsonl"), text.replace(r#""metrics":["metrics.acc"],"#, "")).unwrap();
    let o = evaluate(&dir, &cat, "nometrics.jsonl", r#"["Rome", "Paris", "Nairobi"]"#);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("name no metrics"), "{}", stderr(&o));
    std::fs::write(dir.join("empty.jsonl"), "").unwrap();
    let o = evaluate(&dir, &cat, "empty.jsonl", "[]");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no instances"), "{}", stderr(&o));
}

#[test]
fn evaluate_unparseable_number_counts_as_unitxt_counts_it() {
    // cast to float with failure_default 0.0 (processors.cast_to_float_return_zero_if_failed):
    // "n/a" becomes 0.0, so the squared errors are 0, 4 and 0: mean 4/3.
    let (dir, cat) = eval_fixture();
    let text = std::fs::read_to_string(dir.join("data.jsonl")).unwrap();
    let text = text
        .replace("metrics.acc", "metrics.mse")
        .replace("processors.first_line", "processors.to_float")
        .replace(r#"["Rome"]"#, r#"["1.5"]"#)
        .replace(r#"["Paris"]"#, r#"["2"]"#)
        .replace(r#"["Nairobi"]"#, r#"["0"]"#);
    std::fs::write(dir.join("numbers.jsonl"), text).unwrap();
    let o = evaluate(&dir, &cat, "numbers.jsonl", r#"["1.5", "n/a", "0"]"#);
    assert!(o.status.success(), "{}", stderr(&o));
    let scores: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("scores.json")).unwrap()).unwrap();
    let mse = scores["global"]["mean_squared_error"].as_f64().unwrap();
    assert!((mse - 4.0 / 3.0).abs() < 1e-12, "{mse}");
}

/// Writing to a FIFO (as to `/dev/null`) goes into it: the path stays a FIFO instead of being
/// replaced by a renamed temporary file, and the reader gets every line.
#[test]
fn output_to_a_fifo_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempdir();
    let fifo = dir.join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("run mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = run(&["prepare", EXAMPLE, "--catalog", "examples/catalog", "--split", "test", "--output", fifo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Checked before joining: had the FIFO been replaced, the reader would wait forever.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let text = reader.join().unwrap();
    assert_eq!(text.lines().count(), 6);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
}

/// Writes `card` as `cards.mine` into a fresh catalog and prepares its test split through
/// `recipe` on one and on two threads (without the installed catalog): `(recipe, threads,
/// output)` for the card alone and for the card with a demos pool taken from train.
fn prepare_card_on_threads(card: &serde_json::Value) -> Vec<(&'static str, &'static str, std::process::Output)> {
    let dir = tempdir();
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    std::fs::write(cat.join("cards/mine.json"), card.to_string()).unwrap();
    let mut out = Vec::new();
    for recipe in ["card=cards.mine", "card=cards.mine,num_demos=1,demos_pool_size=5,demos_taken_from=train"] {
        for threads in ["1", "2"] {
            let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
                .args(["prepare", recipe, "--catalog", cat.to_str().unwrap(), "--split", "test"])
                .env("RAYON_NUM_THREADS", threads)
                .env("UNITXT_RS_CATALOG", root().join("target/no-installed-catalog"))
                .env_remove("UNITXT_CATALOGS")
                .output()
                .unwrap();
            out.push((recipe, threads, o));
        }
    }
    out
}

/// A per-instance preprocess step runs on the worker threads, fused with the task and the
/// template; its error still names the operator, the split and the instance, on one or two
/// threads, with or without a demos pool (which runs the steps as a stage of their own), and
/// the instances before it are not lost from a stdout run.
#[test]
fn preprocess_step_errors_are_located_on_worker_threads() {
    let rows: Vec<_> = (0..300)
        .map(|i| serde_json::json!({"x": format!("a{i}"), "z": if i == 257 { serde_json::json!("flat") } else { serde_json::json!({"k": i}) }}))
        .collect();
    let card = serde_json::json!({
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"train": rows.clone(), "test": rows}},
        "preprocess_steps": [{"__type__": "copy", "field": "z/k", "to_field": "y"}],
        "task": {"__type__": "task", "input_fields": {"x": "str"}, "reference_fields": {"y": "int"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{x}", "output_format": "{y}"}]
    });
    for (recipe, threads, o) in prepare_card_on_threads(&card) {
        let e = stderr(&o);
        assert!(!o.status.success(), "{recipe} on {threads} threads");
        assert!(e.contains("in operator `copy`") && e.contains("split \"test\", instance 257"), "{recipe} on {threads}: {e}");
        assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 257, "{recipe} on {threads}");
    }
}

/// A card that ends with a `set` of constants, whose fields the task takes directly when the
/// recipe has no demos: an instance the task rejects still gets the error of the `set` run as
/// a step, then the task, the same as with demos (where the `set` always runs as a step), on
/// one or two threads, and the instances before it are written.
#[test]
fn task_errors_after_a_set_of_constants_are_unchanged() {
    let rows: Vec<_> = (0..300)
        .map(|i| if i == 257 { serde_json::json!({"x": 5, "y": i}) } else { serde_json::json!({"x": format!("a{i}"), "y": i}) })
        .collect();
    let card = serde_json::json!({
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"train": rows.clone(), "test": rows}},
        "preprocess_steps": [{"__type__": "set", "fields": {"kind": "k", "classes": ["a", "b"]}}],
        "task": {"__type__": "task", "input_fields": {"x": "str", "kind": "str"}, "reference_fields": {"y": "int"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{kind}: {x}", "output_format": "{y}"}]
    });
    let mut errors = Vec::new();
    for (recipe, threads, o) in prepare_card_on_threads(&card) {
        assert!(!o.status.success(), "{recipe} on {threads} threads");
        assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 257, "{recipe} on {threads}: {}", stderr(&o));
        errors.push(stderr(&o));
    }
    let e = &errors[0];
    assert!(
        e.contains("split \"test\", instance 257") && e.contains("in task") && e.contains("value 5 of field \"x\" is not of the required type str"),
        "{e}"
    );
    assert!(errors.iter().all(|x| x == e), "{errors:#?}");
}

/// `catalog check` builds every artifact and its nested parts and sorts it into five columns
/// per top folder: the example catalog alone fails, as its task and template name a metric and
/// a processor of Unitxt's catalog, not of its own (and so does the card over that task); with
/// a catalog that has them it works whole (exit 0); a catalog with an artifact of an unknown type (fails),
/// a metric that needs a model (named), a card whose loader needs the network, an inference engine on an
/// OpenAI-compatible API without its key (needs an endpoint) and
/// a `dataset_recipe` over the example card gives each its column, as a table (with the
/// reasons grouped, and listed with `--list`) and as JSON, and exits 1 because one fails.
#[test]
fn catalog_check_sorts_artifacts_into_five_columns() {
    let o = run(&["catalog", "check", "--catalog", "examples/catalog", "--list"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.starts_with(
            "folder             works  needs endpoint  needs model  needs network  fails\n\
             cards                  0               0            0              0      1\n\
             tasks                  0               0            0              0      1\n\
             templates              0               0            0              0      1\n\
             total                  0               0            0              0      3\n"
        ),
        "{out}"
    );
    assert!(out.contains("  tasks.example.capital_qa: `metrics.accuracy` at `metrics[0]` is not in the catalog\n"), "{out}");
    assert!(
        out.contains("  cards.example.capitals: `tasks.example.capital_qa` at `task`: `metrics.accuracy` at `metrics[0]` is not in the catalog\n"),
        "{out}"
    );
    assert!(
        out.contains("  templates.example.capital: `processors.take_first_non_empty_line` at `postprocessors[0]` is not in the catalog\n"),
        "{out}"
    );

    let d = tempdir();
    for dir in ["recipes", "operators", "metrics", "cards", "engines"] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
    }
    std::fs::create_dir_all(d.join("processors")).unwrap();
    std::fs::write(d.join("metrics/accuracy.json"), r#"{"__type__": "accuracy"}"#).unwrap();
    std::fs::write(
        d.join("processors/take_first_non_empty_line.json"),
        r#"{"__type__": "post_process", "operator": {"__type__": "take_first_non_empty_line"}}"#,
    )
    .unwrap();
    let o = run(&["catalog", "check", "--catalog", "examples/catalog", "--catalog", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "folder             works  needs endpoint  needs model  needs network  fails\n\
         cards                  1               0            0              0      0\n\
         metrics                1               0            0              0      0\n\
         processors             1               0            0              0      0\n\
         tasks                  1               0            0              0      0\n\
         templates              1               0            0              0      0\n\
         total                  5               0            0              0      0\n"
    );
    std::fs::write(
        d.join("recipes/capitals.json"),
        r#"{"__type__": "dataset_recipe", "card": "cards.example.capitals", "template": "templates.example.capital", "num_demos": 1, "demos_pool_size": 2}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("operators/odd.json"),
        r#"{"__type__": "no_such_operator"}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("metrics/bs.json"),
        r#"{"__type__": "bert_score", "model_name": "bert-base-uncased"}"#,
    )
    .unwrap();
    std::fs::write(d.join("metrics/acc.json"), r#"{"__type__": "accuracy"}"#).unwrap();
    std::fs::write(
        d.join("engines/gpt.json"),
        r#"{"__type__": "open_ai_inference_engine", "model_name": "gpt-4o"}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("cards/space.json"),
        r#"{"__type__": "task_card", "loader": {"__type__": "load_from_hf_space", "space_name": "x/y", "data_files": {"test": "t.json"}}, "task": "tasks.example.capital"}"#,
    )
    .unwrap();
    let (ex, extra) = ("examples/catalog", d.to_str().unwrap());
    let o = run(&[
        "catalog",
        "check",
        "--catalog",
        ex,
        "--catalog",
        extra,
        "--list",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let table: Vec<&str> = out.lines().take(9).collect();
    assert_eq!(
        table,
        [
            "folder             works  needs endpoint  needs model  needs network  fails",
            "cards                  1               0            0              1      0",
            "engines                0               1            0              0      0",
            "metrics                2               0            1              0      0",
            "operators              0               0            0              0      1",
            "processors             1               0            0              0      0",
            "recipes                1               0            0              0      0",
            "tasks                  1               0            0              0      0",
            "templates              1               0            0              0      0",
        ]
    );
    assert!(
        out.contains("total                  7               1            1              1      1\n"),
        "{out}"
    );
    assert!(out.contains("\nfails (1 artifacts; count, reason, e.g. artifact):\n     1  unknown artifact type `__type__: no_such_operator`  (operators.odd)\n  operators.odd: unknown artifact type"), "{out}");
    assert!(
        out.contains("  metrics.bs: metric `bert_score` needs a model or an inference engine (not available in unitxt-rs): model `bert-base-uncased`\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "\nneeds an endpoint (an OpenAI-compatible API and its key) (1 artifacts; count, reason, e.g. artifact):\n     1  inference engine \
             `open_ai_inference_engine` calls an OpenAI-compatible endpoint once set up: `open_ai_inference_engine` needs an API key: set the \
             environment variable OPENAI_API_KEY or `credentials.api_key`  (engines.gpt)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  cards.space: `load_from_hf_space` needs files of a Hugging Face Space"),
        "{out}"
    );
    assert!(
        stderr(&o).contains("1 of 11 artifacts fail"),
        "{}",
        stderr(&o)
    );

    let o = run(&[
        "catalog",
        "check",
        "--catalog",
        ex,
        "--catalog",
        extra,
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(
        doc["total"],
        serde_json::json!({"works": 7, "needs_endpoint": 1, "needs_model": 1, "needs_network": 1, "fails": 1})
    );
    assert_eq!(
        doc["folders"]["engines"],
        serde_json::json!({"works": 0, "needs_endpoint": 1, "needs_model": 0, "needs_network": 0, "fails": 0})
    );
    let statuses: Vec<(&str, &str)> = doc["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("cards.space", "needs_network"),
            ("engines.gpt", "needs_endpoint"),
            ("metrics.bs", "needs_model"),
            ("operators.odd", "fails")
        ]
    );

    let o = run(&[
        "catalog",
        "check",
        "--catalog",
        ex,
        "--catalog",
        extra,
        "recipes.",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["catalog", "check", "--catalog", ex, "nothing.here"]);
    assert!(!o.status.success() && stderr(&o).contains("no artifact name starts with"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn cache_info_counts_the_entries_and_clear_removes_only_them() {
    let dir = tempdir();
    std::fs::write(dir.join("a.arrow"), b"abc").unwrap();
    std::fs::write(dir.join("b.arrow.tmp-1-0"), b"de").unwrap();
    std::fs::write(dir.join("notes.txt"), b"kept").unwrap();
    let cache = |arg: &str, setting: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
            .args(["cache", arg])
            .env("UNITXT_RS_ARROW_CACHE", setting)
            .output()
            .expect("run unitxt-rs");
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let d = dir.to_str().unwrap();
    assert_eq!(cache("info", d), format!("{d}\n2 files, 0.0 MiB\n"));
    assert_eq!(cache("info", "off"), "the Arrow cache is off (UNITXT_RS_ARROW_CACHE)\n");
    assert_eq!(cache("clear", d), format!("removed 2 files (0.0 MiB) from {d}\n"));
    let left: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["notes.txt"]);
    assert_eq!(cache("info", d), format!("{d}\n0 files, 0.0 MiB\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A catalog with card `cards.many`: `n` test instances through an expression, and, in split
/// `bad`, one instance whose expression fails.
fn many_fixture(n: usize) -> PathBuf {
    let dir = tempdir();
    let cat = dir.join("catalog");
    std::fs::create_dir_all(cat.join("cards")).unwrap();
    let rows: Vec<serde_json::Value> = (0..n).map(|i| serde_json::json!({"x": i.to_string()})).collect();
    let card = serde_json::json!({
        "__type__": "task_card",
        "loader": {"__type__": "load_from_dictionary", "data": {"test": rows, "bad": [{"x": "seven"}]}},
        "preprocess_steps": [{"__type__": "execute_expression", "expression": "str(sum(range(int(x) % 500)))", "to_field": "y"}],
        "task": {"__type__": "task", "input_fields": {"x": "str"}, "reference_fields": {"y": "str"}, "metrics": ["metrics.accuracy"]},
        "templates": [{"__type__": "input_output_template", "input_format": "{x}", "output_format": "{y}"}]
    });
    std::fs::write(cat.join("cards/many.json"), card.to_string()).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    n.sort();
    n
}

/// A run without `--split` that fails in one split leaves neither the other splits' files nor
/// the output folder it created.
#[test]
fn a_failed_run_leaves_nothing_it_created() {
    let dir = many_fixture(10);
    let cat = dir.join("catalog");
    let out = dir.join("out/splits");
    let o = run(&["prepare", "card=cards.many", "--catalog", cat.to_str().unwrap(), "--output", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("split \"bad\", instance 0"), "{}", stderr(&o));
    assert_eq!(names_in(&dir), ["catalog"]);
}

/// SIGTERM during a long write removes the temporary output file and exits with 130.
#[test]
fn a_terminated_run_removes_its_temporary_file() {
    let dir = many_fixture(300_000);
    let cat = dir.join("catalog");
    let target = dir.join("out.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"))
        .args(["prepare", "card=cards.many", "--catalog", cat.to_str().unwrap(), "--split", "test", "-o", target.to_str().unwrap()])
        .env("UNITXT_RS_CATALOG", root().join("target/no-installed-catalog"))
        .env_remove("UNITXT_CATALOGS")
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !names_in(&dir).iter().any(|n| n.starts_with(".out.jsonl.")) {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its temporary file was seen");
        assert!(started.elapsed().as_secs() < 120, "no temporary file appeared");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(names_in(&dir), ["catalog"]);
}

/// Runs `unitxt-rs args` with its stdout a pipe whose reading end is already closed, as under
/// `unitxt-rs ... | head` once `head` has exited: every write fails with a broken pipe.
fn run_into_closed_pipe(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_unitxt-rs"));
    cmd.args(args)
        .current_dir(root())
        .env("UNITXT_RS_CATALOG", root().join("target/no-installed-catalog"))
        .env_remove("UNITXT_CATALOGS")
        .stdout(writer)
        .stderr(std::process::Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().expect("run unitxt-rs")
}

/// Every command that writes to stdout ends quietly (status 0, nothing on stderr) when the
/// reader of its output has gone; a real error is still reported the same way.
#[test]
fn a_closed_stdout_pipe_ends_every_command_quietly() {
    let (dir, cat) = eval_fixture();
    std::fs::write(dir.join("preds.json"), r#"["Rome", "Lyon", "Nairobi"]"#).unwrap();
    let (data, preds, cat) =
        (dir.join("data.jsonl"), dir.join("preds.json"), cat.to_str().unwrap().to_string());
    let d = dir.to_str().unwrap();
    let runs: Vec<(Vec<&str>, Vec<(&str, &str)>)> = vec![
        (vec!["prepare", EXAMPLE, "--catalog", "examples/catalog", "--split", "test"], vec![]),
        (vec!["prepare", EXAMPLE, "--catalog", "examples/catalog", "--split", "test", "--output", "-"], vec![]),
        (vec!["catalog", "show", "cards.example.capitals", "--catalog", "examples/catalog"], vec![]),
        (vec!["catalog", "where"], vec![]),
        (vec!["catalog", "check", "--catalog", "examples/catalog", "templates.example"], vec![]),
        (vec!["catalog", "check", "--json", "--catalog", "examples/catalog", "templates.example"], vec![]),
        (vec!["cache", "info"], vec![("UNITXT_RS_ARROW_CACHE", d)]),
        (
            vec!["evaluate", "--data", data.to_str().unwrap(), "--predictions", preds.to_str().unwrap(), "--catalog", &cat],
            vec![],
        ),
        (
            vec!["evaluate", "--data", data.to_str().unwrap(), "--predictions", preds.to_str().unwrap(), "--catalog", &cat, "-o", "-"],
            vec![],
        ),
    ];
    for (args, envs) in &runs {
        let o = run_into_closed_pipe(args, envs);
        assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()), "{args:?}");
    }
    // Not a pipe error: still reported, with its exit code.
    let o = run_into_closed_pipe(&["prepare", EXAMPLE, "--catalog", "examples/catalog", "--split", "nope"], &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("split \"nope\" does not exist"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}
