//! sqlglot 30.8.0, as far as Unitxt's `sql_non_execution_accuracy` uses it.

pub mod ast;
pub mod diff;
pub mod generator;
pub mod parser;
mod generator_tables;
pub mod optimizer;
pub mod tables;
pub mod tokenizer;

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod generator_tests;
#[cfg(test)]
mod parser_tests;
