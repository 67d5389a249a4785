//! Writing prepared splits as JSON Lines, atomically: output goes to a temporary file that is
//! renamed into place only when the whole split was written, so a failure never leaves a
//! half-written file (and never touches an existing one).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use unitxt::error::{Error, Result, ResultExt};

use crate::outfile::{create_dirs, remove_created, Pending};
use std::sync::Arc;

use unitxt::api::{prepare_map, PrepareOptions};
use unitxt::recipe::Finisher;
use unitxt::sinks::arrow::ArrowRow;
use unitxt::sinks::spares::Spares;
use unitxt::stream::{MultiStream, StreamOf};

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

/// Line buffers already written out, kept for the workers of [`prepare_lines`] to fill again
/// (see [`Spares`]). Buffers are only reused, so there are never more of them than lines alive
/// at once (the chunks in flight).
static SPARE_LINES: Spares<Vec<u8>> = Spares::new(SPARE_LINES_MAX);

/// At most this many spare line buffers are kept.
const SPARE_LINES_MAX: usize = 2048;

/// Buffers that grew past this many bytes (a very long line) are freed, not kept.
const SPARE_LINE_MAX_BYTES: usize = 64 * 1024;

thread_local! {
    /// The spare line buffers this thread has taken from [`SPARE_LINES`]: buffers for reuse,
    /// not a cache, at most [`Spares::REFILL`] per thread (a thread takes more only when it
    /// has none left).
    static LINE_STASH: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A line buffer to fill: a spare one (emptied), or a new one of 1 KiB.
fn line_buffer() -> Vec<u8> {
    match LINE_STASH.with(|stash| SPARE_LINES.take(stash)) {
        Some(mut b) => {
            b.clear();
            b
        }
        None => Vec::with_capacity(1024),
    }
}

/// Hands written lines' buffers back to [`SPARE_LINES`] for the workers to fill again (each
/// dropped instead when the pool is full or the buffer grew past [`SPARE_LINE_MAX_BYTES`]).
fn recycle_lines(lines: impl Iterator<Item = Vec<u8>>) {
    SPARE_LINES.give_back(lines, |line| line.capacity() <= SPARE_LINE_MAX_BYTES);
}

/// [`write_lines`] hands lines to the writer in batches of this many bytes at least (or
/// [`BATCH_MAX_LINES`] lines), one vectored write each.
const BATCH_BYTES: usize = 256 * 1024;

/// At most this many lines in a batch of [`write_lines`] (Linux's `IOV_MAX`, the most buffers
/// one `writev` takes).
const BATCH_MAX_LINES: usize = 1024;

/// Writes a split's lines (serialized on the worker threads by [`prepare_lines`]) to `w`, in
/// batches written with `write_vectored` straight from the line buffers: the reading thread
/// does not copy the lines into a buffer of its own (on two threads that copy read every line
/// out of the other core's cache). On an error of the stream, the lines before it are written
/// before the error is returned. `w` should be unbuffered, or buffered with less room than a
/// batch ([`BATCH_BYTES`]), for the lines to go to the file without a copy.
fn write_lines(lines: StreamOf<Vec<u8>>, w: &mut dyn Write, pb: &ProgressBar) -> Result<u64> {
    let mut n = 0;
    let mut batch: Vec<Vec<u8>> = Vec::with_capacity(BATCH_MAX_LINES);
    let mut batch_bytes = 0;
    for line in lines {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                // The lines before the error are written (to stdout they stay; a file is
                // removed by the caller).
                write_batch(w, &mut batch)?;
                return Err(e);
            }
        };
        batch_bytes += line.len();
        batch.push(line);
        n += 1;
        if batch_bytes >= BATCH_BYTES || batch.len() == BATCH_MAX_LINES {
            write_batch(w, &mut batch)?;
            batch_bytes = 0;
        }
        if n % 256 == 0 {
            pb.set_position(n);
        }
    }
    write_batch(w, &mut batch)?;
    pb.set_position(n);
    Ok(n)
}

