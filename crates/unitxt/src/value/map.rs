//! [`Map`]: the insertion-ordered string-keyed map inside [`Value::Object`] and [`Instance`].
//!
//! Python dicts keep insertion order, and Unitxt's outputs depend on it (`str()` seeds,
//! `json.dumps`). An instance has a handful of fields, so the map is a vector of entries
//! searched linearly; no key is hashed. Each entry keeps a tag of its key (length and first
//! seven bytes), so a scan compares one integer per entry and compares strings only when the
//! tags agree. Keys are `compact_str` strings: field names up to 24 bytes live inline and are
//! copied without allocating. A map that grows past [`LINEAR_MAX`] entries (a large JSON object
//! in a dataset or a catalog) gets a hash index of entry positions (`foldhash`), so lookups
//! stay O(1) there.
//!
//! The API is the part of `serde_json::Map` (with its `preserve_order` feature, which this type
//! replaces) that the engine uses, with the same removal semantics: [`Map::remove`] is
//! [`Map::swap_remove`] (the last entry takes the removed one's place) and
//! [`Map::shift_remove`] keeps the order (Python's `del`/`pop`).
//!
//! [`Value::Object`]: super::Value::Object
//! [`Instance`]: super::Instance

use super::Value;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Map keys: the same string type as string values ([`super::Str`], stored inline up to 24
/// bytes, so cloning a field name does not allocate). Code turns keys into values and back
/// without converting (a dict's keys as a list of strings), so the two are one type.
pub type Key = super::Str;

/// Above this many entries a map keeps a hash index; at or below it, lookups scan the entries.
pub const LINEAR_MAX: usize = 32;

const SEED: u64 = 0x5851_f42d_4c95_7f2d;

#[inline]
fn hash(key: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(SEED).hash_one(key)
}

/// A key's length (capped at 255) in the top byte and its first seven bytes (zero-padded,
/// little-endian) below: equal tags mean equal keys when the key is shorter than eight bytes,
/// and unequal tags always mean unequal keys. Scanning tags keeps a lookup from comparing
/// strings except on a likely match.
#[inline]
fn tag(key: &str) -> u64 {
    let b = key.as_bytes();
    let n = b.len();
    let low = if n >= 8 {
        u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) & 0x00ff_ffff_ffff_ffff
    } else if n >= 4 {
        // Two overlapping four-byte reads cover bytes 0..n; the overlap holds the same bytes.
        let lo = u32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as u64;
        let hi = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes")) as u64;
        lo | hi << ((n - 4) * 8)
    } else if n > 0 {
        b[0] as u64 | (b[n / 2] as u64) << (n / 2 * 8) | (b[n - 1] as u64) << ((n - 1) * 8)
    } else {
        0
    };
    low | (n.min(255) as u64) << 56
}

/// The lookup tag of `key` (its length, capped at 255, in the top byte and its first seven
/// bytes, zero-padded and little-endian, below: the tag the map keeps for each entry),
/// computable at compile time: for keys known in advance, given to
/// [`Map::positions_of_tagged`].
pub const fn key_tag(key: &str) -> u64 {
    let b = key.as_bytes();
    let n = b.len();
    let mut low = 0u64;
    let mut i = 0;
    while i < n && i < 7 {
        low |= (b[i] as u64) << (i * 8);
        i += 1;
    }
    low | (if n < 255 { n } else { 255 } as u64) << 56
}

