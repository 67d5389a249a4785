//! The recipe parser: any text as a recipe query (`card=...,template=...[k=v]`), as a catalog
//! name with `[overrides]`, and as the key-value list inside them. Every input must end as a
//! value or an error: never a panic, an abort or a hang.
#![no_main]
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use unitxt::catalog::Catalog;

fuzz_target!(|data: &[u8]| {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    let catalog = CATALOG.get_or_init(|| Arc::new(Catalog::new(vec!["tests/catalog".into()])));
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = unitxt::query::parse_key_values(text);
    let _ = unitxt::query::split_name_and_overwrites(text);
    let _ = unitxt::query::is_legal_catalog_name(text);
    if let Ok(args) = unitxt::recipe::RecipeArgs::parse(text, catalog) {
        // Building resolves the names in the test catalog (no data is loaded).
        let _ = unitxt::recipe::Recipe::build(&args, catalog.clone());
    }
});