/// Writes the lines of `batch` to `w` in order (vectored writes until all bytes are taken), then
/// hands their buffers back for reuse, leaving `batch` empty.
fn write_batch(w: &mut dyn Write, batch: &mut Vec<Vec<u8>>) -> std::io::Result<()> {
    let mut slices: Vec<std::io::IoSlice<'_>> = batch.iter().map(|l| std::io::IoSlice::new(l)).collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match w.write_vectored(rest) {
            Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "failed to write the whole output")),
            Ok(k) => std::io::IoSlice::advance_slices(&mut rest, k),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    drop(slices);
    recycle_lines(batch.drain(..));
    Ok(())
}

/// The recipe's splits as JSON Lines lines, each serialized (and its instance dropped) on the
/// worker thread that prepared it.
fn prepare_lines(recipe: &str, catalogs: Vec<PathBuf>) -> Result<MultiStream<Vec<u8>>> {
    let line: Finisher<Vec<u8>> = Arc::new(|inst: unitxt::recipe::OutputInstance<'_>| {
        let mut out = line_buffer();
        inst.write_json(&mut out);
        out.push(b'\n');
        Ok(out)
    });
    prepare_map(recipe, &PrepareOptions { catalogs }, line)
}

/// The recipe's splits as Arrow rows, each built (and its instance dropped) on the worker
/// thread that prepared it.
fn prepare_rows(recipe: &str, catalogs: Vec<PathBuf>) -> Result<MultiStream<ArrowRow>> {
    let row: Finisher<ArrowRow> = Arc::new(|inst: unitxt::recipe::OutputInstance<'_>| ArrowRow::from_output(&inst));
    prepare_map(recipe, &PrepareOptions { catalogs }, row)
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
    /// Arrow rows (see [`prepare_rows`]), for the Parquet writer.
    Rows(StreamOf<ArrowRow>),
}

/// Writes `split` into the opened file `f` (lines batched by [`write_lines`], Parquet through a
/// buffer).
fn write_to(split: Split, f: &mut File, pb: &ProgressBar) -> Result<u64> {
    match split {
        Split::Rows(rows) => {
            let mut w = BufWriter::with_capacity(1 << 20, f);
            let n = unitxt::sinks::parquet::write_parquet(rows, &mut w, |n| pb.set_position(n))?;
            w.flush()?;
            Ok(n)
        }
        Split::Lines(lines) => write_lines(lines, f, pb),
    }
}

/// An I/O error (a full disk) in writing output `path` says so, naming the user's path rather
/// than the temporary file's; other errors are left as they are.
fn naming(path: &Path) -> impl Fn(Error) -> Error + '_ {
    move |e| if e.kind == unitxt::ErrorKind::Io { e.context(format!("writing {}", path.display())) } else { e }
}