/// [`key_tag`] of each key, at compile time in a `const`.
pub const fn tags_of<const N: usize>(keys: [&str; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut k = 0;
    while k < N {
        out[k] = key_tag(keys[k]);
        k += 1;
    }
    out
}

/// Whether entry `e` holds `key`, whose [`tag`] is `t`: the tags must be equal, and the keys
/// too unless the key is shorter than eight bytes (then equal tags mean equal keys).
#[inline]
fn holds(e: &(Key, Value, u64), key: &str, t: u64) -> bool {
    e.2 == t && (key.len() < 8 || same_long_key(e.0.as_bytes(), key.as_bytes()))
}

/// Whether two keys of at least eight bytes and equal [`tag`]s (so of equal length, below 255)
/// are equal. Keys up to 16 bytes, most field names, are compared as two overlapping 8-byte
/// words, without a call to `memcmp`.
#[inline]
fn same_long_key(a: &[u8], b: &[u8]) -> bool {
    let n = b.len();
    if a.len() != n {
        return false;
    }
    if n <= 16 {
        let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
        word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
    } else {
        a == b
    }
}

/// A field name with its lookup tag (length and first bytes, see the module docs) computed
/// once, for operators that look up, remove or insert the same names in every instance (a task
/// picking its fields, a card's `set` or `rename`): [`Map::get_name`], [`Map::swap_remove_name`],
/// [`Map::insert_name`] and [`Map::push_new_name`] skip computing the tag and, for insertion,
/// building the key.
///
/// A name also remembers where it was last found (its position hint). Instances of a stream are
/// built the same way, so a field usually sits where it sat in the previous instance: a lookup
/// checks that position first (one comparison of tags) and scans only when the field is
/// elsewhere. The hint is shared by the threads that use the name (a relaxed atomic: a stale
/// or racing hint only costs the scan, never a wrong answer, since the entry found there is
/// checked), and written only when it changes.
#[derive(Debug)]
pub struct FieldName {
    key: Key,
    tag: u64,
    hint: std::sync::atomic::AtomicU32,
}

impl Clone for FieldName {
    fn clone(&self) -> Self {
        FieldName { key: self.key.clone(), tag: self.tag, hint: std::sync::atomic::AtomicU32::new(self.hint()) }
    }
}

impl PartialEq for FieldName {
    /// Names are equal when their texts are (hints do not count).
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for FieldName {}

impl FieldName {
    /// The name `name`, with its tag.
    pub fn new(name: &str) -> Self {
        FieldName {
            key: Key::from(name),
            tag: tag(name),
            hint: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// The name.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.key
    }

    #[inline]
    fn hint(&self) -> u32 {
        self.hint.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Records position `i` as where the name was found, unless it is already the hint.
    #[inline]
    fn found_at(&self, i: usize) {
        if self.hint() != i as u32 {
            self.hint.store(i as u32, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// An insertion-ordered map from strings to [`Value`]s (a Python dict with string keys).
#[derive(Clone, Default)]
pub struct Map {
    /// Entries in insertion order, each with the [`tag`] of its key.
    entries: Vec<(Key, Value, u64)>,
    /// Positions in `entries`, hashed by key; present only when there are more than
    /// [`LINEAR_MAX`] entries.
    index: Option<Box<HashTable<usize>>>,
}

impl Map {
    /// An empty map.
    #[inline]
    pub fn new() -> Self {
        Map { entries: Vec::new(), index: None }
    }

    /// An empty map with room for `n` entries.
    #[inline]
    pub fn with_capacity(n: usize) -> Self {
        Map { entries: Vec::with_capacity(n), index: None }
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the map has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.index = None;
    }

    /// Position of `key` in insertion order.
    #[inline]
    pub fn get_index_of(&self, key: &str) -> Option<usize> {
        self.tagged_index_of(key, tag(key))
    }

    /// [`Map::get_index_of`] for a key whose [`tag`] is `t` (the tag is used only by the
    /// linear scan, so it may be computed before knowing whether the map is hashed).
    #[inline]
    fn tagged_index_of(&self, key: &str, t: u64) -> Option<usize> {
        match &self.index {
            None => self.entries.iter().position(|e| holds(e, key, t)),
            Some(ix) => self.hashed_index_of(ix, key),
        }
    }

    /// Position of field `name`: at its hint (see [`FieldName`]) when the entry there holds
    /// it, else found by a scan (or the hash index), which updates the hint.
    #[inline]
    fn name_index_of(&self, name: &FieldName) -> Option<usize> {
        let i = self.hinted_index_of(&name.key, name.tag, name.hint() as usize)?;
        name.found_at(i);
        Some(i)
    }

    /// Position of `key` (whose [`tag`] is `t`): `hint` when the entry there holds it, else
    /// as [`Map::get_index_of`] finds it. The hinted lookups of [`FieldName`]s and of
    /// [`Map::get_hinted`] go through here and record the position found in their own hint.
    #[inline]
    fn hinted_index_of(&self, key: &str, t: u64, hint: usize) -> Option<usize> {
        match self.entries.get(hint) {
            Some(e) if holds(e, key, t) => Some(hint),
            _ => self.tagged_index_of(key, t),
        }
    }

    /// The value of field `name` (as [`Map::get`]).
    #[inline]
    pub fn get_name(&self, name: &FieldName) -> Option<&Value> {
        self.name_index_of(name).map(|i| &self.entries[i].1)
    }

    /// The value of field `name`, mutable (as [`Map::get_mut`]).
    #[inline]
    pub fn get_name_mut(&mut self, name: &FieldName) -> Option<&mut Value> {
        self.name_index_of(name).map(|i| &mut self.entries[i].1)
    }

    /// True when field `name` is present (as [`Map::contains_key`]).
    #[inline]
    pub fn contains_name(&self, name: &FieldName) -> bool {
        self.name_index_of(name).is_some()
    }

    /// Removes field `name` (as [`Map::swap_remove`]: the last entry takes its place).
    #[inline]
    pub fn swap_remove_name(&mut self, name: &FieldName) -> Option<Value> {
        self.name_index_of(name).map(|i| self.swap_remove_at(i).1)
    }

    /// Removes field `name` keeping the order of the others (as [`Map::shift_remove`]).
    #[inline]
    pub fn shift_remove_name(&mut self, name: &FieldName) -> Option<Value> {
        self.name_index_of(name).map(|i| self.shift_remove_at(i).1)
    }

    /// Sets field `name` to `v` (as [`Map::insert`]): in place when present, else appended
    /// (and the hint set to its new position).
    #[inline]
    pub fn insert_name(&mut self, name: &FieldName, v: Value) -> Option<Value> {
        match self.name_index_of(name) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, v)),
            None => {
                name.found_at(self.entries.len());
                self.push_new_name(name, v);
                None
            }
        }
    }

    /// Appends field `name`, known to be absent (as [`Map::push_new`]).
    #[inline]
    pub fn push_new_name(&mut self, name: &FieldName, v: Value) {
        debug_assert!(
            !self.contains_key(&name.key),
            "push_new_name: key {:?} is already present",
            name.key
        );
        // The scanned map's push written out here rather than through `push`: a shared
        // tagged push was not inlined into the task's per-field loop and cost it about a tenth.
        match self.index {
            None if self.entries.len() < LINEAR_MAX => {
                self.entries.push((name.key.clone(), v, name.tag))
            }
            _ => self.push(name.key.clone(), v),
        }
    }

    /// [`Map::get_index_of`] through the hash index. Kept out of line: the linear scan, which
    /// every instance-sized map uses, then inlines into its callers without the hash path's
    /// registers and stack frame.
    #[inline(never)]
    fn hashed_index_of(&self, ix: &HashTable<usize>, key: &str) -> Option<usize> {
        ix.find(hash(key), |&i| self.entries[i].0.as_str() == key).copied()
    }

    /// Positions of `keys`, found in one pass over the entries: the same as
    /// [`Map::get_index_of`] for each key (a key given twice gets its position twice), cheaper
    /// when several keys are looked up in a row (most of them absent, which costs a whole pass
    /// each).
    pub fn positions_of<const N: usize>(&self, keys: [&str; N]) -> [Option<usize>; N] {
        self.positions_of_tagged(keys, keys.map(tag))
    }

    /// [`Map::positions_of`] with the keys' tags given (`tags[k]` is `key_tag(keys[k])`, made
    /// once for keys known in advance, as a constant).
    pub fn positions_of_tagged<const N: usize>(&self, keys: [&str; N], tags: [u64; N]) -> [Option<usize>; N] {
        debug_assert!(keys.iter().zip(&tags).all(|(k, t)| tag(k) == *t), "positions_of_tagged: a tag does not match its key");
        let mut out = [None; N];
        match &self.index {
            None => {
                for (i, e) in self.entries.iter().enumerate() {
                    for k in 0..N {
                        if holds(e, keys[k], tags[k]) {
                            out[k] = Some(i);
                        }
                    }
                }
            }
            Some(_) => {
                for k in 0..N {
                    out[k] = self.get_index_of(keys[k]);
                }
            }
        }
        out
    }

    /// The value at position `i` (from [`Map::positions_of`] or [`Map::get_index_of`]).
    /// Panics when `i` is out of bounds.
    #[inline]
    pub fn get_index(&self, i: usize) -> &Value {
        &self.entries[i].1
    }

    /// The value at position `i`, mutable (see [`Map::get_index`]). Panics when `i` is out of
    /// bounds.
    #[inline]
    pub fn get_index_mut(&mut self, i: usize) -> &mut Value {
        &mut self.entries[i].1
    }

    /// The key and value at position `i` (the value mutable), or `None` past the end.
    #[inline]
    pub fn get_index_entry_mut(&mut self, i: usize) -> Option<(&Key, &mut Value)> {
        self.entries.get_mut(i).map(|e| (&e.0, &mut e.1))
    }

    /// Sets `key` to `v` where [`Map::positions_of`] found it (`pos`, which must still be
    /// `key`'s position), or appends it when `pos` is `None`; returns the replaced value.
    #[inline]
    pub fn set_at(&mut self, pos: Option<usize>, key: &str, v: Value) -> Option<Value> {
        match pos {
            Some(i) => {
                debug_assert_eq!(self.entries[i].0.as_str(), key, "set_at: position {i} is not {key:?}");
                Some(std::mem::replace(&mut self.entries[i].1, v))
            }
            None => {
                self.push_new(key.into(), v);
                None
            }
        }
    }

    fn rebuild_index(&mut self) {
        if self.entries.len() <= LINEAR_MAX {
            self.index = None;
            return;
        }
        let mut t = HashTable::with_capacity(self.entries.len());
        for (i, (k, _, _)) in self.entries.iter().enumerate() {
            let entries = &self.entries;
            t.insert_unique(hash(k), i, |&j| hash(&entries[j].0));
        }
        self.index = Some(Box::new(t));
    }

    /// The value of `key`, looked for first at position `hint` (where the previous call with
    /// this hint found its key: maps built the same way for every instance keep their
    /// layout), which is updated when the key is elsewhere.
    #[inline]
    pub fn get_hinted(&self, key: &str, hint: &std::cell::Cell<u32>) -> Option<&Value> {
        let i = self.hinted_index_of(key, tag(key), hint.get() as usize)?;
        hint.set(i as u32);
        Some(&self.entries[i].1)
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.get_index_of(key).map(|i| &self.entries[i].1)
    }

    /// The value of `key`, mutable.
    #[inline]
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.get_index_of(key).map(|i| &mut self.entries[i].1)
    }

    /// True when `key` is present.
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.get_index_of(key).is_some()
    }

    /// Appends an entry known to be absent.
    #[inline]
    fn push(&mut self, k: Key, v: Value) {
        let i = self.entries.len();
        match &mut self.index {
            Some(ix) => {
                let entries = &self.entries;
                ix.insert_unique(hash(&k), i, |&j| hash(&entries[j].0));
                let t = tag(&k);
                self.entries.push((k, v, t));
            }
            None => {
                let t = tag(&k);
                self.entries.push((k, v, t));
                if self.entries.len() > LINEAR_MAX {
                    self.rebuild_index();
                }
            }
        }
    }

    /// Sets `key` to `v`. An existing key keeps its position and its old value is returned (as
    /// a Python dict assignment does); a new key goes last.
    #[inline]
    pub fn insert(&mut self, k: Key, v: Value) -> Option<Value> {
        match self.get_index_of(&k) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, v)),
            None => {
                self.push(k, v);
                None
            }
        }
    }

    /// Appends `k` without looking for it first: for callers that know the key is absent (a
    /// fresh map filled from distinct names). A present key would be duplicated, so debug
    /// builds check.
    #[inline]
    pub fn push_new(&mut self, k: Key, v: Value) {
        debug_assert!(!self.contains_key(&k), "push_new: key {k:?} is already present");
        self.push(k, v);
    }

    /// Removes the entry at position `i`, moving the last entry into its place.
    fn swap_remove_at(&mut self, i: usize) -> (Key, Value) {
        if let Some(ix) = &mut self.index {
            let last = self.entries.len() - 1;
            let h = hash(&self.entries[i].0);
            if let Ok(e) = ix.find_entry(h, |&j| j == i) {
                e.remove();
            }
            if i != last {
                let hl = hash(&self.entries[last].0);
                if let Some(p) = ix.find_mut(hl, |&j| j == last) {
                    *p = i;
                }
            }
        }
        let (k, v, _) = self.entries.swap_remove(i);
        (k, v)
    }

    /// Removes the entry at position `i`, keeping the order of the others.
    fn shift_remove_at(&mut self, i: usize) -> (Key, Value) {
        if let Some(ix) = &mut self.index {
            let h = hash(&self.entries[i].0);
            if let Ok(e) = ix.find_entry(h, |&j| j == i) {
                e.remove();
            }
            for j in ix.iter_mut() {
                if *j > i {
                    *j -= 1;
                }
            }
        }
        let (k, v, _) = self.entries.remove(i);
        (k, v)
    }

    /// Removes `key` as `serde_json::Map::remove` does with `preserve_order`: the last entry
    /// takes its place. Use [`Map::shift_remove`] where the order of the rest matters.
    #[inline]
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.swap_remove(key)
    }

    /// Removes `key`; the last entry takes its place.
    #[inline]
    pub fn swap_remove(&mut self, key: &str) -> Option<Value> {
        self.get_index_of(key).map(|i| self.swap_remove_at(i).1)
    }

    /// Removes `key`, keeping the order of the other entries.
    #[inline]
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        self.get_index_of(key).map(|i| self.shift_remove_at(i).1)
    }

    /// The entry of `key`, for in-place insertion.
    pub fn entry(&mut self, key: impl Into<Key>) -> Entry<'_> {
        let key = key.into();
        match self.get_index_of(&key) {
            Some(i) => Entry::Occupied(&mut self.entries[i].1),
            None => Entry::Vacant(VacantEntry { map: self, key }),
        }
    }

    /// Keeps the entries for which `f` returns true, in order.
    pub fn retain(&mut self, mut f: impl FnMut(&Key, &mut Value) -> bool) {
        let before = self.entries.len();
        self.entries.retain_mut(|(k, v, _)| f(k, v));
        if self.entries.len() != before && self.index.is_some() {
            self.rebuild_index();
        }
    }

    /// Entries in insertion order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    /// Entries in insertion order, values mutable.
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries.iter_mut())
    }

    /// Keys in insertion order.
    #[inline]
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _, _)| k)
    }

    /// Values in insertion order.
    #[inline]
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v, _)| v)
    }

    /// Values in insertion order, mutable.
    #[inline]
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v, _)| v)
    }
}

