//! `unitxt-rs`: prepare Unitxt recipes into model-ready JSON Lines, and manage the catalog.

/// `println!` that returns the write's error instead of panicking: stdout may be a pipe whose
/// reader is gone (`unitxt-rs ... | head`). Evaluates to a [`unitxt::Result`] whose error keeps
/// the `io::Error` as its source, for [`is_broken_pipe`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(unitxt::Error::from)
    }};
}

mod cache_cmd;
mod catalog_cmd;
mod evaluate_cmd;
mod infer_cmd;
mod outfile;
mod output;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc (see `unitxt_alloc`). Version 2: with two threads, version 3 spent twice as long
/// collecting frees across threads (SST-2 train).
#[global_allocator]
static GLOBAL: unitxt_alloc::MiMalloc = unitxt_alloc::MiMalloc;

/// Prepare and evaluate textual datasets for generative AI, compatible with Unitxt's catalog.
#[derive(Parser)]
#[command(name = "unitxt-rs", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a recipe (`card=...,template=...`) and write its instances as JSON Lines.
    Prepare {
        /// Unitxt recipe: comma-separated key=value pairs, or a dataset_recipe catalog name.
        recipe: String,
        /// Split to write; without it every split is written to `<OUTPUT>/<split>.jsonl`.
        #[arg(long)]
        split: Option<String>,
        /// Output file (with --split; `-` or absent for stdout; a `.parquet` name writes Parquet
        /// with the columns of Unitxt's datasets) or directory (without --split).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Extra catalog directory (repeatable; the last one given has the highest precedence).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
    },
    /// Score predictions (a file, or made by `--engine`) as Unitxt's `evaluate`: against
    /// prepared instances (`--data`) or a recipe's split; prints the global scores and writes
    /// all scores as JSON (`--output`).
    Evaluate {
        /// Unitxt recipe to prepare instead of giving `--data`.
        recipe: Option<String>,
        /// Split of the recipe to evaluate on.
        #[arg(long, default_value = "test")]
        split: String,
        /// Prepared instances (JSON Lines written by `prepare`).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Predictions: a JSON array of strings, or JSON Lines of strings or of objects with a
        /// `prediction` field; one per instance, in order.
        #[arg(long, required_unless_present = "engine", conflicts_with = "engine")]
        predictions: Option<PathBuf>,
        /// Make the predictions with this inference engine (as `infer --engine`) instead.
        #[arg(long)]
        engine: Option<String>,
        /// Answer cache (an SQLite file) of `--engine` and of the LLM judges among the metrics.
        #[arg(long)]
        cache: Option<PathBuf>,
        /// The inference engine every LLM judge among the metrics calls instead of its own (a
        /// catalog name with optional `[overwrites]`, or inline JSON), as the overwrite
        /// `metric[inference_engine=...]` would set it.
        #[arg(long)]
        judge_engine: Option<String>,
        /// Where to write `{"global", "instances", "subsets", "groups"}` as JSON (`-`: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Extra catalog directory (repeatable).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
    },
    /// Run an inference engine (a catalog name such as `engines.openai.gpt_4o`, or inline
    /// JSON) on a recipe's split, as Unitxt's `engine.infer(dataset)`, and write one JSON line
    /// per instance: `{"index": i, "prediction": ...}`. Instances whose request failed are
    /// left out and named in the error (exit code 4); the others are written.
    Infer {
        /// Unitxt recipe to prepare (or give --data).
        recipe: Option<String>,
        /// Prepared instances (JSON Lines, as `prepare` writes them) instead of a recipe.
        #[arg(long)]
        data: Option<PathBuf>,
        /// Ask for the log probabilities of the generated tokens (Unitxt's `infer_log_probs`).
        #[arg(long)]
        log_probs: bool,
        /// Add each answer's `infer_meta_data` (tokens, model, label) to its line.
        #[arg(long)]
        meta_data: bool,
        /// Split to run on.
        #[arg(long, default_value = "test")]
        split: String,
        /// The inference engine: a catalog name (with optional `[key=value]` overwrites) or a
        /// JSON object with `__type__`.
        #[arg(long)]
        engine: String,
        /// Output file (JSON Lines; `-` or absent: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Answer cache (an SQLite file): answers received are kept, a rerun sends only what is
        /// missing.
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Extra catalog directory (repeatable).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
    },
    /// Inspect or clear the local Arrow cache of decoded Parquet data
    /// (`~/.cache/unitxt-rs/arrow`, or `$UNITXT_RS_ARROW_CACHE`).
    Cache {
        #[command(subcommand)]
        command: cache_cmd::CacheCommand,
    },
    /// Serve the explorer, a local web page to browse the catalog, build a recipe, preview its
    /// instances, compare two recipes and score predictions (http://127.0.0.1:8377).
    Explore {
        /// Extra catalog directory (repeatable; the last one given has the highest precedence).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 8377)]
        port: u16,
        /// Address to bind; the default serves this machine only.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Open the page in the default web browser.
        #[arg(long)]
        open: bool,
        /// The inference engine of the page's Infer button, as `infer --engine` takes it: a
        /// catalog name (`engines.x[model_name=m]`) or inline JSON.
        #[arg(long)]
        engine: Option<String>,
        /// Base URL of an OpenAI-compatible endpoint (`http://localhost:8000/v1`) for the
        /// page's Infer button (an `open_ai_inference_engine` on it), when `--engine` is not given.
        #[arg(long)]
        model_url: Option<String>,
        /// Model name sent to the endpoint.
        #[arg(long)]
        model: Option<String>,
        /// Environment variable holding the endpoint's API key.
        #[arg(long, default_value = "OPENAI_API_KEY")]
        api_key_env: String,
    },
    /// Manage the Unitxt catalog.
    Catalog {
        #[command(subcommand)]
        command: catalog_cmd::CatalogCommand,
    },
}

