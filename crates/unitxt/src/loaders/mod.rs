//! Loaders: the sources of a card's data (Unitxt's `loaders.py`).
//!
//! A loader returns one lazy stream per split. Every instance gets the loader's
//! `data_classification_policy` field, as Unitxt's loaders add it.

use crate::error::Result;
use crate::stream::MultiStream;

/// A data source.
pub trait Loader: Send + Sync {
    /// Loads the splits, each limited to `loader_limit` instances when given (the recipe's
    /// `loader_limit` overrides the loader's own).
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream>;
}

/// Placeholder type so the registry can name this module before it has artifacts.
pub struct Marker;
