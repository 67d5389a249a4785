//! Errors of the engine.
//!
//! Every failure is an [`Error`]: a kind (used to pick the Python exception class and the CLI exit
//! code), a message, a chain of context lines added on the way up ("in artifact
//! `cards.wnli`", "field `label`", "split `test`, instance 3"), the same location as data
//! ([`Location`]: artifact, field, split, instance index) for callers to match on, and the
//! error it came from ([`std::error::Error::source`]). Display prints the message followed by
//! the context, innermost first, so a user sees what failed and where.

use std::fmt;
use std::sync::Arc;

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

/// What an artifact needs that this engine does not have, when it cannot work here although
/// it is well formed (see [`Unavailable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Need {
    /// A model, an LLM judge or an inference engine (a metric that scores with a model, an
    /// inference engine that cannot be called from here, a judge whose engine cannot be).
    Model,
    /// The network: a loader or operator that fetches from a service (`load_from_hf_space`,
    /// `load_from_kaggle`, `wikipedia_fetcher`, a URL), or data that must be downloaded first
    /// (NLTK's wordnet for METEOR).
    Network,
    /// An endpoint to call, and nothing else: an inference engine that calls an
    /// OpenAI-compatible API, or an LLM judge whose engine does (`unitxt-rs catalog check`
    /// counts these apart; they run once given the endpoint and its key).
    Endpoint,
}

/// Why a well-formed artifact cannot work here: what it [`Need`]s, and a sentence saying so
/// (for `unitxt-rs catalog check`, which counts such artifacts apart from those that fail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// What is missing.
    pub need: Need,
    /// The reason, as one line ("metric `bert_score` needs a model ...").
    pub reason: String,
}

/// Where an error happened, as far as the engine knows: each part is set once, by the
/// innermost code that knows it (an error inside a nested artifact names that artifact).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The catalog name of the artifact being built (`cards.wnli`, `templates.x[k=v]`).
    pub artifact: Option<String>,
    /// The field (or field path) being read or written.
    pub field: Option<String>,
    /// The split of the instance.
    pub split: Option<String>,
    /// The 0-based position of the instance in its split's stream, where it failed.
    pub instance: Option<usize>,
}

/// What failed, as data, for the failures that callers act on: code decides on these (and on
/// [`ErrorKind`]), never on the message. The Python bindings raise each as its own exception
/// class with these fields as attributes (`unitxt_rs.errors`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Reason {
    /// Nothing more specific than the kind and the message.
    #[default]
    Other,
    /// An artifact's `__type__` that no artifact type has (Unitxt: an unregistered class).
    UnknownType {
        /// The `__type__` given.
        ty: String,
        /// The nearest known type, when one is close.
        suggestion: Option<String>,
    },
    /// A key of an artifact that is not a field of its type (Unitxt's
    /// `UnexpectedArgumentError`).
    UnknownField {
        /// The artifact's `__type__`.
        ty: String,
        /// The key given.
        field: String,
        /// The nearest field of the type, when one is close.
        suggestion: Option<String>,
    },
    /// A split of the data that does not exist (a recipe's `--split`, a stream operator's
    /// split).
    MissingSplit {
        /// The split asked for.
        split: String,
        /// The splits there are, in order.
        available: Vec<String>,
    },
    /// The split a recipe's demos pool is taken from (`demos_taken_from`) does not exist.
    MissingDemosSplit {
        /// The split asked for.
        split: String,
        /// The splits there are, in order.
        available: Vec<String>,
    },
    /// A catalog name that no catalog has.
    NotFound {
        /// The name looked up (without overwrites).
        artifact: String,
    },
    /// A well-formed artifact that needs something this engine does not have here.
    Needs(Unavailable),
    /// Artifacts that refer to each other in a cycle.
    ReferenceCycle {
        /// The names on the cycle, the first repeated last.
        path: Vec<String>,
    },
}