/// `unitxt-rs explore`: serves the explorer until interrupted; prints its address once bound.
fn explore(config: unitxt_explore::Config, port: u16, host: &str, open: bool) -> unitxt::Result<()> {
    unitxt_explore::serve_blocking(config, host, port, |addr| {
        let url = format!("http://{addr}/");
        // The server keeps running when nobody reads its address.
        let _ = outln!("unitxt-rs explorer: {url}  (Ctrl-C stops it)");
        if open {
            let opener = if cfg!(target_os = "macos") { "open" } else if cfg!(windows) { "explorer" } else { "xdg-open" };
            if let Err(e) = std::process::Command::new(opener).arg(&url).spawn() {
                eprintln!("could not open a browser ({opener}: {e}); open {url} yourself");
            }
        }
    })
    .map_err(|e| unitxt::Error::io(format!("explorer on {host}:{port}: {e}")))
}

/// Whether `e` came from writing into a pipe whose reader has exited (`io::ErrorKind::BrokenPipe`
/// anywhere in its chain of sources): the output is no longer wanted, and the command ends
/// quietly with status 0, as `head`'s input does (and ripgrep).
fn is_broken_pipe(e: &unitxt::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) {
            return true;
        }
        cause = c.source();
    }
    false
}

fn main() -> ExitCode {
    // A run lasts seconds: memory freed by one pipeline thread is kept for reuse rather than
    // returned to the OS after mimalloc's default 10 ms (see `unitxt_alloc::set_purge_delay`).
    unitxt_alloc::set_purge_delay(1000);
    let cli = Cli::parse();
    outfile::remove_on_signal();
    let res = match cli.command {
        Command::Prepare { recipe, split, output, catalogs } => {
            output::prepare(&recipe, split.as_deref(), output.as_deref(), catalogs, std::io::stderr().is_terminal())
        }
        Command::Evaluate { recipe, split, data, predictions, engine, cache, judge_engine, output, catalogs } => {
            evaluate_cmd::run(evaluate_cmd::EvaluateArgs { recipe, split, data, predictions, engine, cache, judge_engine, output, catalogs })
        }
        Command::Infer { recipe, data, log_probs, meta_data, split, engine, output, cache, catalogs } => infer_cmd::run(infer_cmd::InferArgs {
            recipe,
            data,
            options: unitxt::inference::InferOptions { log_probs, meta_data },
            split,
            engine,
            output,
            cache,
            catalogs,
            progress: std::io::stderr().is_terminal(),
        }),
        Command::Cache { command } => cache_cmd::run(command),
        Command::Catalog { command } => catalog_cmd::run(command),
        Command::Explore { catalogs, port, host, open, engine, model_url, model, api_key_env } => {
            let api_key = std::env::var(&api_key_env).ok().filter(|k| !k.is_empty());
            let config = unitxt_explore::Config { catalogs, engine, model_url, model, api_key };
            explore(config, port, &host, open)
        }
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(match e.kind {
                unitxt::ErrorKind::NotFound | unitxt::ErrorKind::FileNotFound => 3,
                unitxt::ErrorKind::Io => 4,
                _ => 2,
            })
        }
    }
}
