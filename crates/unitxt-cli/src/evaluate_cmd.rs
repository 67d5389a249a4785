//! `unitxt-rs evaluate`: scores predictions against prepared instances (a JSON Lines file from
//! `prepare`, or a recipe run on the spot), as Unitxt's `evaluate(predictions, data)`.

use std::path::{Path, PathBuf};

use unitxt::error::{Error, Result, ResultExt};
use unitxt::evaluate::{evaluate, parse_predictions, summary, EvaluateOptions};
use unitxt::api::{prepare, PrepareOptions};
use unitxt::{Instance, Value};

/// Arguments of the `evaluate` subcommand.
pub struct EvaluateArgs {
    /// A recipe to prepare (with `split`), instead of `data`.
    pub recipe: Option<String>,
    /// The split of `recipe` to evaluate on.
    pub split: String,
    /// Prepared instances (JSON Lines, as `prepare` writes them).
    pub data: Option<PathBuf>,
    /// The predictions file (or `engine`).
    pub predictions: Option<PathBuf>,
    /// An inference engine that makes the predictions (instead of `predictions`).
    pub engine: Option<String>,
    /// The answer cache of `engine` and of the judges.
    pub cache: Option<PathBuf>,
    /// The engine every LLM judge calls instead of its own (a catalog name or inline JSON).
    pub judge_engine: Option<String>,
    /// Where to write the scores as JSON (`-` for stdout).
    pub output: Option<PathBuf>,
    /// Extra catalog directories.
    pub catalogs: Vec<PathBuf>,
}

/// The instances of a JSON Lines file, read and parsed one line at a time as they are taken
/// (blank lines skipped), for `infer`. Errors: the file cannot be opened; then, as items, a
/// line that cannot be read or is not a JSON object (naming the file and line).
pub(crate) fn instance_lines(path: &Path) -> Result<unitxt::stream::Stream> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).map_err(|e| Error::io(format!("reading {}: {e}", path.display())))?;
    let name = path.display().to_string();
    let lines = std::io::BufReader::new(file).lines().enumerate();
    Ok(Box::new(lines.filter_map(move |(i, line)| match line {
        Err(e) => Some(Err(Error::io(format!("reading {name} line {}: {e}", i + 1)))),
        Ok(l) if l.trim().is_empty() => None,
        Ok(l) => Some(match serde_json::from_str::<Value>(&l) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(_) => Err(Error::invalid(format!("{name} line {}: not a JSON object", i + 1))),
            Err(e) => Err(Error::invalid(format!("{name} line {}: {e}", i + 1))),
        }),
    })))
}

/// Reads JSON Lines of instances, parsing lines in parallel; blank lines are skipped. Errors
/// name the file and the first bad line.
pub(crate) fn read_instances(path: &Path) -> Result<Vec<Instance>> {
    use rayon::prelude::*;
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading {}: {e}", path.display())))?;
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).collect();
    let parsed: Vec<std::result::Result<Instance, String>> = lines
        .par_iter()
        .map(|(i, line)| match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(_) => Err(format!("{} line {}: not a JSON object", path.display(), i + 1)),
            Err(e) => Err(format!("{} line {}: {e}", path.display(), i + 1)),
        })
        .collect();
    parsed.into_iter().map(|r| r.map_err(Error::invalid)).collect()
}

/// Runs the subcommand: prints the global scores table and writes the JSON scores.
pub fn run(args: EvaluateArgs) -> Result<()> {
    let instances = match (&args.recipe, &args.data) {
        (Some(_), Some(_)) => return Err(Error::invalid("give either a RECIPE or --data, not both")),
        (None, None) => return Err(Error::invalid("give a RECIPE (with --split) or --data prepared.jsonl")),
        (None, Some(p)) => read_instances(p)?,
        (Some(r), None) => {
            let mut ms = prepare(r, &PrepareOptions { catalogs: args.catalogs.clone() })?;
            unitxt::stream::collect(ms.take(&args.split)?).with_ctx(|| format!("split {:?}", args.split))?
        }
    };
    if instances.is_empty() {
        return Err(Error::invalid("the data has no instances (empty split?)"));
    }
    // The client of `--engine` and of the LLM judges among the metrics (each judge sends to its
    // own engine's endpoint), with the one answer cache.
    let client = std::sync::Arc::new(unitxt_inference::RunClient {
        cache: args.cache.clone(),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        respect_use_cache: false,
    });
    let predictions = match (&args.predictions, &args.engine) {
        (Some(path), None) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading {}: {e}", path.display())))?;
            parse_predictions(&text).with_ctx(|| path.display().to_string())?
        }
        (None, Some(engine)) => {
            let engine = unitxt::api::build_engine(engine, &args.catalogs)?;
            let inferred = unitxt::inference::infer(&*engine.inner, &*client, &instances)?;
            if !inferred.failed.is_empty() {
                return Err(crate::infer_cmd::failed_error(&inferred.failed, instances.len(), " (nothing is scored; with --cache a rerun sends only these)"));
            }
            inferred.predictions.into_iter().map(|p| p.unwrap_or(Value::Null)).collect()
        }
        _ => return Err(Error::invalid("give either --predictions or --engine")),
    };
    let judge_engine = match args.judge_engine.as_deref() {
        None => None,
        Some(e) if e.trim_start().starts_with('{') => {
            Some(unitxt::py::json::loads(e, false).map_err(|e| Error::invalid(format!("--judge-engine is not valid JSON: {e}")))?)
        }
        Some(e) => Some(Value::from(e)),
    };
    let opts = EvaluateOptions { catalogs: args.catalogs.clone(), model_client: Some(client), judge_engine, ..Default::default() };
    let res = evaluate(&instances, &predictions, &opts)?;
    let json = serde_json::to_string_pretty(&res.to_json()).map_err(|e| Error::io(e.to_string()))?;
    match args.output.as_deref() {
        Some(p) if p == Path::new("-") => outln!("{json}")?,
        Some(p) if crate::output::is_special_file(p) => {
            std::fs::write(p, json + "\n").map_err(|e| Error::io(format!("writing {}: {e}", p.display())).with_source(e))?;
            outln!("{}", summary(&res.global))?;
        }
        Some(p) => {
            crate::outfile::write_atomic(p, (json + "\n").as_bytes())?;
            outln!("{}", summary(&res.global))?;
        }
        None => outln!("{}", summary(&res.global))?,
    }
    Ok(())
}