/// The engine's error: a kind, what failed as data, a message, the context it was raised in,
/// where (as data) and the error it came from.
#[derive(Debug, Clone)]
pub struct Error {
    /// What went wrong, as a category (decides the exit code and the Python exception class).
    pub kind: ErrorKind,
    /// What failed, as data, when the failure is one callers act on (see [`Reason`] and
    /// [`Error::reason`]); `None` for [`Reason::Other`]. Boxed: most errors have none, and a
    /// `Result` carrying an error stays as small as it was.
    reason: Option<Box<Reason>>,
    /// The innermost message, without its context lines.
    pub message: String,
    /// Context lines, innermost first.
    pub context: Vec<String>,
    /// Where it happened (see [`Location`]); the context lines say the same in words.
    pub location: Location,
    /// The lower-level error this one was made from (an I/O or JSON error), if any.
    pub source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// Result type used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with `message` and no context.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, reason: None, message: message.into(), context: Vec::new(), location: Location::default(), source: None }
    }
    /// An error of `kind` for `reason`, with `message` saying the same in words.
    pub fn with_reason(kind: ErrorKind, reason: Reason, message: impl Into<String>) -> Self {
        let reason = (reason != Reason::Other).then(|| Box::new(reason));
        Error { reason, ..Self::new(kind, message) }
    }
    /// What failed, as data ([`Reason::Other`] when the kind and message say all there is).
    pub fn reason(&self) -> &Reason {
        static OTHER: Reason = Reason::Other;
        self.reason.as_deref().unwrap_or(&OTHER)
    }
    /// [`Reason::UnknownType`]: no artifact type is named `ty`; `known` are the types there
    /// are, for the suggestion.
    pub fn unknown_type<'a>(ty: &str, known: impl IntoIterator<Item = &'a str>) -> Self {
        let suggestion = nearest(ty, known);
        let hint = suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
        Self::with_reason(
            ErrorKind::NotFound,
            Reason::UnknownType { ty: ty.to_string(), suggestion },
            format!("unknown artifact type `__type__: {ty}`{hint}"),
        )
    }
    /// [`Reason::UnknownField`]: `field` is not one of `fields`, the fields of type `ty`. The
    /// message names the nearest field, or lists them all when none is close; the error is
    /// located in that field.
    pub fn unknown_field(ty: &str, field: &str, fields: &[&str]) -> Self {
        let suggestion = nearest(field, fields.iter().copied());
        let hint = match &suggestion {
            Some(n) => format!("; did you mean `{n}`?"),
            None => format!("; its fields are {}", fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")),
        };
        Self::with_reason(
            ErrorKind::Invalid,
            Reason::UnknownField { ty: ty.to_string(), field: field.to_string(), suggestion },
            format!("`{field}` is not a field of `{ty}`{hint}"),
        )
        .in_field(field)
    }
    /// [`Reason::MissingSplit`]: split `split` is not among `available`.
    pub fn missing_split(split: &str, available: Vec<String>) -> Self {
        let message = format!("split {split:?} does not exist; available splits: {available:?}");
        Self::with_reason(ErrorKind::NotFound, Reason::MissingSplit { split: split.to_string(), available }, message)
    }
    /// [`Reason::NotFound`]: no catalog has artifact `artifact`; `message` says where it was
    /// looked for.
    pub fn artifact_not_found(artifact: &str, message: impl Into<String>) -> Self {
        Self::with_reason(ErrorKind::NotFound, Reason::NotFound { artifact: artifact.to_string() }, message)
    }
    /// [`Reason::Needs`]: what is needed, and why, as one line.
    pub fn needs(need: Need, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::with_reason(ErrorKind::Unsupported, Reason::Needs(Unavailable { need, reason: reason.clone() }), reason)
    }
    /// What this error says is needed, when it is a [`Reason::Needs`] error.
    pub fn unavailable(&self) -> Option<&Unavailable> {
        match self.reason() {
            Reason::Needs(u) => Some(u),
            _ => None,
        }
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
    /// Locates the error at instance `index` of split `split` (context line `split "test",
    /// instance 3`), unless it already names an instance: the innermost location wins.
    pub fn at_instance(mut self, split: &str, index: usize) -> Self {
        if self.location.split.is_some() {
            return self;
        }
        self.location.split = Some(split.to_string());
        self.location.instance = Some(index);
        self.context(format!("split {split:?}, instance {index}"))
    }
    /// Locates the error in artifact `name` (context line ``in artifact `name` ``); the
    /// innermost artifact stays the located one.
    pub fn in_artifact(mut self, name: &str) -> Self {
        self.location.artifact.get_or_insert_with(|| name.to_string());
        self.context(format!("in artifact `{name}`"))
    }
    /// Records `field` as the field the error is about, unless one is recorded already (no
    /// context line: the message names it).
    pub fn in_field(mut self, field: &str) -> Self {
        self.location.field.get_or_insert_with(|| field.to_string());
        self
    }
    /// Keeps `source` as the error this one came from.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }
}

/// The candidate closest to `s` by Jaro-Winkler similarity, when it is above 0.8.
fn nearest<'a>(s: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(c, s), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c.to_string())
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::NotFound { ErrorKind::FileNotFound } else { ErrorKind::Io };
        Error::new(kind, e.to_string()).with_source(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::invalid(e.to_string()).with_source(e)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_is_data_and_innermost_wins() {
        let e = Error::invalid("bad value").in_field("label").in_artifact("templates.inner").in_artifact("cards.outer");
        let e = e.at_instance("test", 3).at_instance("train", 9);
        assert_eq!(
            e.location,
            Location { artifact: Some("templates.inner".into()), field: Some("label".into()), split: Some("test".into()), instance: Some(3) }
        );
        assert_eq!(e.to_string(), "bad value\n  in artifact `templates.inner`\n  in artifact `cards.outer`\n  split \"test\", instance 3");
    }

    #[test]
    fn keeps_its_source() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e: Error = io.into();
        assert_eq!(e.kind, ErrorKind::Io);
        let src = std::error::Error::source(&e).expect("a source");
        assert_eq!(src.to_string(), "denied");
    }
}
