//! A record's bins while a request changes them: finding, setting and removing a bin by name
//! costs O(1) however many bins the record has, so a request with thousands of bin ops stays
//! linear.
//!
//! Removed bins stay in place as tombstones (a NULL particle, which no stored bin ever is)
//! until [`BinSet::into_bins`]; readers of [`BinSet::bins`] skip them ([`is_live`]).

use std::collections::HashMap;

use engine::particle_type as pt;
use engine::Particle;

use crate::store::{Bin, BinName};

/// Most bins a record may have (more is a parameter error, as on a real server).
pub const MAX_BINS: usize = 0x7FFF;
/// Records with more bins than this get a name index.
const INDEX_FROM: usize = 16;

/// Whether `b` is a bin rather than the tombstone of a removed one.
pub fn is_live(b: &Bin) -> bool {
    b.value.ptype != pt::NULL
}

/// Bin positions by name.
#[derive(Default)]
pub struct BinIndex(HashMap<u128, usize>);

impl BinIndex {
    /// Indexes the live bins of `bins` (the last bin of a name wins).
    pub fn of(bins: &[Bin]) -> BinIndex {
        let mut map = HashMap::with_capacity(bins.len());
        for (i, b) in bins.iter().enumerate().filter(|(_, b)| is_live(b)) {
            map.insert(key(b.name.as_bytes()), i);
        }
        BinIndex(map)
    }

    /// Position of the bin named `name`.
    pub fn position(&self, name: &[u8]) -> Option<usize> {
        self.0.get(&key(name)).copied()
    }
}

/// A bin name (at most 15 bytes) packed with its length into one integer.
fn key(name: &[u8]) -> u128 {
    let mut k = [0u8; 16];
    let n = name.len().min(15);
    k[..n].copy_from_slice(&name[..n]);
    k[15] = n as u8;
    u128::from_le_bytes(k)
}

/// Finds the live bin `name` in `bins`, through `index` when there is one.
pub fn find<'a>(bins: &'a [Bin], index: Option<&BinIndex>, name: &[u8]) -> Option<&'a Bin> {
    match index {
        Some(ix) => ix.position(name).and_then(|i| bins.get(i)),
        None => bins
            .iter()
            .find(|b| b.name.as_bytes() == name && is_live(b)),
    }
    .filter(|b| is_live(b))
}

/// Working copy of a record's bins.
#[derive(Default)]
pub struct BinSet {
    bins: Vec<Bin>,
    index: Option<BinIndex>,
    live: usize,
}

impl BinSet {
    pub fn new(bins: Vec<Bin>) -> BinSet {
        let mut set = BinSet {
            live: bins.len(),
            bins,
            index: None,
        };
        set.index_if_large();
        set
    }

    fn index_if_large(&mut self) {
        if self.index.is_none() && self.bins.len() > INDEX_FROM {
            self.index = Some(BinIndex::of(&self.bins));
        }
    }

    /// The bins, tombstones included (skip them with [`is_live`]).
    pub fn bins(&self) -> &[Bin] {
        &self.bins
    }

    /// The name index, when the record is large enough to have one.
    pub fn index(&self) -> Option<&BinIndex> {
        self.index.as_ref()
    }

    /// Number of live bins.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn position(&self, name: &[u8]) -> Option<usize> {
        let at = match &self.index {
            Some(ix) => ix.position(name),
            None => self.bins.iter().position(|b| b.name.as_bytes() == name),
        }?;
        is_live(&self.bins[at]).then_some(at)
    }

    pub fn get(&self, name: &[u8]) -> Option<&Particle> {
        self.position(name).map(|i| &self.bins[i].value)
    }

    /// Sets `name` to `value` (a NULL particle is not a value: use [`BinSet::remove`]).
    pub fn set(&mut self, name: BinName, value: Particle) {
        if let Some(at) = self.position(name.as_bytes()) {
            self.bins[at].value = value;
            return;
        }
        self.bins.push(Bin { name, value });
        self.live += 1;
        if let Some(ix) = &mut self.index {
            ix.0.insert(key(name.as_bytes()), self.bins.len() - 1);
        } else {
            self.index_if_large();
        }
    }

    /// Removes `name`; false when there was no such bin.
    pub fn remove(&mut self, name: &[u8]) -> bool {
        let Some(at) = self.position(name) else {
            return false;
        };
        match &mut self.index {
            Some(ix) => {
                ix.0.remove(&key(name));
                self.bins[at].value = Particle {
                    ptype: pt::NULL,
                    data: Default::default(),
                };
            }
            None => {
                self.bins.remove(at);
            }
        }
        self.live -= 1;
        true
    }

    pub fn clear(&mut self) {
        self.bins.clear();
        self.index = None;
        self.live = 0;
    }

    /// The live bins in order.
    pub fn live(&self) -> impl Iterator<Item = &Bin> {
        self.bins.iter().filter(|b| is_live(b))
    }

    /// The live bins, tombstones dropped.
    pub fn into_bins(mut self) -> Vec<Bin> {
        if self.live != self.bins.len() {
            self.bins.retain(is_live);
        }
        self.bins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> Particle {
        Particle {
            ptype: pt::INTEGER,
            data: bytes::Bytes::copy_from_slice(&i.to_be_bytes()),
        }
    }

    fn name(s: &str) -> BinName {
        BinName::new(s.as_bytes()).unwrap()
    }

    #[test]
    fn set_remove_and_set_again_keep_write_order() {
        for n in [3usize, 40] {
            let mut set = BinSet::default();
            for i in 0..n {
                set.set(name(&format!("b{i}")), int(i as i64));
            }
            assert!(set.remove(b"b1"));
            assert!(!set.remove(b"b1"));
            assert_eq!(set.get(b"b1"), None);
            set.set(name("b1"), int(100));
            set.set(name("b0"), int(7));
            assert_eq!(set.len(), n);
            let names: Vec<String> = set.live().map(|b| b.name.as_str().to_owned()).collect();
            assert_eq!(names.last().map(String::as_str), Some("b1"), "n={n}");
            assert_eq!(names.first().map(String::as_str), Some("b0"));
            let bins = set.into_bins();
            assert_eq!(bins.len(), n);
            assert!(bins.iter().all(is_live));
        }
    }

    #[test]
    fn find_uses_the_index_and_skips_tombstones() {
        let mut set = BinSet::default();
        for i in 0..20 {
            set.set(name(&format!("b{i}")), int(i));
        }
        set.remove(b"b5");
        assert!(set.index().is_some());
        assert!(find(set.bins(), set.index(), b"b5").is_none());
        assert_eq!(
            find(set.bins(), set.index(), b"b6").map(|b| &b.value),
            Some(&int(6))
        );
        assert!(find(set.bins(), None, b"b5").is_none());
    }
}
