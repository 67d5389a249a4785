//! Writing prepared splits as JSON Lines, atomically: output goes to a temporary file that is
//! renamed into place only when the whole split was written, so a failure never leaves a
//! half-written file (and never touches an existing one).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use unitxt::error::{Error, Result, ResultExt};
use std::sync::Arc;

use unitxt::recipe::{prepare as run_recipe, prepare_map, Finisher, PrepareOptions};
use unitxt::stream::{MultiStream, Stream, StreamOf};

fn bar(show: bool, split: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {prefix}: {pos} instances ({per_sec})").unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_prefix(split.to_string());
    pb
}

/// Writes a split's lines (serialized on the worker threads by [`prepare_lines`]) to `w`.
fn write_lines(lines: StreamOf<Vec<u8>>, w: &mut dyn Write, pb: &ProgressBar) -> Result<u64> {
    let mut n = 0;
    for line in lines {
        w.write_all(&line?)?;
        n += 1;
        if n % 256 == 0 {
            pb.set_position(n);
        }
    }
    pb.set_position(n);
    Ok(n)
}

/// The recipe's splits as JSON Lines lines, each serialized (and its instance dropped) on the
/// worker thread that prepared it.
fn prepare_lines(recipe: &str, catalogs: Vec<PathBuf>) -> Result<MultiStream<Vec<u8>>> {
    let line: Finisher<Vec<u8>> = Arc::new(|inst| Ok(inst.json_line()));
    prepare_map(recipe, &PrepareOptions { catalogs }, line)
}

fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Whether `path` names a Parquet file (extension `.parquet`): then the split is written as
/// Parquet with the schema of Unitxt's datasets instead of JSON Lines.
fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Whether `path` exists and is not a regular file (a device such as `/dev/null`, a FIFO, a
/// terminal): output is then written to it directly, since renaming a temporary file over it
/// would replace the device with a plain file.
pub fn is_special_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.file_type().is_file() && !m.is_dir())
}

/// One prepared split, in the shape its sink wants.
enum Split {
    /// JSON Lines lines (see [`prepare_lines`]).
    Lines(StreamOf<Vec<u8>>),
    /// Output instances, for the Parquet writer.
    Instances(Stream),
}

/// Writes `split` into the opened file `f`.
fn write_to(split: Split, f: File, pb: &ProgressBar) -> Result<u64> {
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let n = match split {
        Split::Instances(stream) => unitxt::sinks::parquet::write_parquet(stream, &mut w, |n| pb.set_position(n))?,
        Split::Lines(lines) => write_lines(lines, &mut w, pb)?,
    };
    w.flush()?;
    Ok(n)
}

/// Writes `split` to `path` via a temporary file renamed on success; straight into `path`
/// when it is a device or FIFO.
fn write_file_atomic(split: Split, path: &Path, pb: &ProgressBar) -> Result<u64> {
    if is_special_file(path) {
        let f = std::fs::OpenOptions::new().write(true).open(path).with_ctx(|| format!("opening {}", path.display()))?;
        return write_to(split, f, pb);
    }
    let tmp = tmp_path(path);
    let res = File::create(&tmp).with_ctx(|| format!("creating {}", tmp.display())).and_then(|f| write_to(split, f, pb));
    match res {
        Ok(n) => {
            std::fs::rename(&tmp, path).with_ctx(|| format!("moving output into {}", path.display()))?;
            Ok(n)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// `unitxt-rs prepare`.
pub fn prepare(recipe: &str, split: Option<&str>, output: Option<&Path>, catalogs: Vec<PathBuf>, progress: bool) -> Result<()> {
    match split {
        Some(s) => {
            let pb = bar(progress, s);
            match output.filter(|p| p.as_os_str() != "-") {
                Some(p) => {
                    // A `.parquet` path is written as Parquet, with the schema of Unitxt's datasets.
                    let split = if is_parquet(p) {
                        Split::Instances(run_recipe(recipe, &PrepareOptions { catalogs })?.take(s)?)
                    } else {
                        Split::Lines(prepare_lines(recipe, catalogs)?.take(s)?)
                    };
                    write_file_atomic(split, p, &pb)?
                }
                None => write_lines(prepare_lines(recipe, catalogs)?.take(s)?, &mut BufWriter::new(std::io::stdout().lock()), &pb)?,
            };
            pb.finish_and_clear();
        }
        None => {
            let mut ms = prepare_lines(recipe, catalogs)?;
            let dir = output.ok_or_else(|| Error::invalid("without --split, --output must name a directory"))?;
            std::fs::create_dir_all(dir).with_ctx(|| format!("creating {}", dir.display()))?;
            // Write every split to temporary files first; rename all only when all succeeded.
            let mut done = Vec::new();
            let names = ms.names();
            for name in names {
                let stream = ms.take(&name)?;
                let pb = bar(progress, &name);
                let path = dir.join(format!("{name}.jsonl"));
                let tmp = tmp_path(&path);
                let res = (|| {
                    let f = File::create(&tmp).with_ctx(|| format!("creating {}", tmp.display()))?;
                    let mut w = BufWriter::with_capacity(1 << 20, f);
                    write_lines(stream, &mut w, &pb)?;
                    w.flush()?;
                    Ok::<_, Error>(())
                })();
                pb.finish_and_clear();
                if let Err(e) = res {
                    let _ = std::fs::remove_file(&tmp);
                    for (t, _) in &done {
                        let _ = std::fs::remove_file(t);
                    }
                    return Err(e);
                }
                done.push((tmp, path));
            }
            for (t, p) in done {
                std::fs::rename(&t, &p).with_ctx(|| format!("moving output into {}", p.display()))?;
            }
        }
    }
    Ok(())
}
