//! `unitxt-rs io-floor`: the I/O floor of `prepare`, for benchmarks. Reads parquet files through
//! the same loader code as `load_hf` (Arrow cells turned into values as the `datasets` library
//! does) and writes every row unchanged as JSON Lines, with no recipe, operator or template.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use unitxt::error::{Result, ResultExt};
use unitxt::loaders::formats::parquet_stream;

/// Copies the rows of `inputs` (parquet files, in order) to `output` (`-` or absent: stdout) as
/// JSON Lines, and prints the number of rows written to stderr. Errors name the file that failed.
pub fn run(inputs: &[PathBuf], output: Option<&Path>) -> Result<()> {
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
            w.write_all(&unitxt::json_lines::instance_line(&row))?;
            n += 1;
        }
    }
    w.flush()?;
    eprintln!("{n} rows");
    Ok(())
}