/// A place in a [`Map`] for one key (from [`Map::entry`]).
pub enum Entry<'a> {
    /// The key is absent.
    Vacant(VacantEntry<'a>),
    /// The key is present; its value.
    Occupied(&'a mut Value),
}

/// An absent key of a [`Map`].
pub struct VacantEntry<'a> {
    map: &'a mut Map,
    key: Key,
}

impl<'a> VacantEntry<'a> {
    /// Inserts `v` under the key (last in order) and returns it.
    pub fn insert(self, v: Value) -> &'a mut Value {
        let map = self.map;
        map.push(self.key, v);
        let last = map.entries.len() - 1;
        &mut map.entries[last].1
    }
}

impl<'a> Entry<'a> {
    /// The value, inserting `default` when the key is absent.
    pub fn or_insert(self, default: Value) -> &'a mut Value {
        match self {
            Entry::Occupied(v) => v,
            Entry::Vacant(e) => e.insert(default),
        }
    }

    /// The value, inserting `f()` when the key is absent.
    pub fn or_insert_with(self, f: impl FnOnce() -> Value) -> &'a mut Value {
        match self {
            Entry::Occupied(v) => v,
            Entry::Vacant(e) => e.insert(f()),
        }
    }
}

impl PartialEq for Map {
    /// Equal when both have the same keys with equal values; order is ignored (as for Python
    /// dicts and `serde_json::Map`).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Eq for Map {}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for Map {
    type Output = Value;
    /// The value of a key; panics when it is absent (as `serde_json::Map`'s index does).
    fn index(&self, key: &str) -> &Value {
        self.get(key).expect("key not in map")
    }
}

