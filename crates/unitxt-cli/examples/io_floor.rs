//! The I/O floor of `unitxt-rs prepare`, for `scripts/bench.py` and `scripts/pgo.sh`; not part of
//! the shipped command. Reads Parquet files through the same loader code as `load_hf` (Arrow
//! cells turned into values as the `datasets` library does) and writes every row unchanged as
//! JSON Lines with the same line writer as `prepare`, with no recipe, operator or template.
//!
//!     cargo build --release -p unitxt-cli --example io_floor
//!     target/release/examples/io_floor FILE.parquet... [--output OUT]
//!
//! The number of rows written goes to stderr (`<n> rows`); so does an error, with exit status 1.
//! The process is set up as the `unitxt-rs` binary's is (the same global allocator and purge
//! delay; `build.rs` links both without PIE), so that the floor and `prepare` pay the same fixed
//! costs.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use unitxt::error::{Result, ResultExt};
use unitxt::loaders::formats::parquet_stream;

#[global_allocator]
static GLOBAL: unitxt_alloc::MiMalloc = unitxt_alloc::MiMalloc;

/// Benchmark baseline: copy parquet rows to JSON Lines through the loader, with no processing.
#[derive(Parser)]
#[command(name = "io_floor")]
struct Args {
    /// Parquet files to read, in order.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output JSON Lines file (`-` or absent for stdout).
    #[arg(long, short)]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    unitxt_alloc::set_purge_delay(1000);
    let args = Args::parse();
    match run(&args.inputs, args.output.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Copies the rows of `inputs` (parquet files, in order) to `output` (`-` or absent: stdout) as
/// JSON Lines, and prints the number of rows written to stderr. Errors name the file that failed.
fn run(inputs: &[PathBuf], output: Option<&Path>) -> Result<()> {
    let mut w: Box<dyn Write> = match output {
        None => Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout().lock())),
        Some(p) if p.as_os_str() == "-" => Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout().lock())),
        Some(p) => Box::new(BufWriter::with_capacity(
            1 << 20,
            File::create(p).with_ctx(|| format!("creating {}", p.display()))?,
        )),
    };
    let mut n: u64 = 0;
    for path in inputs {
        for row in parquet_stream(path)? {
            let row = row?;
            w.write_all(&unitxt::value::json_lines::instance_line(&row))?;
            n += 1;
        }
    }
    w.flush()?;
    eprintln!("{n} rows");
    Ok(())
}
