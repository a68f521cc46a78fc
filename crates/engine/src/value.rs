//! The decoded value model with the server's total ordering for mixed types.
//!
//! Order of types: NIL < BOOL < INT < STRING < LIST < MAP < BYTES < DOUBLE < GEOJSON < INF.
//! Lists compare element-wise (shorter prefix first); maps compare by length first, then
//! entry-wise in key order. `Wildcard` compares equal to anything.

use std::cmp::Ordering;

/// List order flag (wire attribute bit).
pub const LIST_ORDERED: u8 = 1;
/// Map order attributes (wire values).
pub const MAP_K_ORDERED: u8 = 1;
pub const MAP_KV_ORDERED: u8 = 3;

/// A decoded Aerospike value.
#[derive(Clone, Debug)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    Str(String),
    List(List),
    Map(Map),
    /// Blob-like bytes with their particle type (4 = blob, 18 = HLL, language blobs...).
    Bytes(u8, Vec<u8>),
    Float(f64),
    GeoJson(String),
    /// Compares above every value (range end "infinity").
    Inf,
    /// Compares equal to every value (value-list wildcards).
    Wildcard,
}

/// A list with its order flag (`flags & 1` = ordered; other bits such as persist-index kept).
#[derive(Clone, Debug, Default)]
pub struct List {
    pub flags: u8,
    pub items: Vec<Value>,
}

/// A map with its order attribute (0 unordered, 1 K-ordered, 3 KV-ordered; persist bit kept).
/// Every map keeps `entries` sorted by key: a real node stores unordered maps in key order too
/// (the attribute only changes what the map answers, e.g. inverted key lookups).
#[derive(Clone, Debug, Default)]
pub struct Map {
    pub flags: u8,
    pub entries: Vec<(Value, Value)>,
}

impl List {
    pub fn ordered(&self) -> bool {
        self.flags & LIST_ORDERED != 0
    }
    pub fn new(flags: u8, items: Vec<Value>) -> Self {
        let mut l = List { flags, items };
        if l.ordered() {
            l.items.sort();
        }
        l
    }
}

impl Map {
    pub fn ordered(&self) -> bool {
        self.flags & MAP_K_ORDERED != 0
    }
    pub fn new(flags: u8, entries: Vec<(Value, Value)>) -> Self {
        let mut m = Map { flags, entries };
        if m.needs_sort() {
            // A stable sort leaves repeated keys in the order given: the later one wins, like
            // repeated puts.
            m.entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut kept: Vec<(Value, Value)> = Vec::with_capacity(m.entries.len());
            for (k, v) in m.entries.drain(..) {
                match kept.last_mut() {
                    Some(last) if last.0.cmp(&k) == Ordering::Equal && last.0.same_type(&k) => {
                        last.1 = v
                    }
                    _ => kept.push((k, v)),
                }
            }
            m.entries = kept;
        }
        m
    }
    /// Puts `entries` in key order (a no-op pass when they already are).
    pub fn sort(&mut self) {
        if self.needs_sort() {
            self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        }
    }
    /// Out of key order, and sortable: a wildcard key (in a value to match) is in no order.
    fn needs_sort(&self) -> bool {
        !self.is_sorted() && !self.entries.iter().any(|e| e.0.has_wildcard())
    }
    /// Whether `entries` are in strict key order.
    pub fn is_sorted(&self) -> bool {
        self.entries.windows(2).all(|w| w[0].0 < w[1].0)
    }
    /// Position of `key` in `entries`.
    pub fn find(&self, key: &Value) -> Option<usize> {
        self.entries.binary_search_by(|e| e.0.cmp(key)).ok()
    }
    /// Inserts or replaces `key`, keeping key order.
    pub fn put(&mut self, key: Value, val: Value) {
        match self.find(&key) {
            Some(i) => self.entries[i].1 = val,
            None => {
                let at = self.entries.partition_point(|e| e.0 < key);
                self.entries.insert(at, (key, val));
            }
        }
    }
    /// Storage positions sorted by key (the map's index order; the identity for a map built
    /// through [`Map::new`] and [`Map::put`]).
    pub fn key_order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.entries.len()).collect();
        if !self.is_sorted() {
            idx.sort_by(|&a, &b| self.entries[a].0.cmp(&self.entries[b].0));
        }
        idx
    }
}

