//! `unitxt-rs infer`: prepares a recipe's split (or reads prepared instances), runs an
//! inference engine artifact on it and writes one JSON line per instance with its prediction
//! (Unitxt's `engine.infer(dataset)`, or `infer_log_probs` with `--log-probs`).
//!
//! The engine (in the `unitxt` crate) builds the request bodies; [`RunClient`] sends them with
//! `unitxt_inference::run` (retries, rate limit, answer cache).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use unitxt::api::{prepare, PrepareOptions};
use unitxt::error::{Error, Result};
use unitxt::inference::{infer_each, FailedRequest, InferOptions, Predicted};
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

/// The error naming the instances of `failed` that got no prediction (of `total`).
pub fn failed_error(failed: &[FailedRequest], total: usize, rest: &str) -> Error {
    let shown: Vec<String> = failed.iter().take(10).map(|f| format!("instance {}: {}", f.index, f.detail)).collect();
    let more = failed.len().saturating_sub(10);
    Error::io(format!(
        "{} of {} instances got no prediction{rest}: {}{}",
        failed.len(),
        total,
        shown.join("; "),
        if more > 0 { format!("; and {more} more") } else { String::new() }
    ))
}

/// Runs the subcommand, streaming: instances are read (or prepared) as the engine's workers
/// take them, and each line is written as soon as the lines before it are, so memory does not
/// grow with the number of instances. A line is `{"index", "prediction"}`, plus
/// `infer_meta_data` (Unitxt's `TextGenerationInferenceOutput` but its `prediction`) with
/// `--meta-data`. Every prediction received is written, also when some instances fail or the
/// run stops on an error; then the failed instances are an error naming them. The requests,
/// retries, cached answers and tokens go to stderr.
pub fn run(args: InferArgs) -> Result<()> {
    let engine = unitxt::api::build_engine(&args.engine, &args.catalogs)?;
    let instances: unitxt::stream::Stream = match (&args.recipe, &args.data) {
        (Some(_), Some(_)) => return Err(Error::invalid("give either a RECIPE or --data, not both")),
        (None, None) => return Err(Error::invalid("give a RECIPE (with --split) or --data prepared.jsonl")),
        (None, Some(p)) => crate::evaluate_cmd::instance_lines(p)?,
        (Some(r), None) => {
            let mut ms = prepare(r, &PrepareOptions { catalogs: args.catalogs.clone() })?;
            unitxt::stream::locate_errors(&args.split, ms.take(&args.split)?)
        }
    };
    let mut out = Sink::open(args.output.as_deref())?;
    let client = RunClient { cache: args.cache.clone(), progress: args.progress, respect_use_cache: false };
    // Lines that arrived before an earlier one, until it is written (a window about the size
    // of the requests in flight).
    let mut waiting: BTreeMap<usize, Option<String>> = BTreeMap::new();
    let (mut next, mut total) = (0usize, 0usize);
    let mut failed: Vec<FailedRequest> = Vec::new();
    let mut write_error: Option<Error> = None;
    let result = infer_each(&*engine.inner, &client, instances, args.options, &mut |i, r| {
        total += 1;
        let line = match r {
            Ok(p) => Some(line_of(i, p)),
            Err(f) => {
                failed.push(f);
                None
            }
        };
        waiting.insert(i, line);
        while let Some(line) = waiting.remove(&next) {
            if let (Some(line), None) = (line, &write_error) {
                if let Err(e) = out.write_line(&line) {
                    write_error = Some(e);
                }
            }
            next += 1;
        }
    });
    // Whatever arrived is kept, in order, also after an error.
    for line in std::mem::take(&mut waiting).into_values().flatten() {
        if write_error.is_none() {
            if let Err(e) = out.write_line(&line) {
                write_error = Some(e);
            }
        }
    }
    let finished = out.finish();
    let counts = result?;
    if let Some(e) = write_error {
        return Err(e);
    }
    finished?;
    eprintln!(
        "{total} instances: {} requests sent ({} retries), {} answers from the cache, {} prompt + {} completion tokens",
        counts.sent, counts.retries, counts.cached, counts.prompt_tokens, counts.completion_tokens
    );
    if failed.is_empty() {
        return Ok(());
    }
    failed.sort_by_key(|f| f.index);
    Err(failed_error(&failed, total, " (the others are written)"))
}

/// The output line of instance `i`.
fn line_of(i: usize, p: Predicted) -> String {
    let mut line = serde_json::Map::new();
    line.insert("index".into(), i.into());
    line.insert("prediction".into(), serde_json::Value::from(p.prediction));
    if let Some(unitxt::Value::Object(mut meta)) = p.meta_data {
        meta.shift_remove("prediction");
        line.insert("infer_meta_data".into(), serde_json::Value::from(unitxt::Value::Object(meta)));
    }
    serde_json::Value::Object(line).to_string()
}

/// Where the lines go: stdout, a device, or a file that appears when the run ends (see
/// [`crate::outfile::Pending`]).
enum Sink {
    Stdout(std::io::BufWriter<std::io::Stdout>),
    Device(std::io::BufWriter<std::fs::File>, PathBuf),
    File(std::io::BufWriter<std::fs::File>, crate::outfile::Pending, PathBuf),
}

impl Sink {
    fn open(path: Option<&Path>) -> Result<Sink> {
        Ok(match path {
            None => Sink::Stdout(std::io::BufWriter::new(std::io::stdout())),
            Some(p) if p == Path::new("-") => Sink::Stdout(std::io::BufWriter::new(std::io::stdout())),
            Some(p) if crate::output::is_special_file(p) => {
                let f = std::fs::OpenOptions::new().write(true).open(p).map_err(|e| Error::io(format!("opening {}: {e}", p.display())))?;
                Sink::Device(std::io::BufWriter::new(f), p.to_path_buf())
            }
            Some(p) => {
                let mut pending = crate::outfile::Pending::beside(p)?;
                let f = pending.file().try_clone().map_err(|e| Error::io(format!("writing {}: {e}", p.display())))?;
                Sink::File(std::io::BufWriter::new(f), pending, p.to_path_buf())
            }
        })
    }

    fn write_line(&mut self, line: &str) -> Result<()> {
        let (w, name): (&mut dyn Write, String) = match self {
            Sink::Stdout(w) => (w, "stdout".into()),
            Sink::Device(w, p) | Sink::File(w, _, p) => (w, p.display().to_string()),
        };
        w.write_all(line.as_bytes()).and_then(|_| w.write_all(b"\n")).map_err(|e| Error::io(format!("writing {name}: {e}")).with_source(e))
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush().map_err(|e| Error::io(format!("writing stdout: {e}")).with_source(e)),
            Sink::Device(mut w, p) => w.flush().map_err(|e| Error::io(format!("writing {}: {e}", p.display())).with_source(e)),
            Sink::File(mut w, pending, p) => {
                w.flush().map_err(|e| Error::io(format!("writing {}: {e}", p.display())))?;
                drop(w);
                pending.commit()
            }
        }
    }
}
