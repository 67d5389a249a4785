//! [`Value`]: a JSON value whose objects are [`Map`]s, with the API of `serde_json::Value`.
//!
//! The engine's own value type, so that objects use the engine's map (no per-key hashing for
//! small objects). Numbers are [`Number`]s (integers and floats stay distinct, as in
//! Python). Parsing and printing go through serde (`serde_json::from_str::<Value>`,
//! `serde_json::to_string(&value)`); [`from_value`] and [`to_value`] convert to and from typed
//! structs.

use super::map::Map;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;

pub use super::number::Number;

/// The string of [`Value::String`]: a `compact_str` string, which keeps strings up to 24 bytes
/// inline (field values such as labels, class names and metric names), so that cloning one
/// does not allocate; longer strings live on the heap as in a `String`. It dereferences to
/// `str`; `String::from(s)` or `s.into_string()` gives a `String`.
pub type Str = compact_str::CompactString;

/// Whether two strings are equal: first by length, then whether they are one buffer (two
/// handles of one heap string), then as texts, short ones (up to 24 bytes, kept inline) word
/// by word without a call to `memcmp`. For the memos that compare a value with the copy they
/// kept of it, where the strings are mostly equal and short.
#[inline]
pub fn same_str(a: &Str, b: &Str) -> bool {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    if x.len() != y.len() {
        return false;
    }
    if std::ptr::eq(x.as_ptr(), y.as_ptr()) {
        return true;
    }
    if x.len() <= 24 {
        short_eq(x, y)
    } else {
        x == y
    }
}

/// `x == y` for two slices of one length up to 24, compared as (overlapping) words.
#[inline(always)]
fn short_eq(x: &[u8], y: &[u8]) -> bool {
    let n = x.len();
    let w8 = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let w4 = |s: &[u8], at: usize| u32::from_ne_bytes(s[at..at + 4].try_into().expect("4 bytes"));
    if n >= 8 {
        // Words at 0 and 8 (when they fit), then the last word, which may overlap them.
        (w8(x, 0) == w8(y, 0))
            && (n < 16 || w8(x, 8) == w8(y, 8))
            && w8(x, n - 8) == w8(y, n - 8)
    } else if n >= 4 {
        w4(x, 0) == w4(y, 0) && w4(x, n - 4) == w4(y, n - 4)
    } else {
        // Up to 3 bytes: the first, the middle and the last cover them all.
        n == 0 || (x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1])
    }
}

/// A JSON value with insertion-ordered objects: the engine's equivalent of a Python value.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Value {
    /// JSON `null` (Python `None`).
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer or a float.
    Number(Number),
    /// A string.
    String(Str),
    /// A list.
    Array(Vec<Value>),
    /// A dict with string keys, in insertion order.
    Object(Map),
}

static NULL: Value = Value::Null;

impl Value {
    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    /// True for a boolean.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }
    /// True for a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }
    /// True for a list.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }
    /// True for an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }
    /// True for an integer that fits `i64`.
    pub fn is_i64(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_i64())
    }
    /// True for a non-negative integer that fits `u64`.
    pub fn is_u64(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_u64())
    }
    /// True for a float.
    pub fn is_f64(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_f64())
    }
    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }
    /// The integer, if this is an integer that fits `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }
    /// The integer, if this is a non-negative integer that fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }
    /// The number as a float (integers converted), if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    /// The list, if this is one.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    /// The list, mutable, if this is one.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    /// The object, mutable, if this is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    /// The member `key` of an object or the element `i` of a list; `None` otherwise.
    pub fn get<I: ValueIndex>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }
    /// Mutable [`Value::get`].
    pub fn get_mut<I: ValueIndex>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }
    /// Takes the value out, leaving `null`.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

/// What can index a [`Value`]: a `&str`/`String` key (objects) or a `usize` position (lists).
pub trait ValueIndex {
    /// The indexed value, if present.
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
    /// The indexed value, mutable, if present.
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value>;
    /// The indexed value for assignment: a `null` becomes an object and a missing key is
    /// inserted as `null` (as in `serde_json`); panics on other types or a list index out of
    /// range.
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value;
}

