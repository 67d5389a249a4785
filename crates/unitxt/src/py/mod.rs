//! Faithful re-implementations of the CPython behaviours Unitxt's output depends on:
//! the Mersenne Twister `random.Random` ([`random`]), `repr`/`str` of values ([`repr`]),
//! `json.dumps` ([`json`]), the format-spec mini-language of `format()` ([`format_spec`]), and
//! the semantics of values in expressions and field paths: equality, arithmetic, indexing,
//! casts, `dict_set` ([`ops`]); and the hook for what Pillow encodes ([`pillow`]).

pub mod dict_path;
pub mod format_spec;
pub mod json;
pub mod ops;
pub mod pillow;
pub mod random;
pub mod repr;
pub mod str_format;
