//! Where prepared instances go besides JSON Lines: Arrow record batches with the schema of
//! Unitxt's Hugging Face datasets ([`arrow`]), and Parquet files with that schema
//! ([`parquet`]).

pub mod arrow;
pub mod parquet;
