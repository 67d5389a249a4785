//! The parts of Python's [sqlglot] (30.8.0) and [sqlparse] (0.5.5) that Unitxt 1.26.10's
//! `SQLNonExecutionAccuracy` metric (`unitxt/text2sql_utils.py`) scores with.
//!
//! - [`sqlglot`]: sqlglot's tokenizer, parser and generator for queries, and the optimizer rules
//!   that decide `sqlglot_optimized_equivalence`.
//!
//! [sqlglot]: https://github.com/tobymao/sqlglot
//! [sqlparse]: https://github.com/andialbrecht/sqlparse

pub mod metric;
pub mod pystr;
pub mod text2sql;
pub mod sqlglot;
