//! Where prepared instances go besides JSON Lines: Arrow record batches with the schema of
//! Unitxt's Hugging Face datasets ([`arrow`]), and Parquet files with that schema
//! ([`parquet`]); and the pool of spare buffers that sinks hand back to the worker threads
//! ([`spares`]).

pub mod arrow;
pub mod parquet;
pub mod spares;
