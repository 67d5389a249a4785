//! The parts of Python's [sqlglot] (30.8.0) and [sqlparse] (0.5.5) that Unitxt 1.26.10's
//! `SQLNonExecutionAccuracy` metric (`unitxt/text2sql_utils.py`) scores with, reproduced so
//! that unitxt-rs gives Unitxt's scores without Python.
//!
//! - [`metric`]: the metric's seven sub-scores for one (prediction, gold query) pair.
//! - [`text2sql`]: Unitxt's string helpers (query extraction, exact match).
//! - [`sqlparse`]: sqlparse's lexer and statement grouping, enough for Unitxt's
//!   `is_sqlparse_parsable` and `sqlparse_queries_equivalent`.
//! - [`sqlglot`]: sqlglot's tokenizer, parser, generator, optimizer and tree diff.
//! - [`pystr`]: the Python `str` behaviours these depend on.
//!
//! Each part answers `Unsupported` where it does not reproduce the Python library, instead of
//! guessing; `docs/sql-non-execution.md` says what is covered.
//!
//! [sqlglot]: https://github.com/tobymao/sqlglot
//! [sqlparse]: https://github.com/andialbrecht/sqlparse

pub mod metric;
pub mod pystr;
pub mod sqlglot;
pub mod sqlparse;
pub mod text2sql;
