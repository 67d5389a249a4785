//! Errors of the engine.
//!
//! Every failure is an [`Error`]: a kind (used to pick the Python exception class and the CLI exit
//! code), a message, and a chain of context lines added on the way up ("in artifact
//! `cards.wnli`", "field `label`", "split `test`, instance 3"). Display prints the message
//! followed by the context, innermost first, so a user sees what failed and where.

use std::fmt;

/// What kind of failure this is. Mirrors the Python exception classes the bindings raise:
/// `NotFound` → `KeyError`, `FileNotFound` → `FileNotFoundError`, `Io` → `OSError`, everything
/// else → `ValueError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An artifact, field, split or config that does not exist.
    NotFound,
    /// A file or dataset that is not on disk (or in the local hub cache).
    FileNotFound,
    /// Malformed input: a recipe string, an artifact JSON, a value of the wrong type.
    Invalid,
    /// Reading or writing files failed.
    Io,
    /// An expression evaluated by the sandbox failed or exceeded its limits.
    Expression,
    /// A feature the engine does not support (yet), such as a metric that needs a model.
    Unsupported,
}

/// The engine's error: a kind, a message and the context it was raised in.
#[derive(Debug, Clone)]
pub struct Error {
    /// What went wrong, as a category (decides the exit code and the Python exception class).
    pub kind: ErrorKind,
    /// The innermost message, without its context lines.
    pub message: String,
    /// Context lines, innermost first.
    pub context: Vec<String>,
}

/// Result type used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with `message` and no context.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), context: Vec::new() }
    }
    /// Shorthand for an [`ErrorKind::Invalid`] error.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }
    /// Shorthand for an [`ErrorKind::NotFound`] error.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    /// Shorthand for an [`ErrorKind::FileNotFound`] error.
    pub fn file_not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::FileNotFound, message)
    }
    /// Shorthand for an [`ErrorKind::Io`] error.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }
    /// Shorthand for an [`ErrorKind::Unsupported`] error.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }
    /// Adds one line of context (outer to what is already there).
    pub fn context(mut self, line: impl Into<String>) -> Self {
        self.context.push(line.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        for c in &self.context {
            write!(f, "\n  {c}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::NotFound { ErrorKind::FileNotFound } else { ErrorKind::Io };
        Error::new(kind, e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::invalid(e.to_string())
    }
}

/// Adds context to results: `op().ctx("while loading card")?`.
pub trait ResultExt<T> {
    /// Adds a context line to the error, if any.
    fn ctx(self, line: impl Into<String>) -> Result<T>;
    /// Adds a lazily built context line to the error, if any.
    fn with_ctx<F: FnOnce() -> String>(self, f: F) -> Result<T>;
}

impl<T, E: Into<Error>> ResultExt<T> for std::result::Result<T, E> {
    fn ctx(self, line: impl Into<String>) -> Result<T> {
        self.map_err(|e| e.into().context(line))
    }
    fn with_ctx<F: FnOnce() -> String>(self, f: F) -> Result<T> {
        self.map_err(|e| e.into().context(f()))
    }
}
