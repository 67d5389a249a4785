//! unitxt-rs engine: prepares textual datasets for generative AI from Unitxt catalog
//! artifacts (cards, templates, formats, system prompts, demos, augmentors) and evaluates
//! predictions, producing the same instances and scores as Unitxt 1.26.10.

#![warn(missing_docs)]

pub mod api;
pub mod artifact;
pub mod augmentors;
pub mod card;
pub mod catalog;
pub mod criteria;
pub mod error;
pub mod evaluate;
pub mod expr;
pub mod formats;
pub mod images;
pub mod inference;
pub mod loaders;
pub mod metrics;
pub mod operators;
pub mod processors;
pub mod py;
pub mod query;
pub mod recipe;
pub mod sinks;
pub mod registry;
pub mod splitters;
pub mod stream;
pub mod system_prompts;
pub mod task;
pub mod templates;
#[cfg(test)]
pub(crate) mod testutil;
pub mod value;

pub use error::{Error, ErrorKind, Result};
pub use value::{Instance, Value};