impl std::ops::IndexMut<&str> for Map {
    fn index_mut(&mut self, key: &str) -> &mut Value {
        self.get_mut(key).expect("key not in map")
    }
}

impl FromIterator<(Key, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(iter: I) -> Self {
        let mut m = Map::new();
        m.extend(iter);
        m
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        iter.into_iter().map(|(k, v)| (Key::from(k), v)).collect()
    }
}

impl Extend<(Key, Value)> for Map {
    fn extend<I: IntoIterator<Item = (Key, Value)>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.entries.reserve(iter.size_hint().0);
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

/// Borrowing iterator over a [`Map`]'s entries.
#[derive(Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (Key, Value, u64)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Key, &'a Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v, _)| (k, v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}
impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v, _)| (k, v))
    }
}
impl ExactSizeIterator for Iter<'_> {}

/// Iterator over a [`Map`]'s entries with mutable values.
pub struct IterMut<'a>(std::slice::IterMut<'a, (Key, Value, u64)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a Key, &'a mut Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v, _)| (&*k, v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}
impl DoubleEndedIterator for IterMut<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v, _)| (&*k, v))
    }
}
impl ExactSizeIterator for IterMut<'_> {}

/// Owning iterator over a [`Map`]'s entries.
pub struct IntoIter(std::vec::IntoIter<(Key, Value, u64)>);

