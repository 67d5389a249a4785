//! The catalog JSON loader: any bytes as an artifact file, parsed as JSON and built as an
//! artifact (nested artifacts, names looked up in the test catalog, no data loaded). Every
//! input must end as an artifact or an error: never a panic, an abort, a hang or a stack
//! overflow (deep nesting is refused by depth limits).
#![no_main]
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use unitxt::catalog::Catalog;
use unitxt::value::Value;

fuzz_target!(|data: &[u8]| {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    let catalog = CATALOG.get_or_init(|| Arc::new(Catalog::new(vec!["tests/catalog".into()])));
    let Ok(v) = serde_json::from_slice::<Value>(data) else { return };
    let _ = unitxt::registry::build(&v, catalog);
});