impl ValueIndex for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array().and_then(|a| a.get(*self))
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_array_mut().and_then(|a| a.get_mut(*self))
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        match v {
            Value::Array(a) => {
                let n = a.len();
                a.get_mut(*self).unwrap_or_else(|| panic!("index {} out of range for a list of {n}", self))
            }
            _ => panic!("cannot index a non-list value with a number"),
        }
    }
}

impl ValueIndex for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object().and_then(|m| m.get(self))
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_object_mut().and_then(|m| m.get_mut(self))
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        if v.is_null() {
            *v = Value::Object(Map::new());
        }
        match v {
            Value::Object(m) => m.entry(self).or_insert(Value::Null),
            _ => panic!("cannot index a non-object value with a string"),
        }
    }
}

impl ValueIndex for String {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        self.as_str().index_into_mut(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        self.as_str().index_or_insert(v)
    }
}

impl<T: ValueIndex + ?Sized> ValueIndex for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        (**self).index_or_insert(v)
    }
}

impl<I: ValueIndex> std::ops::Index<I> for Value {
    type Output = Value;
    /// The member or element, or `null` when absent (as `serde_json::Value`'s index).
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

impl<I: ValueIndex> std::ops::IndexMut<I> for Value {
    fn index_mut(&mut self, index: I) -> &mut Value {
        index.index_or_insert(self)
    }
}

impl fmt::Debug for Value {
    /// The shape of `serde_json::Value`'s `Debug` (`Null`, `Number(1)`, `String("a")`, ...).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Number(n) => write!(f, "Number({n})"),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::Array(a) => {
                f.write_str("Array ")?;
                f.debug_list().entries(a).finish()
            }
            Value::Object(m) => {
                f.write_str("Object ")?;
                fmt::Debug::fmt(m, f)
            }
        }
    }
}

impl fmt::Display for Value {
    /// Compact JSON (`{:#}`: indented JSON), byte for byte as `serde_json` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if f.alternate() { serde_json::to_string_pretty(self) } else { serde_json::to_string(self) };
        f.write_str(&s.map_err(|_| fmt::Error)?)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(x) => s.serialize_str(x),
            Value::Array(a) => a.serialize(s),
            Value::Object(m) => m.serialize(s),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Number(Number::float(f)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.into()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s.into()))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Deserialize::deserialize(d)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut m = Map::with_capacity(access.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = access.next_entry::<super::Key, Value>()? {
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct MapVisitor;

impl<'de> Visitor<'de> for MapVisitor {
    type Value = Map;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_unit<E>(self) -> Result<Map, E> {
        Ok(Map::new())
    }
    fn visit_map<A: MapAccess<'de>>(self, access: A) -> Result<Map, A::Error> {
        match ValueVisitor.visit_map(access)? {
            Value::Object(m) => Ok(m),
            _ => unreachable!("visit_map builds an object"),
        }
    }
}

impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Map, D::Error> {
        d.deserialize_map(MapVisitor)
    }
}

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n.into()),
            serde_json::Value::String(s) => Value::String(s.into()),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(o) => {
                let mut m = Map::with_capacity(o.len());
                for (k, v) in o {
                    m.insert(k.into(), Value::from(v));
                }
                Value::Object(m)
            }
        }
    }
}

impl From<Value> for serde_json::Value {
    fn from(v: Value) -> serde_json::Value {
        match v {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(n) => n.to_json().map_or(serde_json::Value::Null, serde_json::Value::Number),
            Value::String(s) => serde_json::Value::String(s.into_string()),
            Value::Array(a) => serde_json::Value::Array(a.into_iter().map(serde_json::Value::from).collect()),
            Value::Object(o) => {
                let mut m = serde_json::Map::with_capacity(o.len());
                for (k, v) in o {
                    m.insert(k.to_string(), serde_json::Value::from(v));
                }
                serde_json::Value::Object(m)
            }
        }
    }
}

/// Deserializes a typed value (an artifact struct, ...) from a [`Value`]. Errors are
/// `serde_json`'s (missing field, wrong type, ...).
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
    T::deserialize(v)
}

