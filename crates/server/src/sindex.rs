//! Secondary index definitions and value matching (equality and ranges on int and string bins).
//!
//! Matching scans partitions in digest order, so query results and partition resume behave like
//! the partitioned queries of a real server.

use std::sync::RwLock;

use engine::particle_type as pt;
use engine::Particle;
use rmpv::Value;

/// Indexed value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexType {
    Numeric,
    String,
    Blob,
    Geo,
}

impl IndexType {
    pub fn parse(s: &str) -> Option<IndexType> {
        match s.to_ascii_lowercase().as_str() {
            "numeric" => Some(IndexType::Numeric),
            "string" => Some(IndexType::String),
            "blob" => Some(IndexType::Blob),
            "geo2dsphere" => Some(IndexType::Geo),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IndexType::Numeric => "numeric",
            IndexType::String => "string",
            IndexType::Blob => "blob",
            IndexType::Geo => "geo2dsphere",
        }
    }

    fn particle_type(self) -> u8 {
        match self {
            IndexType::Numeric => pt::INTEGER,
            IndexType::String => pt::STRING,
            IndexType::Blob => pt::BLOB,
            IndexType::Geo => pt::GEOJSON,
        }
    }
}

/// Collection an index looks inside (wire values of field 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collection {
    Default = 0,
    List = 1,
    MapKeys = 2,
    MapValues = 3,
}

impl Collection {
    pub fn parse(s: &str) -> Option<Collection> {
        match s.to_ascii_lowercase().as_str() {
            "default" | "" => Some(Collection::Default),
            "list" => Some(Collection::List),
            "mapkeys" => Some(Collection::MapKeys),
            "mapvalues" => Some(Collection::MapValues),
            _ => None,
        }
    }

    pub fn from_wire(b: u8) -> Option<Collection> {
        [
            Collection::Default,
            Collection::List,
            Collection::MapKeys,
            Collection::MapValues,
        ]
        .get(usize::from(b))
        .copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            Collection::Default => "default",
            Collection::List => "list",
            Collection::MapKeys => "mapkeys",
            Collection::MapValues => "mapvalues",
        }
    }
}

/// One secondary index.
#[derive(Debug, Clone)]
pub struct SIndex {
    pub ns: String,
    pub set: String,
    pub name: String,
    pub bin: String,
    pub itype: IndexType,
    pub collection: Collection,
}

/// All indexes of a server.
#[derive(Default)]
pub struct Registry {
    indexes: RwLock<Vec<SIndex>>,
}

/// Why an index could not be created or dropped (server error codes 200/201).
#[derive(Debug, PartialEq, Eq)]
pub enum IndexError {
    Exists,
    NotFound,
}

impl Registry {
    pub fn create(&self, idx: SIndex) -> Result<(), IndexError> {
        let mut all = self.indexes.write().unwrap_or_else(|e| e.into_inner());
        let same_def = |i: &SIndex| {
            i.ns == idx.ns
                && i.set == idx.set
                && i.bin == idx.bin
                && i.itype == idx.itype
                && i.collection == idx.collection
        };
        if all
            .iter()
            .any(|i| i.ns == idx.ns && i.name == idx.name || same_def(i))
        {
            return Err(IndexError::Exists);
        }
        all.push(idx);
        Ok(())
    }

    pub fn drop_index(&self, ns: &str, name: &str) -> Result<(), IndexError> {
        let mut all = self.indexes.write().unwrap_or_else(|e| e.into_inner());
        let before = all.len();
        all.retain(|i| !(i.ns == ns && i.name == name));
        if all.len() == before {
            return Err(IndexError::NotFound);
        }
        Ok(())
    }

    pub fn list(&self) -> Vec<SIndex> {
        self.indexes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn find(&self, ns: &str, name: &str) -> Option<SIndex> {
        self.list()
            .into_iter()
            .find(|i| i.ns == ns && i.name == name)
    }

    /// The index serving a filter on `bin` of value type `ptype` for a query on `set`.
    pub fn lookup(
        &self,
        ns: &str,
        set: &str,
        bin: &str,
        ptype: u8,
        collection: Collection,
        name: Option<&str>,
    ) -> Option<SIndex> {
        self.list().into_iter().find(|i| {
            i.ns == ns
                && (i.set.is_empty() || i.set == set)
                && name.is_none_or(|n| n == i.name)
                && i.bin == bin
                && i.itype.particle_type() == ptype
                && i.collection == collection
        })
    }
}

/// A decoded INDEX_RANGE filter.
#[derive(Debug, Clone)]
pub struct Filter {
    pub bin: String,
    pub ptype: u8,
    pub begin: Vec<u8>,
    pub end: Vec<u8>,
}

impl Filter {
    /// Parses field 22: count, then bin name, particle type, begin and end values.
    pub fn parse(data: &[u8]) -> Option<Filter> {
        let mut r = crate::wire::Reader::new(data);
        let count = r.u8().ok()?;
        if count != 1 {
            return None;
        }
        let name_len = usize::from(r.u8().ok()?);
        let bin = std::str::from_utf8(r.take(name_len).ok()?)
            .ok()?
            .to_string();
        let ptype = r.u8().ok()?;
        let blen = r.u32().ok()? as usize;
        let begin = r.take(blen).ok()?.to_vec();
        let elen = r.u32().ok()? as usize;
        let end = r.take(elen).ok()?.to_vec();
        Some(Filter {
            bin,
            ptype,
            begin,
            end,
        })
    }

