//! One index's entries in one partition: a (bval, digest) entry for each distinct indexed
//! element of each record, in index order, so a query reads only the entries its range holds.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use engine::value::Value;

use super::bval::{self, Position};
use super::{elements, indexed_value, IndexType, SIndex};
use crate::engine_ops::View;
use crate::store::{Digest, Record};

pub struct Entries {
    def: Arc<SIndex>,
    positions: BTreeSet<Position>,
    /// The bvals each record is entered under, to take its entries out when it changes.
    bvals: HashMap<Digest, Box<[i64]>>,
}

impl Entries {
    pub fn new(def: Arc<SIndex>) -> Entries {
        Entries {
            def,
            positions: BTreeSet::new(),
            bvals: HashMap::new(),
        }
    }

    pub fn def(&self) -> &Arc<SIndex> {
        &self.def
    }

    /// Re-enters `digest` as `rec` of set `set` now stands (None: the record is gone).
    pub fn update(&mut self, digest: &Digest, rec: Option<(&Record, &str)>) {
        let geo = self.def.itype == IndexType::Geo;
        if let Some(old) = self.bvals.remove(digest) {
            for &b in old.iter() {
                self.positions.remove(&Position::new(b, *digest, geo));
            }
        }
        let Some((rec, set)) = rec else { return };
        let fresh = record_bvals(&self.def, &View::stored(digest, rec, set));
        if fresh.is_empty() {
            return;
        }
        for &b in &fresh {
            self.positions.insert(Position::new(b, *digest, geo));
        }
        self.bvals.insert(*digest, fresh.into_boxed_slice());
    }

    /// The entries after `lower` up to `to` (included), in index order.
    pub fn range(&self, lower: Bound<Position>, to: Position) -> impl Iterator<Item = &Position> {
        let some = match lower {
            Bound::Included(from) => from <= to,
            Bound::Excluded(from) => from < to,
            Bound::Unbounded => true,
        };
        some.then(|| self.positions.range((lower, Bound::Included(to))))
            .into_iter()
            .flatten()
    }
}

/// The distinct bvals record `view` is entered under in index `def`: those of the elements of
/// its indexed value that are of the index's type.
pub fn record_bvals(def: &SIndex, view: &View<'_>) -> Vec<i64> {
    if !def.set.is_empty() && def.set != view.set {
        return Vec::new();
    }
    let Some(value) = indexed_value(def, view) else {
        return Vec::new();
    };
    let mut out: Vec<i64> = elements(&value, def.collection)
        .filter(|e| holds(def.itype, e))
        .filter_map(bval::of)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn holds(itype: IndexType, v: &Value) -> bool {
    matches!(
        (itype, v),
        (IndexType::Numeric, Value::Int(_))
            | (IndexType::String, Value::Str(_))
            | (
                IndexType::Blob,
                Value::Bytes(engine::particle_type::BLOB, _)
            )
            | (IndexType::Geo, Value::GeoJson(_))
    )
}