impl Iterator for IntoIter {
    type Item = (Key, Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v, _)| (k, v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}
impl DoubleEndedIterator for IntoIter {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v, _)| (k, v))
    }
}
impl ExactSizeIterator for IntoIter {}

impl IntoIterator for Map {
    type Item = (Key, Value);
    type IntoIter = IntoIter;
    #[inline]
    fn into_iter(self) -> IntoIter {
        IntoIter(self.entries.into_iter())
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Key, &'a Value);
    type IntoIter = Iter<'a>;
    #[inline]
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a Key, &'a mut Value);
    type IntoIter = IterMut<'a>;
    #[inline]
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(m: &Map) -> Vec<&str> {
        m.keys().map(|k| k.as_str()).collect()
    }

    #[test]
    fn long_keys_that_share_a_tag_are_told_apart_at_every_byte() {
        // Lengths 8 to 40 (word compares up to 16, memcmp above), each byte changed in turn.
        for n in 8..=40 {
            let key: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_long_key(&key, &key.clone()), "length {n}");
            for at in 0..n {
                let mut other = key.clone();
                other[at] = b'Z';
                assert!(!same_long_key(&key, &other), "length {n}, byte {at}");
            }
            let mut longer = key.clone();
            longer.push(b'a');
            assert!(!same_long_key(&longer, &key), "length {n} against {}", n + 1);
        }
        // Through the map: keys of 9 and 17 bytes that differ only in their last byte.
        let mut m = Map::new();
        for k in ["reference", "referencf", "data_classificati", "data_classificatj"] {
            m.insert(k.into(), Value::from(k));
        }
        for k in ["reference", "referencf", "data_classificati", "data_classificatj"] {
            assert_eq!(m.get(k), Some(&Value::from(k)));
        }
        assert_eq!(m.get("referencg"), None);
    }

