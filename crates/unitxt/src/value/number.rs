//! [`Number`]: the number of a [`Value`](super::Value), Python's `int` (within 64 bits) or
//! `float`, including the non-finite floats `nan`, `inf` and `-inf`.
//!
//! It has `serde_json::Number`'s API (`as_i64`, `as_u64`, `as_f64`, `is_*`, `from_f64`) and
//! keeps integers and floats apart as Python does. Unlike `serde_json::Number` it can hold a
//! NaN or an infinity, which Python's `json` reads from and writes as the bare tokens `NaN`,
//! `Infinity` and `-Infinity` (Unitxt's catalog has `"failure_default": NaN`). Only
//! [`Number::float`] makes one; [`Number::from_f64`] refuses them as serde's does, so code that
//! turns an undefined score into `null` keeps doing so. Through serde a non-finite float
//! serializes as serde_json writes it (`null`); `py::json::dumps` writes Python's tokens.

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};
use std::fmt;

/// A Python `int` (as `u64` or `i64`) or `float` (any `f64`, NaN and infinities included).
///
/// Equality is Python's for numbers of one kind, except that a NaN equals a NaN (as two
/// references to one Python `nan` object compare in a list), so that [`Value`](super::Value)
/// equality stays an equivalence. An integer never equals a float (`serde_json::Number`'s rule,
/// which the engine relies on to keep `1` and `1.0` apart).
#[derive(Clone, Copy)]
pub struct Number(N);

#[derive(Clone, Copy)]
enum N {
    /// A non-negative integer.
    PosInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// A float, finite or not.
    Float(f64),
}

impl Number {
    /// A finite float; `None` for NaN and infinities (as `serde_json::Number::from_f64`).
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then_some(Number(N::Float(f)))
    }

    /// Any float, NaN and infinities included (Python's `float`).
    pub fn float(f: f64) -> Number {
        Number(N::Float(f))
    }

    /// True for an integer that fits an `i64`.
    pub fn is_i64(&self) -> bool {
        match self.0 {
            N::PosInt(u) => u <= i64::MAX as u64,
            N::NegInt(_) => true,
            N::Float(_) => false,
        }
    }

    /// True for a non-negative integer.
    pub fn is_u64(&self) -> bool {
        matches!(self.0, N::PosInt(_))
    }

    /// True for a float.
    pub fn is_f64(&self) -> bool {
        matches!(self.0, N::Float(_))
    }

    /// True for a float that is NaN or infinite.
    pub fn is_non_finite(&self) -> bool {
        matches!(self.0, N::Float(f) if !f.is_finite())
    }

    /// The integer as an `i64`; `None` for floats and integers above `i64::MAX`.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(u) => i64::try_from(u).ok(),
            N::NegInt(i) => Some(i),
            N::Float(_) => None,
        }
    }

    /// The integer as a `u64`; `None` for floats and negative integers.
    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(u) => Some(u),
            _ => None,
        }
    }

    /// The number as a float (integers converted); always `Some`, as in `serde_json`.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(u) => u as f64,
            N::NegInt(i) => i as f64,
            N::Float(f) => f,
        })
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self.0, other.0) {
            (N::PosInt(a), N::PosInt(b)) => a == b,
            (N::NegInt(a), N::NegInt(b)) => a == b,
            (N::Float(a), N::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => false,
        }
    }
}
impl Eq for Number {}

impl std::hash::Hash for Number {
    /// Consistent with `==`: `0.0` and `-0.0` hash alike, and so do all NaNs.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self.0 {
            N::PosInt(u) => (0u8, u).hash(h),
            N::NegInt(i) => (1u8, i).hash(h),
            N::Float(f) => {
                let f = if f == 0.0 { 0.0 } else if f.is_nan() { f64::NAN } else { f };
                (2u8, f.to_bits()).hash(h)
            }
        }
    }
}

macro_rules! from_unsigned {
    ($($t:ty)*) => {$(
        impl From<$t> for Number {
            fn from(u: $t) -> Number { Number(N::PosInt(u as u64)) }
        }
    )*};
}
macro_rules! from_signed {
    ($($t:ty)*) => {$(
        impl From<$t> for Number {
            fn from(i: $t) -> Number {
                if i < 0 { Number(N::NegInt(i as i64)) } else { Number(N::PosInt(i as u64)) }
            }
        }
    )*};
}
from_unsigned!(u8 u16 u32 u64 usize);
from_signed!(i8 i16 i32 i64 isize);

impl From<serde_json::Number> for Number {
    fn from(n: serde_json::Number) -> Number {
        if let Some(u) = n.as_u64() {
            Number(N::PosInt(u))
        } else if let Some(i) = n.as_i64() {
            Number(N::NegInt(i))
        } else {
            Number(N::Float(n.as_f64().unwrap_or(f64::NAN)))
        }
    }
}

impl Number {
    /// As a `serde_json::Number`; `None` for a non-finite float, which it cannot hold.
    pub fn to_json(&self) -> Option<serde_json::Number> {
        match self.0 {
            N::PosInt(u) => Some(u.into()),
            N::NegInt(i) => Some(i.into()),
            N::Float(f) => serde_json::Number::from_f64(f),
        }
    }
}

impl fmt::Display for Number {
    /// Integers in decimal; finite floats as `serde_json` prints them; `NaN`, `inf`, `-inf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_json() {
            Some(n) => n.fmt(f),
            None => {
                let x = self.as_f64().unwrap_or(f64::NAN);
                f.write_str(if x.is_nan() { "NaN" } else if x > 0.0 { "inf" } else { "-inf" })
            }
        }
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            N::PosInt(u) => s.serialize_u64(u),
            N::NegInt(i) => s.serialize_i64(i),
            N::Float(f) => s.serialize_f64(f),
        }
    }
}

struct NumberVisitor;

impl Visitor<'_> for NumberVisitor {
    type Value = Number;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }
    fn visit_i64<E>(self, i: i64) -> Result<Number, E> {
        Ok(i.into())
    }
    fn visit_u64<E>(self, u: u64) -> Result<Number, E> {
        Ok(u.into())
    }
    fn visit_f64<E>(self, f: f64) -> Result<Number, E> {
        Ok(Number::float(f))
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        d.deserialize_any(NumberVisitor)
    }
}

// Same size as serde_json's number, so that a `Value` stays 32 bytes.
const _: () = assert!(std::mem::size_of::<Number>() == 16);
