//! sqlglot's optimizer (`sqlglot/optimizer/optimizer.py`, `optimize` without a schema), rule
//! by rule, for the queries this port covers.
//!
//! Only the first rule, `qualify`, exists so far, and only for a single `SELECT` over one
//! table without subqueries (see [`qualify::qualify`]). Every other query is
//! [`OptimizeError::Unsupported`]. Unitxt lower-cases the SQL before optimizing it, so the
//! identifiers are already normalized; the rules rely on that.

pub mod qualify;

#[cfg(test)]
mod tests;

/// Why a rule gave no tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptimizeError {
    /// sqlglot raises `OptimizeError` here (an ambiguous column, an unknown output position);
    /// Unitxt then scores the pair 0.
    #[error("sqlglot's optimizer raises: {0}")]
    Raises(String),
    /// The query is outside what this port reproduces; sqlglot's result is unknown.
    #[error("sqlglot's optimizer is not reproduced for {0}")]
    Unsupported(String),
}
