//! Secondary index definitions: on a bin, on a value inside a bin (CDT context) or on an
//! expression, of a value type, over a collection's elements or not.
//!
//! A query reads the entries its range holds in each partition (built on a partition the first
//! time a query asks, then kept on every write) and checks each record against the filter, in
//! the real server's (bval, digest) order, so results and partition resume behave like the
//! partitioned queries of a real server.

pub mod bval;
mod entries;
mod filter;
mod key;
pub mod request;

use std::sync::RwLock;

use engine::particle_type as pt;

pub use entries::Entries;
pub use filter::{elements, Filter, Span};
pub use key::{canonical, indexed_value};

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
    /// Empty for an expression index.
    pub bin: String,
    pub itype: IndexType,
    pub collection: Collection,
    /// CDT context inside the bin: canonical msgpack `[id, value, ...]`.
    pub context: Option<Vec<u8>>,
    /// Expression whose value is indexed (wire bytes).
    pub exp: Option<Vec<u8>>,
}

impl SIndex {
    /// Whether `other` indexes the same values (whatever its name).
    pub fn same_definition(&self, other: &SIndex) -> bool {
        self.ns == other.ns
            && self.set == other.set
            && self.bin == other.bin
            && self.itype == other.itype
            && self.collection == other.collection
            && self.context == other.context
            && self.exp == other.exp
    }
}

/// All indexes of a server.
#[derive(Default)]
pub struct Registry {
    indexes: RwLock<Vec<SIndex>>,
}

/// Why an index could not be created (server error code 200).
#[derive(Debug, PartialEq, Eq)]
pub enum IndexError {
    /// The name is taken by another definition.
    Exists,
    /// The namespace holds as many definitions as it may.
    Full,
}

impl Registry {
    /// As a real server: the same name and definition again is a no-op, the same name with
    /// another definition is refused, the same definition under a new name renames the index.
    /// A new definition is refused once the namespace holds `limit`.
    pub fn create(&self, idx: SIndex, limit: usize) -> Result<(), IndexError> {
        let mut all = self.indexes.write().unwrap_or_else(|e| e.into_inner());
        if let Some(named) = all.iter().find(|i| i.ns == idx.ns && i.name == idx.name) {
            return if named.same_definition(&idx) {
                Ok(())
            } else {
                Err(IndexError::Exists)
            };
        }
        if let Some(existing) = all.iter_mut().find(|i| i.same_definition(&idx)) {
            existing.name = idx.name;
        } else if all.iter().filter(|i| i.ns == idx.ns).count() >= limit {
            return Err(IndexError::Full);
        } else {
            all.push(idx);
        }
        Ok(())
    }

    /// Drops the index; dropping one that does not exist is not an error (as a real server).
    pub fn drop_index(&self, ns: &str, name: &str) {
        let mut all = self.indexes.write().unwrap_or_else(|e| e.into_inner());
        all.retain(|i| !(i.ns == ns && i.name == name));
    }

    /// Whether an index of the same definition as `def` exists (whatever its name).
    pub fn holds(&self, def: &SIndex) -> bool {
        let all = self.indexes.read().unwrap_or_else(|e| e.into_inner());
        all.iter().any(|i| i.same_definition(def))
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

    /// The index on `source` (a bin with an optional context, or an expression) of value type
    /// `ptype` serving a query on `set`.
    pub fn lookup(&self, ns: &str, set: &str, want: &Wanted<'_>) -> Option<SIndex> {
        self.list().into_iter().find(|i| {
            i.ns == ns
                && (i.set.is_empty() || i.set == set)
                && i.itype.particle_type() == want.ptype
                && i.collection == want.collection
                && match &want.exp {
                    Some(exp) => i.exp.as_deref() == Some(&exp[..]),
                    None => i.exp.is_none() && i.bin == want.bin && i.context == want.context,
                }
        })
    }
}

/// What a query asks of an index it does not name.
pub struct Wanted<'a> {
    pub bin: &'a str,
    pub ptype: u8,
    pub collection: Collection,
    pub context: Option<Vec<u8>>,
    pub exp: Option<Vec<u8>>,
}
#[cfg(test)]
mod tests {
    use super::*;

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
            context: None,
            exp: None,
        };
        assert_eq!(reg.create(idx.clone(), 2), Ok(()));
        assert_eq!(reg.create(idx.clone(), 2), Ok(()));
        let other_bin = SIndex {
            bin: "b".into(),
            ..idx.clone()
        };
        assert_eq!(reg.create(other_bin, 2), Err(IndexError::Exists));
        let renamed = SIndex {
            name: "j".into(),
            ..idx.clone()
        };
        assert_eq!(reg.create(renamed, 2), Ok(()));
        assert!(reg.find("test", "i").is_none() && reg.find("test", "j").is_some());
        assert_eq!(reg.create(idx.clone(), 2), Ok(()));
        let second = SIndex {
            name: "k".into(),
            bin: "c".into(),
            ..idx.clone()
        };
        assert_eq!(reg.create(second, 2), Ok(()));
        let third = SIndex {
            name: "l".into(),
            bin: "d".into(),
            ..idx.clone()
        };
        assert_eq!(reg.create(third.clone(), 2), Err(IndexError::Full));
        let elsewhere = SIndex {
            ns: "bar".into(),
            ..third
        };
        assert_eq!(reg.create(elsewhere, 2), Ok(()));
        let want = |bin| Wanted {
            bin,
            ptype: pt::INTEGER,
            collection: Collection::Default,
            context: None,
            exp: None,
        };
        assert!(reg.lookup("test", "s", &want("a")).is_some());
        assert!(reg.lookup("test", "other", &want("a")).is_none());
        assert!(reg.lookup("test", "s", &want("b")).is_none());
        reg.drop_index("test", "i");
        reg.drop_index("test", "i");
        assert!(reg.find("test", "i").is_none());
    }
}
