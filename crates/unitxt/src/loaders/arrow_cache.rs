//! A local cache of decoded Parquet data as uncompressed Arrow IPC files, so that a dataset
//! read again skips decompression and page decoding. The `datasets` library does the same
//! (`load_dataset` writes Arrow files under `~/.cache/huggingface/datasets` and memory-maps them
//! afterwards), and Unitxt reads through it.
//!
//! - Where: `$UNITXT_RS_ARROW_CACHE` (a directory; `0`, `off`, `false` or `no` turns the cache off),
//!   else `unitxt-rs/arrow` in the user's cache directory ([`crate::catalog::user_cache_home`]:
//!   `$XDG_CACHE_HOME`, or `~/.cache`).
//! - What: one entry per (Parquet file, columns read), named by the MD5 of the file's canonical
//!   path, the columns, the batch size and [`FORMAT`]. The entry records the file's length and
//!   modification time: a changed file's entry is not used, and the next read replaces it.
//! - A prefix: a reader that stops early (`max_test_instances=200`) caches the batches it read
//!   (`rows` in the file's metadata, and `complete` false). A later read uses them, goes on in
//!   the Parquet file after them, and replaces the entry with a longer one.
//! - Best effort: a cache that cannot be written or read is skipped (the data comes from the
//!   Parquet file); entries are written to a temporary name and renamed when finished, so a
//!   reader never sees half a file.
//! - Batches keep their Arrow types; string views are compacted first (a view array of a
//!   Parquet batch points into whole dictionary pages, which would be written with every batch).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;

/// Bumped when the layout of entries changes, so that old entries are not read.
pub const FORMAT: &str = "unitxt-rs arrow cache 1";

/// The environment variable that moves or turns off the cache.
pub const CACHE_ENV: &str = "UNITXT_RS_ARROW_CACHE";

/// What marks a temporary entry file: `<entry>.arrow.tmp-<pid>-<n>`.
const TEMPORARY: &str = ".arrow.tmp-";

const META_ROWS: &str = "unitxt_rs_rows";
const META_SOURCE: &str = "unitxt_rs_source";
const META_COMPLETE: &str = "unitxt_rs_complete";

/// The cache directory (see the module docs); `None` when the cache is off.
pub fn cache_dir() -> Option<PathBuf> {
    cache_dir_from(std::env::var(CACHE_ENV).ok().as_deref(), crate::catalog::user_cache_home())
}

/// [`cache_dir`] from the value of `UNITXT_RS_ARROW_CACHE` and the user's cache directory
/// ([`crate::catalog::user_cache_home`]).
fn cache_dir_from(setting: Option<&str>, cache_home: Option<PathBuf>) -> Option<PathBuf> {
    match setting.map(str::trim) {
        Some(v) if matches!(v.to_ascii_lowercase().as_str(), "0" | "off" | "false" | "no") => None,
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => Some(cache_home?.join("unitxt-rs").join("arrow")),
    }
}

/// Where the entry of a Parquet file read for some columns lives, and what the file must still
/// be (its length and modification time) for the entry to hold its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryKey {
    /// The entry's file: `<dir>/<md5 of the canonical path, columns, batch size, FORMAT>.arrow`
    /// (one entry per file and columns: a changed file's entry replaces the old one).
    pub file: PathBuf,
    /// The Parquet file's length and modification time (`<bytes>:<secs>.<nanos>`), kept in the
    /// entry's metadata and compared when it is opened.
    pub source: String,
}

/// The entry of `path` read for `columns` (`None`: every column) in batches of `batch_rows`,
/// under `dir`; `None` when the file's metadata cannot be read.
pub fn entry_key(dir: &Path, path: &Path, columns: Option<&[String]>, batch_rows: usize) -> Option<EntryKey> {
    use md5::{Digest as _, Md5};
    let real = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&real).ok()?;
    let mtime = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    let columns = columns.map(|c| c.join("\u{1f}"));
    let key = format!("{FORMAT}\u{1e}{}\u{1e}{columns:?}\u{1e}{batch_rows}", real.display());
    let hex: String = Md5::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    Some(EntryKey {
        file: dir.join(format!("{hex}.arrow")),
        source: format!("{}:{}.{:09}", meta.len(), mtime.as_secs(), mtime.subsec_nanos()),
    })
}

