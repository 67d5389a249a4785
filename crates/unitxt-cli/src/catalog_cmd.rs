//! `unitxt-rs catalog ...`: install Unitxt's catalog (from the Unitxt wheel, with pip) and
//! look artifacts up.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use clap::Subcommand;
use indexmap::IndexMap;
use unitxt::catalog::{default_catalog_dir, Catalog, UNITXT_VERSION};
use unitxt::error::{Error, Need, Result};
use unitxt::registry::Outcome;

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// Download the Unitxt wheel with `pip download --no-deps unitxt==<version>` and unpack
    /// its `unitxt/catalog` folder (into $UNITXT_RS_CATALOG or ~/.cache/unitxt-rs/catalog-<version>).
    Install {
        /// Target directory (default: the standard catalog location).
        #[arg(long)]
        to: Option<PathBuf>,
        /// Python interpreter that has pip.
        #[arg(long, default_value = "python3")]
        python: String,
    },
    /// Print where the catalogs are searched, highest precedence first.
    Where,
    /// Print an artifact's JSON.
    Show {
        name: String,
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
    },
    /// Build every artifact (or those whose name starts with PREFIX, e.g. `cards.`) and report,
    /// per top folder, how many work, need an endpoint (engines that call an OpenAI-compatible
    /// API, LLM judges whose engine does), need a model (local weights, an engine that cannot be
    /// called here), need the network, and fail, with the reasons grouped; exits with 1 when any
    /// fails.
    Check {
        /// Only artifacts whose name starts with this (e.g. `cards.mmlu`).
        #[arg(default_value = "")]
        prefix: String,
        /// Extra catalog directories (as for `prepare`).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
        /// List every artifact that does not work, with its reason, not only the groups.
        #[arg(long)]
        list: bool,
        /// Print the report as JSON: `{"folders": {FOLDER: {"works", "needs_endpoint",
        /// "needs_model", "needs_network", "fails"}}, "total": {...}, "artifacts": [{"name",
        /// "status", "reason"}]}` (artifacts that work are not listed), and with `--endpoint`
        /// `"endpoint": {"url", "model", "families": {FAMILY: {"status": "ran" | "failed",
        /// "requests", "detail"}}}`.
        #[arg(long)]
        json: bool,
        /// Also run one small built-in example of each LLM judge family (`llm_judge_direct`,
        /// `llm_judge_pairwise`) and one inference request against this OpenAI-compatible base
        /// URL (e.g. `http://localhost:8000/v1`), through an `open_ai_inference_engine` (its key
        /// from OPENAI_API_KEY), and report each as ran or failed (exit 1 when one fails).
        #[arg(long)]
        endpoint: Option<String>,
        /// The model to ask at `--endpoint`.
        #[arg(long = "endpoint-model", default_value = "gpt-4o")]
        endpoint_model: String,
    },
}

pub fn run(cmd: CatalogCommand) -> Result<()> {
    match cmd {
        CatalogCommand::Install { to, python } => install(to.unwrap_or_else(default_catalog_dir), &python),
        CatalogCommand::Where => {
            for d in Catalog::standard(&[]).dirs() {
                outln!("{}", d.display())?;
            }
            Ok(())
        }
        CatalogCommand::Show { name, catalogs } => {
            let cat = Arc::new(Catalog::standard(&catalogs));
            let v = cat.get_json(&name)?;
            outln!("{}", serde_json::to_string_pretty(&*v).map_err(|e| Error::invalid(e.to_string()))?)?;
            Ok(())
        }
        CatalogCommand::Check {
            prefix,
            catalogs,
            list,
            json,
            endpoint,
            endpoint_model,
        } => {
            let probe = endpoint.map(|url| (probe_endpoint(&url, &endpoint_model, &catalogs), url, endpoint_model));
            check(&Arc::new(Catalog::standard(&catalogs)), &prefix, list, json, probe.as_ref())
        }
    }
}

/// The five columns of `catalog check`, in order, as the JSON report names them.
const STATUSES: [&str; 5] = ["works", "needs_endpoint", "needs_model", "needs_network", "fails"];

/// The column of `outcome` in [`STATUSES`], with its reason.
fn status(outcome: &Outcome) -> (usize, Option<&str>) {
    match outcome {
        Outcome::Works => (0, None),
        Outcome::Needs(u) => match u.need {
            Need::Endpoint => (1, Some(&u.reason)),
            Need::Model => (2, Some(&u.reason)),
            Need::Network => (3, Some(&u.reason)),
        },
        Outcome::Fails(cause) => (4, Some(cause)),
    }
}