impl Value {
    fn type_rank(&self) -> u8 {
        match self {
            Value::Nil => 0,
            Value::Bool(_) => 1,
            Value::Int(_) => 2,
            Value::Str(_) => 3,
            Value::List(_) => 4,
            Value::Map(_) => 5,
            Value::Bytes(..) => 6,
            Value::Float(_) => 7,
            Value::GeoJson(_) => 8,
            Value::Inf => 9,
            Value::Wildcard => 10,
        }
    }
    fn same_type(&self, o: &Value) -> bool {
        self.type_rank() == o.type_rank()
    }
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// Whether this value (or anything nested) is a wildcard/infinity marker.
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        use Value::*;
        match (self, other) {
            (Wildcard, _) | (_, Wildcard) => Ordering::Equal,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (Str(a), Str(b)) | (GeoJson(a), GeoJson(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Bytes(_, a), Bytes(_, b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (List(a), List(b)) => {
                for (x, y) in a.items.iter().zip(&b.items) {
                    // A wildcard element matches the rest of the other list, however long.
                    if matches!(x, Wildcard) || matches!(y, Wildcard) {
                        return Ordering::Equal;
                    }
                    match x.cmp(y) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                }
                a.items.len().cmp(&b.items.len())
            }
            (Map(a), Map(b)) => a.entries.len().cmp(&b.entries.len()).then_with(|| {
                let (ka, kb) = (a.key_order(), b.key_order());
                for (&i, &j) in ka.iter().zip(&kb) {
                    let (x, y) = (&a.entries[i], &b.entries[j]);
                    match x.0.cmp(&y.0).then_with(|| x.1.cmp(&y.1)) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                }
                Ordering::Equal
            }),
            _ => self.type_rank().cmp(&other.type_rank()),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Value {}

impl Value {
    /// Whether a wildcard (equal to anything, so outside any order) is in it at some level.
    pub fn has_wildcard(&self) -> bool {
        match self {
            Value::Wildcard => true,
            Value::List(l) => l.items.iter().any(Value::has_wildcard),
            Value::Map(m) => m
                .entries
                .iter()
                .any(|(k, v)| k.has_wildcard() || v.has_wildcard()),
            _ => false,
        }
    }
}

/// Many values to test membership in: O(log n) per test, so matching a list against a value
/// list stays O((n + m) log m) rather than O(n * m). Values holding a wildcard are tried one
/// by one.
pub struct ValueSet<'a> {
    sorted: Vec<&'a Value>,
    wild: Vec<&'a Value>,
}

impl<'a> ValueSet<'a> {
    pub fn new(values: impl IntoIterator<Item = &'a Value>) -> Self {
        let (wild, mut sorted): (Vec<&Value>, Vec<&Value>) =
            values.into_iter().partition(|v| v.has_wildcard());
        sorted.sort();
        sorted.dedup();
        ValueSet { sorted, wild }
    }

    pub fn contains(&self, v: &Value) -> bool {
        let found = if v.has_wildcard() {
            self.sorted.contains(&v)
        } else {
            self.sorted.binary_search(&v).is_ok()
        };
        found || self.wild.contains(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::Value::*;
    use super::{List as L, ValueSet};

    #[test]
    fn value_sets_match_as_equality_does() {
        let list = |items| List(L { flags: 0, items });
        let vals = [
            Int(3),
            Str("a".into()),
            list(vec![Int(1), Wildcard]),
            Int(1),
        ];
        let set = ValueSet::new(&vals);
        for probe in [
            Int(1),
            Int(3),
            Str("a".into()),
            list(vec![Int(1), Int(9)]),
            Wildcard,
        ] {
            assert!(set.contains(&probe), "{probe:?}");
        }
        for probe in [Int(2), Str("b".into()), list(vec![Int(2), Int(9)])] {
            assert!(!set.contains(&probe), "{probe:?}");
        }
    }

    #[test]
    fn type_order() {
        let mut v = vec![
            Float(0.5),
            Bytes(4, vec![1]),
            Map(super::Map::default()),
            List(super::List::default()),
            Str("a".into()),
            Int(5),
            Bool(true),
            Nil,
            GeoJson("{}".into()),
            Inf,
        ];
        v.sort();
        let ranks: Vec<u8> = v.iter().map(|x| x.type_rank()).collect();
        assert_eq!(ranks, vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert!(Int(3) < Float(1.0));
        assert!(Str("ab".into()) < Str("b".into()));
    }

    #[test]
    fn a_map_is_built_in_key_order_and_a_later_repeated_key_wins() {
        let s = |x: &str| Str(x.into());
        let m = super::Map::new(
            0,
            vec![(s("b"), Int(1)), (Int(7), Int(2)), (s("b"), Int(3))],
        );
        let want = [(Int(7), Int(2)), (s("b"), Int(3))];
        assert_eq!(m.entries.len(), 2);
        for ((k, v), (wk, wv)) in m.entries.iter().zip(&want) {
            assert!(k == wk && v == wv, "{:?}", m.entries);
        }
    }

    #[test]
    fn list_and_map_order() {
        let l = |v: Vec<i64>| List(super::List::new(0, v.into_iter().map(Int).collect()));
        assert!(l(vec![]) < l(vec![0, 9]));
        assert!(l(vec![0, 9]) < l(vec![1]));
        assert!(l(vec![1]) < l(vec![1, 2]));
        let m = |v: Vec<(i64, i64)>| {
            Map(super::Map::new(
                0,
                v.into_iter().map(|(a, b)| (Int(a), Int(b))).collect(),
            ))
        };
        assert!(m(vec![(5, 5)]) < m(vec![(1, 1), (2, 2)]));
        assert!(m(vec![(2, 0), (1, 1)]) == m(vec![(1, 1), (2, 0)]));
        assert!(l(vec![1, 2]) == List(super::List::new(0, vec![Int(1), Wildcard])));
        assert!(l(vec![1, 2, 3]) == List(super::List::new(0, vec![Int(1), Wildcard])));
    }
}
