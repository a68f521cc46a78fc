//! A query's index condition (field 22) and whether an indexed value meets it.

use engine::exp::geo;
use engine::particle_type as pt;
use engine::value::Value;

use super::bval;
use super::Collection;

/// The index entries a filter can match.
#[derive(Debug, PartialEq, Eq)]
pub enum Span {
    /// Entries with a bval from the first to the second, both included.
    Bvals(i64, i64),
    /// Any entry (a region: its points have no bval order).
    Every,
    Nothing,
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

    /// Whether a record whose indexed value is `v` matches: the value itself, or one of its
    /// elements for a list / map-keys / map-values index.
    #[cfg(test)]
    pub fn matches(&self, v: &Value, collection: Collection) -> bool {
        self.matching(v, collection).next().is_some()
    }

    /// The elements of `v` (or `v` itself) that match.
    pub fn matching<'v>(
        &'v self,
        v: &'v Value,
        collection: Collection,
    ) -> impl Iterator<Item = &'v Value> + 'v {
        elements(v, collection).filter(|e| self.matches_one(e))
    }

    /// The entries that can match.
    pub fn span(&self) -> Span {
        match self.ptype {
            pt::INTEGER => match (be_i64(&self.begin), be_i64(&self.end)) {
                (Some(lo), Some(hi)) if lo <= hi => Span::Bvals(lo, hi),
                _ => Span::Nothing,
            },
            pt::STRING | pt::BLOB => {
                let h = bval::hashed(&self.begin);
                Span::Bvals(h, h)
            }
            pt::GEOJSON => Span::Every,
            _ => Span::Nothing,
        }
    }

    fn matches_one(&self, v: &Value) -> bool {
        match (self.ptype, v) {
            (pt::INTEGER, Value::Int(i)) => match (be_i64(&self.begin), be_i64(&self.end)) {
                (Some(lo), Some(hi)) => lo <= *i && *i <= hi,
                _ => false,
            },
            (pt::STRING, Value::Str(s)) => s.as_bytes() == &self.begin[..],
            (pt::BLOB, Value::Bytes(pt::BLOB, b)) => b[..] == self.begin[..],
            (pt::GEOJSON, Value::GeoJson(text)) => {
                geo::compare(text, &String::from_utf8_lossy(&self.begin))
            }
            _ => false,
        }
    }
}

/// The elements of `v` an index over `collection` holds: `v` itself, or the items of a list,
/// the keys or the values of a map.
pub fn elements<'v>(
    v: &'v Value,
    collection: Collection,
) -> Box<dyn Iterator<Item = &'v Value> + 'v> {
    match (collection, v) {
        (Collection::Default, v) => Box::new(std::iter::once(v)),
        (Collection::List, Value::List(l)) => Box::new(l.items.iter()),
        (Collection::MapKeys, Value::Map(m)) => Box::new(m.entries.iter().map(|e| &e.0)),
        (Collection::MapValues, Value::Map(m)) => Box::new(m.entries.iter().map(|e| &e.1)),
        _ => Box::new(std::iter::empty()),
    }
}

fn be_i64(b: &[u8]) -> Option<i64> {
    Some(i64::from_be_bytes(b.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::value::List;

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
        assert!(f.matches(&Value::Int(3), Collection::Default));
        assert!(f.matches(&Value::Int(5), Collection::Default));
        assert!(!f.matches(&Value::Int(6), Collection::Default));
    }

    #[test]
    fn list_collection() {
        let list = Value::List(List {
            flags: 0,
            items: vec![Value::Int(1), Value::Int(7)],
        });
        assert!(range(7, 7).matches(&list, Collection::List));
        assert!(!range(8, 9).matches(&list, Collection::List));
        assert!(!range(7, 7).matches(&list, Collection::Default));
    }

    #[test]
    fn geo_point_within_region() {
        let region = r#"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}"#;
        let f = Filter {
            bin: "loc".into(),
            ptype: pt::GEOJSON,
            begin: region.as_bytes().to_vec(),
            end: region.as_bytes().to_vec(),
        };
        let inside = Value::GeoJson(r#"{"type":"Point","coordinates":[5,5]}"#.into());
        let outside = Value::GeoJson(r#"{"type":"Point","coordinates":[50,5]}"#.into());
        assert!(f.matches(&inside, Collection::Default));
        assert!(!f.matches(&outside, Collection::Default));
    }
}
