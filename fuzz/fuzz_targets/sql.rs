//! The SQL that `sql_non_execution_accuracy` reads comes from model predictions: any text must
//! end as a result or an error of `unitxt-sql`, never a panic, a hang or a stack overflow.
//! The input is tokenized in both dialects, searched for a query, and compared with itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use unitxt_sql::sqlglot::tokenizer::{tokenize, Dialect};
use unitxt_sql::text2sql::{extract_sql_from_text, sql_exact_match};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = tokenize(text, Dialect::Default);
    let _ = tokenize(text, Dialect::Sqlite);
    let query = extract_sql_from_text(text);
    assert!(sql_exact_match(&query, &query));
});