/// `catalog check`: prints a table of the five counts ([`STATUSES`]) per top folder (`cards`,
/// `metrics`, ...) and in total, then, for each column but "works", the reasons with their
/// count and one artifact that has it, most frequent first (with `list`: every such artifact
/// and its reason). With `json`, the same as one JSON document on stdout. Errors when an
/// artifact fails, or when no artifact matches `prefix`.
fn check(cat: &Arc<Catalog>, prefix: &str, list: bool, json: bool, probe: Option<&(Vec<Probe>, String, String)>) -> Result<()> {
    let results = unitxt::registry::check(cat, prefix);
    if results.is_empty() {
        let dirs: Vec<String> = cat.dirs().iter().map(|d| d.display().to_string()).collect();
        let what = if prefix.is_empty() { "no artifact".to_string() } else { format!("no artifact name starts with {prefix:?}") };
        return Err(Error::not_found(format!(
            "{what} in the catalogs (searched: {}; run `unitxt-rs catalog install` for Unitxt's catalog)",
            if dirs.is_empty() { "none".to_string() } else { dirs.join(", ") }
        )));
    }
    let mut folders: IndexMap<&str, [usize; 5]> = IndexMap::new();
    let mut total = [0usize; 5];
    for (name, outcome) in &results {
        let folder = name.split('.').next().unwrap_or_default();
        let (col, _) = status(outcome);
        folders.entry(folder).or_default()[col] += 1;
        total[col] += 1;
    }
    folders.sort_keys();
    let fails = total[4];
    if json {
        let counts = |c: &[usize; 5]| -> serde_json::Value {
            STATUSES
                .iter()
                .zip(c)
                .map(|(s, n)| (s.to_string(), serde_json::Value::from(*n)))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let artifacts: Vec<serde_json::Value> = results
            .iter()
            .filter_map(|(name, outcome)| {
                let (col, reason) = status(outcome);
                Some(serde_json::json!({"name": name, "status": STATUSES[col], "reason": reason?}))
            })
            .collect();
        let mut doc = serde_json::json!({
            "folders": folders.iter().map(|(f, c)| (f.to_string(), counts(c))).collect::<serde_json::Map<_, _>>(),
            "total": counts(&total),
            "artifacts": artifacts,
        });
        if let Some((probes, url, model)) = probe {
            let families: serde_json::Map<String, serde_json::Value> = probes
                .iter()
                .map(|p| {
                    let (status, detail) = match &p.outcome {
                        Ok(d) => ("ran", d),
                        Err(d) => ("failed", d),
                    };
                    (p.family.to_string(), serde_json::json!({"status": status, "requests": p.requests, "detail": detail}))
                })
                .collect();
            doc["endpoint"] = serde_json::json!({"url": url, "model": model, "families": families});
        }
        outln!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| Error::invalid(e.to_string()))?
        )?;
    } else {
        outln!(
            "{:<16} {:>7} {:>15} {:>12} {:>14} {:>6}",
            "folder", "works", "needs endpoint", "needs model", "needs network", "fails"
        )?;
        for (folder, c) in folders
            .iter()
            .map(|(f, c)| (*f, c))
            .chain([("total", &total)])
        {
            outln!(
                "{folder:<16} {:>7} {:>15} {:>12} {:>14} {:>6}",
                c[0], c[1], c[2], c[3], c[4]
            )?;
        }
        for (col, title) in [
            (1, "needs an endpoint (an OpenAI-compatible API and its key)"),
            (2, "needs a model (local weights, or an engine that cannot be called here)"),
            (3, "needs the network"),
            (4, "fails"),
        ] {
            let of_col: Vec<(&str, &str)> = results
                .iter()
                .filter_map(|(n, o)| match status(o) {
                    (c, Some(reason)) if c == col => Some((n.as_str(), reason)),
                    _ => None,
                })
                .collect();
            if of_col.is_empty() {
                continue;
            }
            // reason -> (count, first artifact with it); most frequent first, then by reason.
            let mut by_reason: IndexMap<&str, (usize, &str)> = IndexMap::new();
            for (name, reason) in &of_col {
                by_reason.entry(reason).or_insert((0, name)).0 += 1;
            }
            by_reason.sort_by(|ra, a, rb, b| b.0.cmp(&a.0).then(ra.cmp(rb)));
            outln!(
                "\n{title} ({} artifacts; count, reason, e.g. artifact):",
                of_col.len()
            )?;
            for (reason, (count, example)) in &by_reason {
                outln!("{count:6}  {reason}  ({example})")?;
            }
            if list {
                for (name, reason) in &of_col {
                    outln!("  {name}: {reason}")?;
                }
            }
        }
    }
    if let (Some((probes, url, model)), false) = (probe, json) {
        outln!("\nendpoint {url} (model {model}):")?;
        for p in probes {
            let n = format!("{} request{}", p.requests, if p.requests == 1 { "" } else { "s" });
            match &p.outcome {
                Ok(d) => outln!("  {:<24} ran ({n}; {d})", p.family)?,
                Err(e) => outln!("  {:<24} failed ({n}): {e}", p.family)?,
            }
        }
    }
    if fails > 0 {
        return Err(Error::invalid(format!(
            "{fails} of {} artifacts fail",
            results.len()
        )));
    }
    if let Some((probes, url, _)) = probe {
        let failed = probes.iter().filter(|p| p.outcome.is_err()).count();
        if failed > 0 {
            return Err(Error::io(format!("{failed} of {} checks against {url} failed", probes.len())));
        }
    }
    Ok(())
}