/// A [`Value`] read by serde as `serde_json::Value` is read (so typed structs deserialize from
/// it with serde_json's rules and messages), without the copy into a `serde_json::Value`, and
/// keeping non-finite floats, which `serde_json::Value` cannot hold.
impl<'de> Deserializer<'de> for Value {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (None, Some(i)) => visitor.visit_i64(i),
                _ => visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => visitor.visit_string(s.into_string()),
            Value::Array(a) => {
                let mut seq = de::value::SeqDeserializer::new(a.into_iter());
                let out = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
            Value::Object(m) => {
                let mut map = de::value::MapDeserializer::new(m.into_iter().map(|(k, v)| (k.into_string(), v)));
                let out = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(out)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Value::Null => visitor.visit_none(),
            v => visitor.visit_some(v),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // As serde_json: a string is a unit variant, a one-key object a variant with its content.
        match self {
            Value::String(s) => visitor.visit_enum(de::value::StringDeserializer::<serde_json::Error>::new(s.into_string())),
            Value::Object(m) if m.len() == 1 => {
                let (k, v) = m.into_iter().next().expect("one entry");
                visitor.visit_enum(de::value::MapAccessDeserializer::new(de::value::MapDeserializer::new(
                    std::iter::once((k.into_string(), v)),
                )))
            }
            other => other.deserialize_any(visitor).or_else(|_| {
                Err(de::Error::custom(format!("invalid value for enum {name}: expected one of {variants:?}")))
            }),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> de::IntoDeserializer<'de, serde_json::Error> for Value {
    type Deserializer = Value;
    fn into_deserializer(self) -> Value {
        self
    }
}

/// Serializes a typed value into a [`Value`].
pub fn to_value<T: Serialize>(x: T) -> Result<Value, serde_json::Error> {
    serde_json::to_value(x).map(Value::from)
}

macro_rules! from_int {
    ($($t:ty)*) => {$(
        impl From<$t> for Value {
            fn from(i: $t) -> Value { Value::Number(Number::from(i)) }
        }
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                match self {
                    Value::Number(n) => {
                        let o = Number::from(*other);
                        n.as_i64().zip(o.as_i64()).map(|(a, b)| a == b)
                            .or_else(|| n.as_u64().zip(o.as_u64()).map(|(a, b)| a == b))
                            .unwrap_or(false)
                    }
                    _ => false,
                }
            }
        }
    )*};
}
from_int!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

impl From<f64> for Value {
    /// A float; NaN and infinities become `null` (as in `serde_json`).
    fn from(f: f64) -> Value {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}
impl From<f32> for Value {
    fn from(f: f32) -> Value {
        Value::from(f as f64)
    }
}
impl PartialEq<f64> for Value {
    fn eq(&self, other: &f64) -> bool {
        self.as_f64() == Some(*other)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s.into())
    }
}
impl From<Str> for Value {
    fn from(s: Str) -> Value {
        Value::String(s)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(Str::from(s))
    }
}
impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::String(Str::from(s.as_str()))
    }
}
impl From<std::borrow::Cow<'_, str>> for Value {
    fn from(s: std::borrow::Cow<'_, str>) -> Value {
        Value::String(Str::from(s))
    }
}
impl From<char> for Value {
    fn from(c: char) -> Value {
        Value::String(Str::from(c.encode_utf8(&mut [0; 4]) as &str))
    }
}
impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Null
    }
}
impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::Number(n)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Object(m)
    }
}
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Clone + Into<Value>> From<&[T]> for Value {
    fn from(v: &[T]) -> Value {
        Value::Array(v.iter().cloned().map(Into::into).collect())
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}
impl<T: Into<Value>> FromIterator<T> for Value {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Value {
        Value::Array(iter.into_iter().map(Into::into).collect())
    }
}
impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}
impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}
impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}
impl PartialEq<Value> for str {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}
impl PartialEq<Value> for &str {
    fn eq(&self, other: &Value) -> bool {
        other == *self
    }
}
impl PartialEq<Value> for String {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

/// Builds a [`Value`] with `serde_json::json!` syntax (values are converted from
/// `serde_json::Value`; interpolated expressions go through `Serialize`).
#[macro_export]
macro_rules! json {
    ($($t:tt)+) => {
        $crate::value::Value::from(::serde_json::json!($($t)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_str_compares_texts_whatever_the_storage() {
        let long = "a sentence longer than twenty-four bytes";
        let (a, b) = (Str::from(long), Str::from(long));
        assert!(same_str(&a, &b), "two heap buffers with one text");
        assert!(same_str(&a, &a.clone()));
        assert!(!same_str(&a, &Str::from("a sentence longer than twenty-four bytez")));
        assert!(same_str(&Str::from("positive"), &Str::from("positive")));
        assert!(!same_str(&Str::from("positive"), &Str::from("negative")));
        assert!(!same_str(&Str::from("pos"), &Str::from("posi")));
        assert!(same_str(&Str::from(""), &Str::default()));
        // A string truncated in place keeps stale bytes past its end; it still equals its text.
        let mut t = Str::from("positive");
        t.truncate(3);
        assert!(same_str(&t, &Str::from("pos")));
        assert!(same_str(&Str::const_new("static"), &Str::from("static")));
    }

    /// Every length up to 30, equal and differing at each position, against `==`.
    #[test]
    fn same_str_is_text_equality_at_every_length() {
        for n in 0..=30 {
            let text: String = (0..n).map(|k| (b'a' + (k % 26) as u8) as char).collect();
            let a = Str::from(text.as_str());
            assert!(same_str(&a, &Str::from(text.as_str())), "length {n}");
            for at in 0..n {
                let mut other = text.clone().into_bytes();
                other[at] = b'Z';
                let b = Str::from(String::from_utf8(other).unwrap());
                assert!(!same_str(&a, &b), "length {n}, differing at {at}");
            }
            assert!(!same_str(&a, &Str::from(format!("{text}x"))), "length {n} and {}", n + 1);
        }
    }

    /// Strings up to 24 bytes stay inline whichever way the value is made (parsed, from `&str`,
    /// from a `String`, cloned); longer ones are on the heap and keep their text.
    #[test]
    fn short_strings_are_inline() {
        let inline = |v: &Value| match v {
            Value::String(s) => !s.is_heap_allocated(),
            other => panic!("not a string: {other:?}"),
        };
        let short = "metrics.f1_micro_24bytes";
        assert_eq!(short.len(), 24);
        let long = "processors.take_first_non_empty_line";
        for v in [
            Value::from(short),
            Value::from(short.to_string()),
            serde_json::from_str(&format!("{short:?}")).unwrap(),
        ] {
            assert!(inline(&v) && inline(&v.clone()), "{v:?}");
            assert_eq!(v.as_str(), Some(short));
        }
        for v in [
            Value::from(long),
            Value::from(long.to_string()),
            serde_json::from_str(&format!("{long:?}")).unwrap(),
        ] {
            assert!(!inline(&v) && !inline(&v.clone()), "{v:?}");
            assert_eq!(v.as_str(), Some(long));
        }
        assert!(inline(&Value::from('é')));
    }

    #[test]
    fn parses_and_prints_as_serde_json() {
        let text = r#"{"b":1,"a":[1.0,-2,"x\u00e9\n",null,true],"c":{"z":{},"y":[]},"b":2}"#;
        let ours: Value = serde_json::from_str(text).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours.to_string(), theirs.to_string());
        assert_eq!(format!("{ours:#}"), format!("{theirs:#}"));
        assert_eq!(ours.to_string(), r#"{"b":2,"a":[1.0,-2,"xé\n",null,true],"c":{"z":{},"y":[]}}"#);
        assert_eq!(serde_json::Value::from(ours.clone()), theirs);
        assert_eq!(Value::from(theirs), ours);
        assert_eq!(ours["a"][2], "xé\n");
        assert_eq!(ours["missing"], Value::Null);
        assert_eq!(ours["a"][9], Value::Null);
        assert_eq!(format!("{:?}", ours["c"]), r#"Object {"z": Object {}, "y": Array []}"#);
    }

    #[test]
    fn index_assignment_inserts() {
        let mut v = Value::Null;
        v["a"] = Value::from(1);
        v["b"]["c"] = Value::from("x");
        assert_eq!(v.to_string(), r#"{"a":1,"b":{"c":"x"}}"#);
        assert!(Value::from(1) == 1i64 && Value::from(1.5) == 1.5 && Value::from(f64::NAN).is_null());
        assert!(Value::from(1) != 1.5 && Value::from(-1) != 1u64);
    }
}
