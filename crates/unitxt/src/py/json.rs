//! Python's `json.dumps`, byte for byte.

use crate::value::Value;

/// Options of `json.dumps` that Unitxt uses.
#[derive(Debug, Clone, Copy)]
pub struct DumpOptions {
    /// `ensure_ascii` (default true): non-ASCII as `\uXXXX` (surrogate pairs above U+FFFF).
    pub ensure_ascii: bool,
    /// `sort_keys` (default false).
    pub sort_keys: bool,
    /// `indent`: None for one line.
    pub indent: Option<usize>,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions { ensure_ascii: true, sort_keys: false, indent: None }
    }
}

/// `json.dumps(v)` with default separators (`", "`, `": "`), floats as Python's `float.__repr__`.
pub fn dumps(_v: &Value, _opts: DumpOptions) -> String {
    unimplemented!()
}
