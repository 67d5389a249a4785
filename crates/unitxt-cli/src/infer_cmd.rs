//! `unitxt-rs infer`: prepares a recipe's split (or reads prepared instances), runs an
//! inference engine artifact on it and writes one JSON line per instance with its prediction
//! (Unitxt's `engine.infer(dataset)`, or `infer_log_probs` with `--log-probs`).
//!
//! The engine (in the `unitxt` crate) builds the request bodies; [`RunClient`] sends them with
//! `unitxt_inference::run` (retries, rate limit, answer cache).

use std::io::Write;
use std::path::{Path, PathBuf};

use unitxt::api::{prepare, PrepareOptions};
use unitxt::error::{Error, Result, ResultExt};
use unitxt::inference::{infer_with, InferOptions, Inferred};
use unitxt_inference::RunClient;

/// Arguments of the `infer` subcommand.
pub struct InferArgs {
    /// The recipe to prepare (with `split`), or `None` with `data`.
    pub recipe: Option<String>,
    /// Prepared instances (JSON Lines, as `prepare` writes them), instead of a recipe.
    pub data: Option<PathBuf>,
    /// Its split to run on.
    pub split: String,
    /// The engine: a catalog name (with optional `[overwrites]`) or an inline JSON artifact.
    pub engine: String,
    /// Where to write the predictions (JSON Lines; `-` or absent: stdout).
    pub output: Option<PathBuf>,
    /// The answer cache (SQLite file); absent: no cache.
    pub cache: Option<PathBuf>,
    /// Extra catalog directories.
    pub catalogs: Vec<PathBuf>,
    /// Whether to draw a progress bar.
    pub progress: bool,
    /// Log probabilities instead of text, and/or the metadata of each answer.
    pub options: InferOptions,
}

/// The error naming the instances of `inferred` that got no prediction (of `total`).
pub fn failed_error(inferred: &Inferred, total: usize, rest: &str) -> Error {
    let shown: Vec<String> = inferred.failed.iter().take(10).map(|f| format!("instance {}: {}", f.index, f.detail)).collect();
    let more = inferred.failed.len().saturating_sub(10);
    Error::io(format!(
        "{} of {} instances got no prediction{rest}: {}{}",
        inferred.failed.len(),
        total,
        shown.join("; "),
        if more > 0 { format!("; and {more} more") } else { String::new() }
    ))
}

/// Runs the subcommand. Every prediction received is written, also when some instances fail;
/// then the failed instances are an error naming them. A line is `{"index", "prediction"}`,
/// plus `infer_meta_data` (Unitxt's `TextGenerationInferenceOutput` but its `prediction`) with
/// `--meta-data`. The requests, retries, cached answers and tokens go to stderr.
pub fn run(args: InferArgs) -> Result<()> {
    let engine = unitxt::api::build_engine(&args.engine, &args.catalogs)?;
    let instances = match (&args.recipe, &args.data) {
        (Some(_), Some(_)) => return Err(Error::invalid("give either a RECIPE or --data, not both")),
        (None, None) => return Err(Error::invalid("give a RECIPE (with --split) or --data prepared.jsonl")),
        (None, Some(p)) => crate::evaluate_cmd::read_instances(p)?,
        (Some(r), None) => {
            let mut ms = prepare(r, &PrepareOptions { catalogs: args.catalogs.clone() })?;
            unitxt::stream::collect(ms.take(&args.split)?).with_ctx(|| format!("split {:?}", args.split))?
        }
    };
    let client = RunClient { cache: args.cache.clone(), progress: args.progress };
    let inferred = infer_with(&*engine.inner, &client, &instances, args.options)?;

    let mut text = String::new();
    for (i, p) in inferred.predictions.iter().enumerate() {
        if let Some(p) = p {
            let mut line = serde_json::Map::new();
            line.insert("index".into(), i.into());
            line.insert("prediction".into(), serde_json::Value::from(p.clone()));
            if let Some(Some(unitxt::Value::Object(meta))) = inferred.meta_data.get(i) {
                let mut meta = meta.clone();
                meta.shift_remove("prediction");
                line.insert("infer_meta_data".into(), serde_json::Value::from(unitxt::Value::Object(meta)));
            }
            text.push_str(&serde_json::to_string(&line).map_err(|e| Error::io(e.to_string()))?);
            text.push('\n');
        }
    }
    write_out(args.output.as_deref(), &text)?;
    let c = inferred.counts;
    eprintln!(
        "{} instances: {} requests sent ({} retries), {} answers from the cache, {} prompt + {} completion tokens",
        instances.len(),
        c.sent,
        c.retries,
        c.cached,
        c.prompt_tokens,
        c.completion_tokens
    );
    if inferred.failed.is_empty() {
        return Ok(());
    }
    Err(failed_error(&inferred, instances.len(), " (the others are written)"))
}

/// Writes `text` to `path` (atomically) or stdout.
fn write_out(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        None => std::io::stdout().write_all(text.as_bytes()).map_err(|e| Error::io(e.to_string())),
        Some(p) if p == Path::new("-") => std::io::stdout().write_all(text.as_bytes()).map_err(|e| Error::io(e.to_string())),
        Some(p) if crate::output::is_special_file(p) => std::fs::write(p, text).map_err(|e| Error::io(format!("writing {}: {e}", p.display()))),
        Some(p) => crate::outfile::write_atomic(p, text.as_bytes()),
    }
}