/// Writes `split` to `path` through a temporary file beside it ([`Pending`]), renamed over it
/// on success and removed otherwise; straight into `path` when it is a device or FIFO. I/O
/// errors name `path`.
fn write_file_atomic(split: Split, path: &Path, pb: &ProgressBar) -> Result<u64> {
    let named = naming(path);
    if is_special_file(path) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).with_ctx(|| format!("opening {}", path.display()))?;
        return write_to(split, &mut f, pb).map_err(named);
    }
    let mut tmp = Pending::beside(path)?;
    let n = write_to(split, tmp.file(), pb).map_err(named)?;
    tmp.commit()?;
    Ok(n)
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
                        Split::Rows(prepare_rows(recipe, catalogs)?.take(s)?)
                    } else {
                        Split::Lines(prepare_lines(recipe, catalogs)?.take(s)?)
                    };
                    write_file_atomic(split, p, &pb)?
                }
                None => {
                    // Flushed here, not on drop, so that a failed last write is reported.
                    let mut out = BufWriter::new(std::io::stdout().lock());
                    let n = write_lines(prepare_lines(recipe, catalogs)?.take(s)?, &mut out, &pb)?;
                    out.flush()?;
                    n
                }
            };
            pb.finish_and_clear();
        }
        None => {
            let mut ms = prepare_lines(recipe, catalogs)?;
            let dir = output.ok_or_else(|| Error::invalid("without --split, --output must name a directory"))?;
            let made = create_dirs(dir)?;
            // Every split goes to a temporary file first; all are renamed only when all
            // succeeded. On an error nothing this run created is left.
            let res = (|| {
                let mut done = Vec::new();
                for name in ms.names() {
                    let stream = ms.take(&name)?;
                    let pb = bar(progress, &name);
                    let path = dir.join(format!("{name}.jsonl"));
                    let mut tmp = Pending::beside(&path)?;
                    write_lines(stream, tmp.file(), &pb).map_err(naming(&path))?;
                    pb.finish_and_clear();
                    done.push(tmp);
                }
                done.into_iter().try_for_each(Pending::commit)
            })();
            if res.is_err() {
                remove_created(&made);
            }
            res?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes at most seven bytes per write, so vectored writes are partial and resume mid-line.
    struct Trickle(Vec<u8>);

    impl Write for Trickle {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let n = b.len().min(7);
            self.0.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn numbered_lines(n: usize) -> Vec<Vec<u8>> {
        (0..n).map(|i| format!("{{\"i\":{i}}}\n").into_bytes()).collect()
    }

    /// Lines go out whole and in order across batches (2,500 lines: two full batches of 1,024
    /// and a last one) through partial writes; on an error, the lines before it are written
    /// first and the error is returned.
    #[test]
    fn lines_are_written_in_order_across_batches_and_before_an_error() {
        let mut w = Trickle(Vec::new());
        let lines = numbered_lines(2500).into_iter().map(Ok);
        assert_eq!(write_lines(Box::new(lines), &mut w, &ProgressBar::hidden()).unwrap(), 2500);
        assert_eq!(w.0, numbered_lines(2500).concat());

        let mut w = Trickle(Vec::new());
        let lines = numbered_lines(1500).into_iter().map(Ok).chain([Err(Error::invalid("the 1501st failed"))]);
        let e = write_lines(Box::new(lines), &mut w, &ProgressBar::hidden()).unwrap_err();
        assert!(e.to_string().contains("the 1501st failed"), "{e}");
        assert_eq!(w.0, numbered_lines(1500).concat());
    }

    /// A written line's buffer comes back emptied with its room; a buffer that grew past the
    /// limit is freed instead of kept, and the pool keeps at most its limit.
    #[test]
    fn line_buffers_are_reused_emptied_and_long_ones_dropped() {
        SPARE_LINES.clear();
        LINE_STASH.with(|s| s.borrow_mut().clear());
        let mut a = line_buffer();
        assert_eq!(a.capacity(), 1024);
        a.extend_from_slice(&[b'x'; 3000]);
        let (ptr, cap) = (a.as_ptr(), a.capacity());
        recycle_lines(std::iter::once(a));
        assert_eq!(SPARE_LINES.len(), 1);
        let b = line_buffer();
        assert_eq!((b.as_ptr(), b.capacity(), b.len()), (ptr, cap, 0));
        recycle_lines(std::iter::once(Vec::with_capacity(SPARE_LINE_MAX_BYTES + 1)));
        assert_eq!((SPARE_LINES.len(), LINE_STASH.with(|s| s.borrow().len())), (0, 0));
        // Another thread's buffer is kept too, for whichever thread takes it.
        let theirs = std::thread::spawn(|| Vec::<u8>::with_capacity(1024)).join().unwrap();
        let theirs_ptr = theirs.as_ptr();
        recycle_lines(std::iter::once(theirs));
        assert_eq!(SPARE_LINES.len(), 1);
        assert_eq!(SPARE_LINES.take(&std::cell::RefCell::new(Vec::new())).map(|b| b.as_ptr()), Some(theirs_ptr));
        for _ in 0..2 * SPARE_LINES_MAX + 5 {
            recycle_lines(std::iter::once(Vec::with_capacity(16)));
        }
        assert_eq!(SPARE_LINES.len(), SPARE_LINES_MAX);
        SPARE_LINES.clear();
        LINE_STASH.with(|s| s.borrow_mut().clear());
    }
}
