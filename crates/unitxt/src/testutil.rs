//! Helpers shared by the unit tests.

use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::{default_catalog_dir, Catalog};

/// The Unitxt 1.26.10 catalog installed by `unitxt-rs catalog install` (`scripts/test.sh` installs
/// it before the tests run): `$UNITXT_RS_CATALOG` or `~/.cache/unitxt-rs/catalog-1.26.10`.
/// Panics when it is missing, so that a test that needs it fails instead of passing vacuously.
pub fn unitxt_catalog_dir() -> PathBuf {
    let dir = default_catalog_dir();
    assert!(
        dir.join("cards").is_dir() && dir.join("metrics").is_dir(),
        "Unitxt's catalog is not installed at {} (run `unitxt-rs catalog install`, or scripts/test.sh)",
        dir.display()
    );
    dir
}

/// A [`Catalog`] over [`unitxt_catalog_dir`] alone.
pub fn unitxt_catalog() -> Arc<Catalog> {
    Arc::new(Catalog::new(vec![unitxt_catalog_dir()]))
}

/// A catalog with no directory: for building artifacts that name no other artifact.
pub fn empty_catalog() -> Arc<Catalog> {
    Arc::new(Catalog::new(Vec::new()))
}

/// Builds `v` (JSON with `__type__`, naming no catalog artifact) as the registry does.
pub fn build(v: &crate::value::Value) -> crate::error::Result<crate::registry::Artifact> {
    crate::registry::build(v, &empty_catalog())
}