/// A cache entry open for reading: its batches, the rows they hold, and whether they are the
/// whole file.
pub struct Entry {
    /// The entry's batches, in file order.
    pub reader: FileReader<std::io::BufReader<File>>,
    /// Rows in the entry.
    pub rows: usize,
    /// Whether the entry holds every row of the Parquet file.
    pub complete: bool,
}

/// Opens the entry of `key`; `None` when it is missing, unreadable, or made from another
/// version of the file (then it is not used).
pub fn open_entry(key: &EntryKey) -> Option<Entry> {
    let f = File::open(&key.file).ok()?;
    let reader = FileReader::try_new(std::io::BufReader::new(f), None).ok()?;
    let meta = reader.custom_metadata();
    if meta.get(META_SOURCE) != Some(&key.source) {
        return None;
    }
    let rows = meta.get(META_ROWS)?.parse().ok()?;
    let complete = meta.get(META_COMPLETE)? == "1";
    Some(Entry { reader, rows, complete })
}

/// An entry being written: batches go to a temporary file, renamed to the entry's name by
/// [`Writer::finish`] (dropped unfinished, the temporary file is removed).
pub struct Writer {
    target: PathBuf,
    source: String,
    tmp: PathBuf,
    writer: Option<FileWriter<BufWriter<File>>>,
    rows: usize,
}

impl Writer {
    /// Starts the entry of `key` for batches of `schema`; `None` when the directory or the
    /// file cannot be created.
    pub fn create(key: &EntryKey, schema: &arrow_schema::Schema) -> Option<Writer> {
        static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let target = &key.file;
        let dir = target.parent()?;
        std::fs::create_dir_all(dir).ok()?;
        remove_stale_temporaries(dir, STALE_AFTER);
        let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = target.with_extension(format!("{}{}-{n}", &TEMPORARY[1..], std::process::id()));
        let file = File::create(&tmp).ok()?;
        let mut out = Writer { target: target.clone(), source: key.source.clone(), tmp, writer: None, rows: 0 };
        out.writer = FileWriter::try_new(BufWriter::with_capacity(1 << 20, file), schema).ok();
        out.writer.is_some().then_some(out)
    }

