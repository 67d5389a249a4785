//! Faithful re-implementations of the CPython behaviours Unitxt's output depends on:
//! the Mersenne Twister `random.Random` ([`random`]), `repr`/`str` of values ([`repr`]),
//! `json.dumps` ([`json`]) and the format-spec mini-language of `format()` ([`format_spec`]).

pub mod format_spec;
pub mod json;
pub mod random;
pub mod repr;