    /// Whether `bin` (the record's value of the filtered bin) matches.
    pub fn matches(&self, bin: &Particle, collection: Collection) -> bool {
        match collection {
            Collection::Default => self.matches_scalar(bin),
            _ => self.matches_collection(bin, collection),
        }
    }

    fn matches_scalar(&self, bin: &Particle) -> bool {
        if bin.ptype != self.ptype {
            return false;
        }
        match self.ptype {
            pt::INTEGER => match (be_i64(&bin.data), be_i64(&self.begin), be_i64(&self.end)) {
                (Some(v), Some(lo), Some(hi)) => lo <= v && v <= hi,
                _ => false,
            },
            _ => bin.data[..] == self.begin[..],
        }
    }

    fn matches_collection(&self, bin: &Particle, collection: Collection) -> bool {
        let wanted = matches!(
            (collection, bin.ptype),
            (Collection::List, pt::LIST)
                | (Collection::MapKeys, pt::MAP)
                | (Collection::MapValues, pt::MAP)
        );
        if !wanted {
            return false;
        }
        let Ok(value) = rmpv::decode::read_value_with_max_depth(
            &mut &bin.data[..],
            engine::pack::RMPV_MAX_DEPTH,
        ) else {
            return false;
        };
        let items: Vec<&Value> = match (&value, collection) {
            (Value::Array(a), Collection::List) => a.iter().collect(),
            (Value::Map(m), Collection::MapKeys) => m.iter().map(|(k, _)| k).collect(),
            (Value::Map(m), Collection::MapValues) => m.iter().map(|(_, v)| v).collect(),
            _ => return false,
        };
        items.into_iter().any(|v| self.matches_value(v))
    }

    fn matches_value(&self, v: &Value) -> bool {
        match (self.ptype, v) {
            (pt::INTEGER, Value::Integer(i)) => {
                match (i.as_i64(), be_i64(&self.begin), be_i64(&self.end)) {
                    (Some(v), Some(lo), Some(hi)) => lo <= v && v <= hi,
                    _ => false,
                }
            }
            // Strings inside CDTs carry a leading particle-type byte.
            (pt::STRING, Value::String(s)) => s
                .as_bytes()
                .split_first()
                .is_some_and(|(_, rest)| rest == &self.begin[..]),
            (pt::STRING, Value::Binary(b)) => b
                .split_first()
                .is_some_and(|(t, rest)| *t == pt::STRING && rest == &self.begin[..]),
            _ => false,
        }
    }
}

fn be_i64(b: &[u8]) -> Option<i64> {
    Some(i64::from_be_bytes(b.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn int(v: i64) -> Particle {
        Particle {
            ptype: pt::INTEGER,
            data: Bytes::copy_from_slice(&v.to_be_bytes()),
        }
    }

    fn range(lo: i64, hi: i64) -> Filter {
        Filter {
            bin: "a".into(),
            ptype: pt::INTEGER,
            begin: lo.to_be_bytes().to_vec(),
            end: hi.to_be_bytes().to_vec(),
        }
    }

    #[test]
    fn int_range_inclusive() {
        let f = range(3, 5);
        assert!(f.matches(&int(3), Collection::Default));
        assert!(f.matches(&int(5), Collection::Default));
        assert!(!f.matches(&int(6), Collection::Default));
    }

    #[test]
    fn list_collection() {
        // msgpack [1, 7]
        let list = Particle {
            ptype: pt::LIST,
            data: Bytes::from_static(&[0x92, 0x01, 0x07]),
        };
        assert!(range(7, 7).matches(&list, Collection::List));
        assert!(!range(8, 9).matches(&list, Collection::List));
        assert!(!range(7, 7).matches(&list, Collection::Default));
    }

    #[test]
    fn registry_rules() {
        let reg = Registry::default();
        let idx = SIndex {
            ns: "test".into(),
            set: "s".into(),
            name: "i".into(),
            bin: "a".into(),
            itype: IndexType::Numeric,
            collection: Collection::Default,
        };
        assert_eq!(reg.create(idx.clone()), Ok(()));
        assert_eq!(reg.create(idx), Err(IndexError::Exists));
        assert!(reg
            .lookup("test", "s", "a", pt::INTEGER, Collection::Default, None)
            .is_some());
        assert!(reg
            .lookup("test", "other", "a", pt::INTEGER, Collection::Default, None)
            .is_none());
        assert_eq!(reg.drop_index("test", "i"), Ok(()));
        assert_eq!(reg.drop_index("test", "i"), Err(IndexError::NotFound));
    }
}