/// One check of `--endpoint`: the family run (`inference`, `llm_judge_direct`,
/// `llm_judge_pairwise`), the requests it sent, and what came of it: a short summary (the
/// answer, the judge's main score) or the error, on one line.
pub struct Probe {
    family: &'static str,
    requests: usize,
    outcome: std::result::Result<String, String>,
}

/// A [`RunClient`](unitxt_inference::RunClient) that counts the bodies it is given and sends
/// each once (no retries: a check should say quickly that an endpoint does not answer).
struct ProbeClient {
    inner: unitxt_inference::RunClient,
    requests: std::sync::atomic::AtomicUsize,
}

impl unitxt::inference::ModelClient for ProbeClient {
    fn complete(&self, endpoint: &unitxt::inference::Endpoint, bodies: &[unitxt::value::Value]) -> Result<unitxt::inference::Answers> {
        self.requests.fetch_add(bodies.len(), std::sync::atomic::Ordering::Relaxed);
        let mut endpoint = endpoint.clone();
        endpoint.max_retries = Some(0);
        self.inner.complete(&endpoint, bodies)
    }
}

/// The question of the built-in examples, its reference and a second system's answer.
const PROBE_QUESTION: &str = "What is 2 + 2? Answer with one number.";

/// Runs the built-in examples of `--endpoint` against base URL `url` and model `model`: one
/// inference request, one `llm_judge_direct` evaluation (a yes/no criteria, no positional
/// bias: 2 requests), one `llm_judge_pairwise` evaluation (two systems, no positional bias:
/// 2 requests), one `llm_as_judge` rating and one `task_based_ll_mas_judge` groundedness
/// judgement (1 request each), each judge's engine an `open_ai_inference_engine` on `url` (key from
/// OPENAI_API_KEY). `catalogs`: where the evaluation looks names up.
fn probe_endpoint(url: &str, model: &str, catalogs: &[PathBuf]) -> Vec<Probe> {
    use unitxt::value::Value;
    let engine = serde_json::json!({"__type__": "open_ai_inference_engine", "model_name": model, "base_url": url, "use_cache": false});
    let one_line = |e: &Error| e.to_string().replace("\n  ", "; ");
    let client = || Arc::new(ProbeClient { inner: unitxt_inference::RunClient::default(), requests: Default::default() });
    let mut out = Vec::new();

    // One inference request.
    let c = client();
    let outcome = (|| -> Result<String> {
        let cat = Arc::new(Catalog::standard(catalogs));
        let e = unitxt::registry::build_as::<dyn unitxt::inference::InferenceEngine>(&Value::from(engine.clone()), &cat)?;
        let mut instance = unitxt::value::Instance::new();
        instance.insert("source".into(), Value::from(PROBE_QUESTION));
        let got = unitxt::inference::infer(&*e.inner, &*c, &[instance])?;
        if let Some(f) = got.failed.first() {
            return Err(Error::io(f.detail.clone()));
        }
        let answer = got.predictions.first().cloned().flatten().unwrap_or(Value::Null);
        let text = answer.as_str().map(str::to_string).unwrap_or_else(|| answer.to_string());
        let short: String = text.chars().take(60).collect();
        Ok(format!("answer {:?}{}", short, if short.len() < text.len() { "..." } else { "" }))
    })();
    out.push(Probe { family: "inference", requests: c.requests.load(std::sync::atomic::Ordering::Relaxed), outcome: outcome.map_err(|e| one_line(&e)) });

    // One evaluation by each judge family.
    let direct = serde_json::json!({"__type__": "llm_judge_direct", "inference_engine": engine, "check_positional_bias": false,
        "context_fields": ["question"],
        "criteria": {"__type__": "criteria_with_options", "name": "correct", "description": "Does the response answer the question correctly?",
            "options": [{"__type__": "criteria_option", "name": "Yes", "description": "The answer is correct."},
                        {"__type__": "criteria_option", "name": "No", "description": "The answer is wrong."}],
            "option_map": {"Yes": 1.0, "No": 0.0}}});
    let pairwise = serde_json::json!({"__type__": "llm_judge_pairwise", "inference_engine": engine, "check_positional_bias": false,
        "context_fields": ["question"],
        "criteria": {"__type__": "criteria", "name": "correct", "description": "Which response answers the question correctly?"}});
    // The template judges: a rating of the answer (the question rendered by the instance's
    // template), and a groundedness judgement of the answer in the instance's contexts.
    let rating = serde_json::json!({"__type__": "llm_as_judge", "inference_model": engine, "task": "rating.single_turn",
        "template": "templates.response_assessment.rating.generic_single_turn", "format": "formats.chat_api"});
    let task_based = serde_json::json!({"__type__": "task_based_ll_mas_judge", "inference_model": engine,
        "task": "tasks.rag_eval.faithfulness.binary", "template": "templates.rag_eval.faithfulness.judge_with_question_simplified_verbal",
        "format": null, "main_score": "faithfulness", "prediction_field": "answer", "include_meta_data": false});
    for (family, judge, prediction) in [
        ("llm_judge_direct", direct, serde_json::json!("4")),
        ("llm_judge_pairwise", pairwise, serde_json::json!(["4", "5"])),
        ("llm_as_judge", rating, serde_json::json!("4")),
        ("task_based_ll_mas_judge", task_based, serde_json::json!("4")),
    ] {
        let c = client();
        let outcome = (|| -> Result<String> {
            let mut instance = unitxt::value::Instance::new();
            instance.insert("source".into(), Value::from(PROBE_QUESTION));
            instance.insert("references".into(), Value::from(serde_json::json!(["4"])));
            let task_data = serde_json::json!({"question": PROBE_QUESTION, "contexts": ["2 + 2 = 4."], "answer": "4",
                "metadata": {"template": {"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answer}"}}});
            instance.insert("task_data".into(), Value::from(task_data.to_string()));
            instance.insert("metrics".into(), Value::from(serde_json::json!([judge.to_string()])));
            instance.insert("postprocessors".into(), Value::Array(Vec::new()));
            instance.insert("subset".into(), Value::Array(Vec::new()));
            instance.insert("groups".into(), Value::Array(Vec::new()));
            let opts = unitxt::evaluate::EvaluateOptions { confidence_intervals: false, catalogs: catalogs.to_vec(), model_client: Some(c.clone()), ..Default::default() };
            let res = unitxt::evaluate::evaluate(&[instance], &[Value::from(prediction)], &opts)?;
            let name = res.global.get("score_name").map(|v| v.to_json()).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            let score = res.global.get("score").map(|v| v.to_json().to_string()).unwrap_or_default();
            Ok(format!("{name} = {score}"))
        })();
        out.push(Probe { family, requests: c.requests.load(std::sync::atomic::Ordering::Relaxed), outcome: outcome.map_err(|e| one_line(&e)) });
    }
    out
}