    #[test]
    fn tag_is_length_and_first_seven_bytes() {
        let text = "abcdefghijklmnopqrstu";
        for n in 0..=text.len() {
            let key = &text[..n];
            let mut low = [0u8; 8];
            low[..n.min(7)].copy_from_slice(&key.as_bytes()[..n.min(7)]);
            low[7] = n as u8;
            assert_eq!(tag(key), u64::from_le_bytes(low), "{key:?}");
        }
        assert_eq!(tag(&"x".repeat(300)) >> 56, 255);
        // Keys that share a tag: long keys with the same length and first seven bytes.
        let mut m = Map::new();
        m.insert("input_fields".into(), Value::from(1));
        m.insert("input_fieldz".into(), Value::from(2));
        assert_eq!(m.get("input_fieldz"), Some(&Value::from(2)));
        assert_eq!(m.get("input_fields"), Some(&Value::from(1)));
        assert_eq!(m.get("input_field"), None);
    }

    /// A hinted lookup finds what `get` finds, whatever the hint holds (right, stale, out of
    /// range, or the position of a key sharing the tag), and leaves the key's position there.
    #[test]
    fn hinted_lookups_agree_with_plain_ones() {
        let mut m = Map::new();
        for k in ["input_fields", "input_fieldz", "a", "bb", "source"] {
            m.insert(k.into(), Value::from(k.len()));
        }
        for key in ["input_fields", "input_fieldz", "a", "bb", "source", "b", "input_field", "missing"] {
            for start in [0u32, 1, 2, 3, 4, 5, 99] {
                let hint = std::cell::Cell::new(start);
                assert_eq!(m.get_hinted(key, &hint), m.get(key), "{key:?} from {start}");
                if let Some(i) = m.get_index_of(key) {
                    assert_eq!(hint.get() as usize, i, "{key:?} from {start}");
                    assert_eq!(m.get_hinted(key, &hint), m.get(key));
                }
            }
        }
    }

