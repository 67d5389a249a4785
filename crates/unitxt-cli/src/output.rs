//! Writing prepared splits as JSON Lines, atomically: output goes to a temporary file that is
//! renamed into place only when the whole split was written, so a failure never leaves a
//! half-written file (and never touches an existing one).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use unitxt::error::{Error, Result, ResultExt};
use unitxt::recipe::{prepare as run_recipe, PrepareOptions};
use unitxt::stream::Stream;

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

fn write_stream(stream: Stream, w: &mut dyn Write, pb: &ProgressBar) -> Result<u64> {
    let mut n = 0;
    // Lines are serialized (and the instances dropped) on the worker threads, in order; this
    // thread only writes the bytes.
    let lines = unitxt::stream::par_map_with(stream, |_, inst| {
        Ok(unitxt::json_lines::instance_line(&inst))
    });
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

/// Writes `stream` into the opened file `f`: Parquet when `path` ends in `.parquet`, else JSON
/// Lines.
fn write_to(stream: Stream, f: File, path: &Path, pb: &ProgressBar) -> Result<u64> {
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let n = if is_parquet(path) {
        unitxt::sinks::parquet::write_parquet(stream, &mut w, |n| pb.set_position(n))?
    } else {
        write_stream(stream, &mut w, pb)?
    };
    w.flush()?;
    Ok(n)
}

/// Writes `stream` to `path` (JSON Lines, or Parquet for a `.parquet` path) via a temporary
/// file renamed on success; straight into `path` when it is a device or FIFO.
fn write_file_atomic(stream: Stream, path: &Path, pb: &ProgressBar) -> Result<u64> {
    if is_special_file(path) {
        let f = std::fs::OpenOptions::new().write(true).open(path).with_ctx(|| format!("opening {}", path.display()))?;
        return write_to(stream, f, path, pb);
    }
    let tmp = tmp_path(path);
    let res = File::create(&tmp).with_ctx(|| format!("creating {}", tmp.display())).and_then(|f| write_to(stream, f, path, pb));
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
    let mut ms = run_recipe(recipe, &PrepareOptions { catalogs })?;
    match split {
        Some(s) => {
            let stream = ms.take(s)?;
            let pb = bar(progress, s);
            match output {
                None => write_stream(stream, &mut BufWriter::new(std::io::stdout().lock()), &pb)?,
                Some(p) if p.as_os_str() == "-" => write_stream(stream, &mut BufWriter::new(std::io::stdout().lock()), &pb)?,
                Some(p) => write_file_atomic(stream, p, &pb)?,
            };
            pb.finish_and_clear();
        }
        None => {
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
                    write_stream(stream, &mut w, &pb)?;
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
