//! Faithful re-implementations of the CPython behaviours Unitxt's output depends on:
//! the Mersenne Twister `random.Random` ([`random`]), `repr`/`str` of values ([`repr`]), and
//! `json.dumps` ([`json`]).

pub mod json;
pub mod random;
pub mod repr;