    #[test]
    fn positions_of_agree_with_single_lookups() {
        for n in [6usize, 40] {
            let mut m = Map::new();
            for i in 0..n {
                m.insert(format!("key_number_{i}").into(), Value::from(i));
            }
            m.insert("a".into(), Value::Null);
            m.insert("input_fieldz".into(), Value::Null);
            let wanted = ["a", "key_number_3", "input_fields", "input_fieldz", "missing", "key_number_5"];
            assert_eq!(m.positions_of(wanted), wanted.map(|k| m.get_index_of(k)), "{n} entries");
            let twice = ["key_number_3", "missing", "key_number_3", "missing"];
            assert_eq!(m.positions_of(twice), [Some(3), None, Some(3), None], "{n} entries");
            let [a, _, absent, ..] = m.positions_of(wanted);
            assert_eq!(m.set_at(a, "a", Value::from(1)), Some(Value::Null));
            assert_eq!(m.set_at(absent, "input_fields", Value::from(2)), None);
            assert_eq!((m.get("a"), m.get("input_fields")), (Some(&Value::from(1)), Some(&Value::from(2))));
            assert_eq!(keys(&m).last(), Some(&"input_fields"));
        }
    }

    /// The same operations on a small (scanned) and a large (indexed) map, checked against a
    /// plain vector model of a Python dict plus `serde_json`'s swap-remove.
    #[test]
    fn matches_a_vector_model_small_and_indexed() {
        for n in [5usize, 80] {
            let mut m = Map::new();
            let mut model: Vec<(String, i64)> = Vec::new();
            for i in 0..n as i64 {
                assert_eq!(m.insert(format!("k{i}").into(), Value::from(i)), None);
                model.push((format!("k{i}"), i));
            }
            assert_eq!(n > LINEAR_MAX, m.index.is_some());
            // Re-insert keeps the position.
            assert_eq!(m.insert("k1".into(), Value::from(100)), Some(Value::from(1)));
            model[1].1 = 100;
            // swap_remove: the last entry moves into the hole.
            assert_eq!(m.swap_remove("k0"), Some(Value::from(0)));
            let last = model.pop().unwrap();
            model[0] = last;
            // shift_remove keeps the order.
            assert_eq!(m.shift_remove("k2"), Some(Value::from(2)));
            model.remove(2);
            assert_eq!(m.shift_remove("absent"), None);
            let want: Vec<&str> = model.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(keys(&m), want);
            for (k, v) in &model {
                assert_eq!(m.get(k), Some(&Value::from(*v)), "{k} in map of {n}");
            }
            m.retain(|k, _| k != "k3");
            model.retain(|(k, _)| k != "k3");
            for (k, v) in &model {
                assert_eq!(m.get(k), Some(&Value::from(*v)));
            }
            assert_eq!(m.get("k3"), None);
            assert_eq!(m.len(), model.len());
        }
    }

    /// The `FieldName` calls act as their plain counterparts, in a scanned map and in a hashed
    /// one, and across the size at which a map becomes hashed.
    #[test]
    fn field_names_act_as_plain_keys() {
        for n in [3usize, LINEAR_MAX - 1, LINEAR_MAX, 60] {
            let mut a = Map::new();
            let mut b = Map::new();
            for i in 0..n {
                let name = format!("field_name_{i}");
                a.push_new(name.as_str().into(), Value::from(i as i64));
                b.push_new_name(&FieldName::new(&name), Value::from(i as i64));
            }
            assert_eq!(keys(&a), keys(&b), "{n}");
            assert_eq!(a.index.is_some(), b.index.is_some(), "{n}");
            assert_eq!(b.index.is_some(), n > LINEAR_MAX, "{n}");
            let absent = FieldName::new("field_name_x");
            assert_eq!(b.get_name(&absent), None);
            assert_eq!(b.swap_remove_name(&absent), None);
            let first = FieldName::new("field_name_0");
            assert_eq!(first.as_str(), "field_name_0");
            assert_eq!(b.get_name(&first), Some(&Value::from(0)));
            assert_eq!(b.swap_remove_name(&first), a.swap_remove("field_name_0"));
            assert_eq!(keys(&a), keys(&b), "{n}");
            assert_eq!(b.get_name(&first), None);
            for i in 1..n {
                let name = format!("field_name_{i}");
                assert_eq!(
                    b.get_name(&FieldName::new(&name)),
                    Some(&Value::from(i as i64)),
                    "{name} of {n}"
                );
            }
        }
    }

