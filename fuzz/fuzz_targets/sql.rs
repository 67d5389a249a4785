//! The SQL that `sql_non_execution_accuracy` reads comes from model predictions: any text must
//! end as scores or an error of `unitxt-sql`, never a panic, a hang or a stack overflow. The
//! input, split at its first NUL byte, is a prediction and a gold query; both are also
//! tokenized in both dialects on their own.
#![no_main]
use libfuzzer_sys::fuzz_target;
use unitxt_sql::metric::non_execution_scores;
use unitxt_sql::sqlglot::tokenizer::{tokenize, Dialect};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (prediction, gold) = text.split_once('\0').unwrap_or((text, text));
    let _ = tokenize(prediction, Dialect::Default);
    let _ = tokenize(prediction, Dialect::Sqlite);
    let _ = non_execution_scores(prediction, gold);
    let _ = non_execution_scores(gold, prediction);
});