const UNPACK: &str = r#"
import sys, zipfile, glob, os, shutil
src, dest = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(src, "unitxt-*.whl"))[0]
tmp = dest + ".partial"
shutil.rmtree(tmp, ignore_errors=True)
with zipfile.ZipFile(wheel) as z:
    for m in z.namelist():
        if m.startswith("unitxt/catalog/") and not m.endswith("/"):
            rel = m[len("unitxt/catalog/"):]
            out = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(m) as f, open(out, "wb") as g:
                g.write(f.read())
shutil.rmtree(dest, ignore_errors=True)
os.replace(tmp, dest)
print(sum(len(fs) for _, _, fs in os.walk(dest)))
"#;

fn install(dest: PathBuf, python: &str) -> Result<()> {
    let tmp = std::env::temp_dir().join(format!("unitxt-rs-wheel-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let status = Command::new(python)
        .args(["-m", "pip", "download", "--no-deps", "--quiet", &format!("unitxt=={UNITXT_VERSION}"), "-d"])
        .arg(&tmp)
        .status()
        .map_err(|e| Error::io(format!("could not run {python} -m pip: {e}")))?;
    if !status.success() {
        return Err(Error::io(format!("pip download of unitxt=={UNITXT_VERSION} failed")));
    }
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let out = Command::new(python)
        .args(["-c", UNPACK])
        .arg(&tmp)
        .arg(&dest)
        .output()
        .map_err(|e| Error::io(format!("could not run {python}: {e}")))?;
    let _ = std::fs::remove_dir_all(&tmp);
    if !out.status.success() {
        return Err(Error::io(format!("unpacking the catalog failed: {}", String::from_utf8_lossy(&out.stderr))));
    }
    eprintln!(
        "installed Unitxt {UNITXT_VERSION} catalog ({} files) into {}",
        String::from_utf8_lossy(&out.stdout).trim(),
        dest.display()
    );
    Ok(())
}