    /// The compile-time tag is the tag, for keys of every length class.
    #[test]
    fn key_tag_is_tag() {
        let text = "abcdefghijklmnopqrstu";
        for n in 0..=text.len() {
            assert_eq!(key_tag(&text[..n]), tag(&text[..n]), "{n}");
        }
        assert_eq!(key_tag(&"x".repeat(300)), tag(&"x".repeat(300)));
        const T: [u64; 3] = tags_of(["", "ab", "input_fields"]);
        assert_eq!(T, ["", "ab", "input_fields"].map(tag));
        let mut m = Map::new();
        m.insert("ab".into(), Value::Null);
        m.insert("input_fields".into(), Value::Null);
        assert_eq!(m.positions_of_tagged(["", "ab", "input_fields"], T), [None, Some(0), Some(1)]);
    }

    /// Hinted `FieldName` calls give what the plain calls give whatever their hint holds
    /// (another key's position, a position past the end, a stale one after removals), and a
    /// found name's hint is where it was found.
    #[test]
    fn field_name_hints_follow_the_field() {
        let text = FieldName::new("text");
        let label = FieldName::new("label");
        let long = FieldName::new("input_fields");
        let twin = FieldName::new("input_fieldz");
        let mut m = Map::new();
        for k in ["idx", "input_fieldz", "text", "input_fields"] {
            m.insert(k.into(), Value::from(k));
        }
        // Found where the hint (0) does not point, then at the hint.
        assert_eq!(m.get_name(&text), Some(&Value::from("text")));
        assert_eq!(text.hint(), 2);
        assert_eq!(m.get_name(&long), Some(&Value::from("input_fields")));
        assert_eq!(long.hint(), 3);
        // A hint at a key sharing the tag is not taken for the key.
        twin.found_at(3);
        assert_eq!(m.get_name(&twin), Some(&Value::from("input_fieldz")));
        assert_eq!(twin.hint(), 1);
        // Absent: nothing found, hint unchanged.
        assert_eq!((m.contains_name(&label), label.hint()), (false, 0));
        // Inserted: appended, the hint at its new place; then replaced in place.
        assert_eq!(m.insert_name(&label, Value::from(1)), None);
        assert_eq!(label.hint(), 4);
        assert_eq!(m.insert_name(&label, Value::from(2)), Some(Value::from(1)));
        assert_eq!(keys(&m), ["idx", "input_fieldz", "text", "input_fields", "label"]);
        // Removals move fields; stale and out-of-range hints still find them.
        assert_eq!(m.shift_remove_name(&twin), Some(Value::from("input_fieldz")));
        assert_eq!(keys(&m), ["idx", "text", "input_fields", "label"]);
        assert_eq!(m.get_name_mut(&label), Some(&mut Value::from(2)));
        assert_eq!(label.hint(), 3);
        assert_eq!(m.swap_remove_name(&text), Some(Value::from("text")));
        assert_eq!(keys(&m), ["idx", "label", "input_fields"]);
        assert_eq!(m.get_name(&label), Some(&Value::from(2)));
        assert_eq!(label.hint(), 1);
        long.found_at(99);
        assert_eq!(m.get_name(&long), Some(&Value::from("input_fields")));
        assert_eq!(long.hint(), 2);
        // Clones keep the hint; equality is by name.
        let copy = long.clone();
        assert_eq!((copy.hint(), copy == long, copy == twin), (2, true, false));
    }

    #[test]
    fn entry_and_equality_ignore_order() {
        let mut a = Map::new();
        a.entry("x").or_insert(Value::from(1));
        *a.entry("x").or_insert(Value::from(2)) = Value::from(3);
        a.insert("y".into(), Value::Null);
        let b: Map = [("y".to_string(), Value::Null), ("x".to_string(), Value::from(3))].into_iter().collect();
        assert_eq!(a, b);
        assert_eq!(keys(&a), ["x", "y"]);
        assert_eq!(format!("{:?}", b), r#"{"y": Null, "x": Number(3)}"#);
    }
}
