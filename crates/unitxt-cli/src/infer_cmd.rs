//! `unitxt-rs infer`: prepares a recipe's split, runs an inference engine artifact on it and
//! writes one JSON line per instance with its prediction (Unitxt's `engine.infer(dataset)`).
//!
//! The engine (in the `unitxt` crate) builds the request bodies; [`RunClient`] sends them with
//! `unitxt_inference::run` (retries, rate limit, answer cache).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use unitxt::api::{prepare, PrepareOptions};
use unitxt::catalog::Catalog;
use unitxt::error::{Error, Result, ResultExt};
use unitxt::artifact::Art;
use unitxt::inference::{infer, InferenceEngine, Inferred};
use unitxt_inference::RunClient;
use unitxt::registry::Artifact;
use unitxt::Value;

/// Arguments of the `infer` subcommand.
pub struct InferArgs {
    /// The recipe to prepare.
    pub recipe: String,
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
}

/// Builds the engine `engine` names: a catalog name (with optional `[overwrites]`) or inline
/// JSON. Errors: it does not build, or it is not an inference engine.
pub fn build_engine(engine: &str, catalogs: &[PathBuf]) -> Result<Art<dyn InferenceEngine>> {
    let catalog = Arc::new(Catalog::standard(catalogs));
    let reference = if engine.trim_start().starts_with('{') {
        serde_json::from_str::<Value>(engine).map_err(|e| Error::invalid(format!("--engine is not valid JSON: {e}")))?
    } else {
        Value::from(engine)
    };
    match unitxt::registry::build(&reference, &catalog).with_ctx(|| format!("engine {engine}"))? {
        Artifact::Engine(e) => Ok(e),
        other => Err(Error::invalid(format!("--engine {engine} is a {}, not an inference engine", other.kind()))),
    }
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
/// then the failed instances are an error naming them.
pub fn run(args: InferArgs) -> Result<()> {
    let engine = build_engine(&args.engine, &args.catalogs)?;
    let mut ms = prepare(&args.recipe, &PrepareOptions { catalogs: args.catalogs.clone() })?;
    let instances = unitxt::stream::collect(ms.take(&args.split)?).with_ctx(|| format!("split {:?}", args.split))?;
    let client = RunClient { cache: args.cache.clone(), progress: args.progress };
    let inferred = infer(&*engine.inner, &client, &instances)?;

    let mut text = String::new();
    for (i, p) in inferred.predictions.iter().enumerate() {
        if let Some(p) = p {
            let line = unitxt::json!({"index": i, "prediction": serde_json::Value::from(p.clone())});
            text.push_str(&serde_json::to_string(&line).map_err(|e| Error::io(e.to_string()))?);
            text.push('\n');
        }
    }
    write_out(args.output.as_deref(), &text)?;
    if inferred.failed.is_empty() {
        return Ok(());
    }
    Err(failed_error(&inferred, instances.len(), " (the others are written)"))
}

/// Writes `text` to `path` (atomically) or stdout.
fn write_out(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        None => std::io::stdout().lock().write_all(text.as_bytes()).map_err(Error::from),
        Some(p) if p == Path::new("-") => std::io::stdout().lock().write_all(text.as_bytes()).map_err(Error::from),
        Some(p) if crate::output::is_special_file(p) => {
            std::fs::write(p, text).map_err(|e| Error::io(format!("writing {}: {e}", p.display())).with_source(e))
        }
        Some(p) => crate::outfile::write_atomic(p, text.as_bytes()),
    }
}
