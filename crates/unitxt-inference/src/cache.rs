//! The persistent answer cache: one SQLite file (WAL mode), one committed row per answer.
//!
//! The idea is lm-evaluation-harness's `CachingLM` and Unitxt's `InferenceEngine` cache: an
//! answer is keyed by what determines it (here the endpoint and the request body, as
//! inspect_ai keys its model cache on the model and the request), so a rerun only sends what
//! is missing. Unlike a cache written at the end of a run, each answer is committed as soon
//! as it arrives, so a crash or a failed run loses nothing that was received.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The cache key of `body` POSTed to `url`: the SHA-256 (hex) of the URL (without a trailing
/// `/`) and the body with object keys sorted, so key order does not matter. The model
/// is part of the body. The API key and the run settings (retries, concurrency, timeouts) are
/// not part of it: they do not change the answer.
pub fn cache_key(url: &str, body: &Value) -> String {
    let mut text = String::new();
    text.push_str(url.trim_end_matches('/'));
    text.push('\n');
    write_canonical(body, &mut text);
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(text.as_bytes());
    let mut key = String::with_capacity(64);
    for b in digest {
        key.push(HEX[usize::from(b >> 4)] as char);
        key.push(HEX[usize::from(b & 15)] as char);
    }
    key
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// An open answer cache.
pub(crate) struct Cache {
    conn: Connection,
}

impl Cache {
    /// Opens (or creates, with its directory) the cache file at `path`, in WAL mode, with its
    /// table.
    pub(crate) fn open(path: &Path) -> rusqlite::Result<Cache> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // A directory that cannot be made shows as the open's own error below.
            let _ = std::fs::create_dir_all(dir);
        }
        let conn = Connection::open(path)?;
        // WAL: readers do not block the writer, and each commit is one append to the log.
        // synchronous NORMAL: a commit is in the log (the OS's buffers) when `put` returns, so
        // it survives the process being killed or crashing; only a power loss or an OS crash
        // may lose the last answers, which a rerun asks for again. FULL (an fsync per answer)
        // capped a run near a thousand answers a second.
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS answers (
                key TEXT PRIMARY KEY,
                request TEXT NOT NULL,
                answer TEXT NOT NULL
            )",
        )?;
        Ok(Cache { conn })
    }

    /// Opens an existing cache file read-only (the run's lookups; WAL lets it read while the
    /// run's writer commits).
    pub(crate) fn open_reader(path: &Path) -> rusqlite::Result<Cache> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        // Lookups read the file through a memory map, not a read call per page.
        conn.pragma_update(None, "mmap_size", 1i64 << 30)?;
        Ok(Cache { conn })
    }

    /// The JSON text of the cached answer under `key`, if any.
    pub(crate) fn get_text(&self, key: &str) -> rusqlite::Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT answer FROM answers WHERE key = ?1")?
            .query_row(params![key], |row| row.get(0))
            .optional()
    }

    /// Stores `answer` to the request whose JSON text is `request` under `key`, committed
    /// before returning.
    pub(crate) fn put(&self, key: &str, request: &str, answer: &Value) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO answers (key, request, answer) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![key, request, answer.to_string()])?;
        Ok(())
    }
}