    /// Appends `batch` (its string views compacted); a write error abandons the entry.
    pub fn write(&mut self, batch: &RecordBatch) {
        let Some(w) = self.writer.as_mut() else { return };
        let compact = compact_batch(batch);
        match compact.and_then(|b| w.write(&b)) {
            Ok(()) => self.rows += batch.num_rows(),
            Err(_) => self.writer = None,
        }
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Finishes the entry (`complete`: it holds every row of the file) and renames it into
    /// place, replacing an older entry.
    pub fn finish(mut self, complete: bool) {
        if let Some(mut w) = self.writer.take() {
            w.write_metadata(META_SOURCE, self.source.clone());
            w.write_metadata(META_ROWS, self.rows.to_string());
            w.write_metadata(META_COMPLETE, if complete { "1" } else { "0" });
            let done = w.finish().is_ok() && w.into_inner().ok().and_then(|b| b.into_inner().ok()).is_some();
            if done && std::fs::rename(&self.tmp, &self.target).is_ok() {
                return;
            }
        }
        let _ = std::fs::remove_file(&self.tmp);
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if self.writer.is_some() {
            self.writer = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The cache's files in `dir`: entries (`*.arrow`) and temporary entry files
/// (`*.arrow.tmp-*`), with their sizes in bytes, sorted by name. A missing directory has none.
pub fn cache_files(dir: &Path) -> Vec<(PathBuf, u64)> {
    let Ok(list) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(PathBuf, u64)> = list
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".arrow") || name.contains(TEMPORARY)
        })
        .filter_map(|e| Some((e.path(), e.metadata().ok().filter(|m| m.is_file())?.len())))
        .collect();
    out.sort();
    out
}

/// Removes the cache's files in `dir` (see [`cache_files`]; other files stay); returns how many
/// were removed and their bytes. Errors name the file that could not be removed.
pub fn clear(dir: &Path) -> crate::error::Result<(usize, u64)> {
    let mut removed = (0, 0);
    for (path, len) in cache_files(dir) {
        match std::fs::remove_file(&path) {
            Ok(()) => removed = (removed.0 + 1, removed.1 + len),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(crate::error::Error::from(e).context(format!("removing {}", path.display()))),
        }
    }
    Ok(removed)
}

/// How old a temporary entry file must be to count as left by a process that was killed while
/// writing it.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes the temporary entry files in `dir` last modified more than `age` ago (entries that
/// a killed process never finished); errors are ignored.
fn remove_stale_temporaries(dir: &Path, age: std::time::Duration) {
    let Ok(list) = std::fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    for e in list.flatten() {
        if !e.file_name().to_string_lossy().contains(TEMPORARY) {
            continue;
        }
        let old = e.metadata().and_then(|m| m.modified()).is_ok_and(|t| now.duration_since(t).is_ok_and(|d| d > age));
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// `batch` with every string or binary view array (at any depth) compacted to the bytes its
/// views use.
fn compact_batch(batch: &RecordBatch) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let columns: Vec<ArrayRef> = batch.columns().iter().map(compact).collect();
    RecordBatch::try_new(batch.schema(), columns)
}

fn compact(a: &ArrayRef) -> ArrayRef {
    use arrow_array::cast::AsArray;
    use arrow_array::{FixedSizeListArray, LargeListArray, ListArray, StructArray};
    use arrow_schema::DataType;
    match a.data_type() {
        DataType::Utf8View => Arc::new(a.as_string_view().gc()),
        DataType::BinaryView => Arc::new(a.as_binary_view().gc()),
        DataType::List(f) => {
            let l = a.as_list::<i32>();
            Arc::new(ListArray::new(f.clone(), l.offsets().clone(), compact(l.values()), l.nulls().cloned()))
        }
        DataType::LargeList(f) => {
            let l = a.as_list::<i64>();
            Arc::new(LargeListArray::new(f.clone(), l.offsets().clone(), compact(l.values()), l.nulls().cloned()))
        }
        DataType::FixedSizeList(f, n) => {
            let l = a.as_fixed_size_list();
            Arc::new(FixedSizeListArray::new(f.clone(), *n, compact(l.values()), l.nulls().cloned()))
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let cols = s.columns().iter().map(compact).collect();
            Arc::new(StructArray::new(fields.clone(), cols, s.nulls().cloned()))
        }
        _ => a.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_directory_follows_the_setting_then_the_user_cache() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(cache_dir_from(Some("/data/c"), p("/x")), p("/data/c"));
        assert_eq!(cache_dir_from(Some(" OFF "), p("/x")), None);
        assert_eq!(cache_dir_from(Some("0"), p("/x")), None);
        assert_eq!(cache_dir_from(Some(""), p("/x")), p("/x/unitxt-rs/arrow"));
        assert_eq!(cache_dir_from(None, p("/h/.cache")), p("/h/.cache/unitxt-rs/arrow"));
        assert_eq!(cache_dir_from(None, None), None);
    }

    #[test]
    fn temporaries_older_than_the_limit_are_removed() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-arrow-tmp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let old = dir.join("a.arrow.tmp-1-0");
        let fresh = dir.join("b.arrow.tmp-2-0");
        let entry = dir.join("c.arrow");
        for p in [&old, &fresh, &entry] {
            std::fs::write(p, b"x").unwrap();
        }
        let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        for p in [&old, &entry] {
            std::fs::File::options().write(true).open(p).unwrap().set_modified(two_hours_ago).unwrap();
        }
        remove_stale_temporaries(&dir, STALE_AFTER);
        let mut left: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, ["b.arrow.tmp-2-0", "c.arrow"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
