//! A partition: its records by digest, the order in which they expire, and the entries of the
//! secondary indexes built on it.
//!
//! Records change only through the methods here, so the expiry order and every index built on
//! the partition stay in step with the records.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Deref;
use std::sync::Arc;

use crate::sindex::{Entries, SIndex};
use crate::store::{Digest, Namespace, Record};

pub type Records = BTreeMap<Digest, Record>;

/// Records by digest, read through `Deref`; written through the methods that keep the indexes.
#[derive(Default)]
pub struct Partition {
    records: Records,
    /// (void time, digest) of each record that expires, soonest first.
    expiries: BTreeSet<(u32, Digest)>,
    /// Records a transaction holds (provisional writes) and transaction monitors.
    in_txn: BTreeSet<Digest>,
    indexes: Vec<Entries>,
}

impl Deref for Partition {
    type Target = Records;

    fn deref(&self) -> &Self::Target {
        &self.records
    }
}

impl Partition {
    /// Stores `rec` under `digest` (records of namespace `ns`); returns the record it replaced.
    pub fn insert(&mut self, ns: &Namespace, digest: Digest, rec: Record) -> Option<Record> {
        if rec.void_time != 0 {
            self.expiries.insert((rec.void_time, digest));
        }
        let void_time = rec.void_time;
        if rec.txn.is_some() {
            self.in_txn.insert(digest);
        } else if !self.in_txn.is_empty() {
            self.in_txn.remove(&digest);
        }
        let old = self.records.insert(digest, rec);
        if let Some(o) = old.as_ref().filter(|o| o.void_time != void_time) {
            self.expiries.remove(&(o.void_time, digest));
        }
        if let Some(rec) = self
            .records
            .get(&digest)
            .filter(|_| !self.indexes.is_empty())
        {
            let set = ns.set_name(rec.set_id);
            for entries in &mut self.indexes {
                entries.update(&digest, Some((rec, &set)));
            }
        }
        old
    }

    pub fn remove(&mut self, digest: &Digest) -> Option<Record> {
        let old = self.records.remove(digest)?;
        self.expiries.remove(&(old.void_time, *digest));
        if old.txn.is_some() {
            self.in_txn.remove(digest);
        }
        for entries in &mut self.indexes {
            entries.update(digest, None);
        }
        Some(old)
    }

    /// Removes the records `pred` selects; returns how many.
    pub fn remove_where(&mut self, mut pred: impl FnMut(&Record) -> bool) -> usize {
        let before = self.records.len();
        let kept_aside = !self.expiries.is_empty() || !self.indexes.is_empty();
        let mut gone = Vec::new();
        self.records.retain(|d, r| {
            let keep = !pred(r);
            if !keep && (kept_aside || r.txn.is_some()) {
                gone.push((r.void_time, *d));
            }
            keep
        });
        for (void_time, digest) in &gone {
            self.in_txn.remove(digest);
            self.expiries.remove(&(*void_time, *digest));
            for entries in &mut self.indexes {
                entries.update(digest, None);
            }
        }
        before - self.records.len()
    }

    /// Digests of the records a transaction holds and of transaction monitors.
    pub fn in_txn(&self) -> &BTreeSet<Digest> {
        &self.in_txn
    }

    /// The soonest void time of a record here (None when none expires).
    pub fn next_expiry(&self) -> Option<u32> {
        self.expiries.first().map(|e| e.0)
    }

    /// Removes the records expired at `now_cl` (void time before it); returns how many.
    pub fn remove_expired(&mut self, now_cl: u32) -> usize {
        let due: Vec<Digest> = self
            .expiries
            .range(..(now_cl, [0; 20]))
            .map(|e| e.1)
            .collect();
        for digest in &due {
            self.remove(digest);
        }
        due.len()
    }

    /// Replaces every record (a migrated copy of the partition); the indexes are rebuilt.
    pub fn replace(&mut self, ns: &Namespace, records: Records) {
        self.expiries = records
            .iter()
            .filter(|(_, r)| r.void_time != 0)
            .map(|(d, r)| (r.void_time, *d))
            .collect();
        self.in_txn = records
            .iter()
            .filter(|(_, r)| r.txn.is_some())
            .map(|(d, _)| *d)
            .collect();
        self.records = records;
        let defs: Vec<Arc<SIndex>> = self.indexes.drain(..).map(|e| e.def().clone()).collect();
        for def in defs {
            self.build_index(ns, def);
        }
    }

    /// The entries of index `def`, when built here.
    pub fn index(&self, def: &Arc<SIndex>) -> Option<&Entries> {
        self.position(def).map(|at| &self.indexes[at])
    }

    fn position(&self, def: &Arc<SIndex>) -> Option<usize> {
        self.indexes.iter().position(|e| Arc::ptr_eq(e.def(), def))
    }

    /// The records and the entries of index `def`, built first when missing.
    pub fn indexed(&mut self, ns: &Namespace, def: &Arc<SIndex>) -> (&Records, &Entries) {
        let at = match self.position(def) {
            Some(at) => at,
            None => {
                self.build_index(ns, def.clone());
                self.indexes.len() - 1
            }
        };
        (&self.records, &self.indexes[at])
    }

    fn build_index(&mut self, ns: &Namespace, def: Arc<SIndex>) {
        let entries = self.entries(ns, def);
        self.indexes.push(entries);
    }

    /// The entries of index `def` for the records as they are, not kept.
    pub fn entries(&self, ns: &Namespace, def: Arc<SIndex>) -> Entries {
        let mut entries = Entries::new(def);
        let mut set = (0, String::new());
        for (digest, rec) in &self.records {
            if rec.set_id != set.0 {
                set = (rec.set_id, ns.set_name(rec.set_id));
            }
            entries.update(digest, Some((rec, &set.1)));
        }
        entries
    }

    /// Forgets the entries of the indexes `keep` rejects.
    pub fn drop_indexes(&mut self, mut keep: impl FnMut(&Arc<SIndex>) -> bool) {
        self.indexes.retain(|e| keep(e.def()));
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Bound;

    use engine::pack;
    use engine::value::{List, Value};

    use super::*;
    use crate::sindex::bval::Position;
    use crate::sindex::{Collection, IndexType};
    use crate::store::{Bin, BinName};

    fn def(set: &str, collection: Collection) -> Arc<SIndex> {
        Arc::new(SIndex {
            ns: "test".into(),
            set: set.into(),
            name: "i".into(),
            bin: "a".into(),
            itype: IndexType::Numeric,
            collection,
            context: None,
            exp: None,
        })
    }

    fn record(ns: &Namespace, set: &str, a: Value) -> Record {
        Record {
            bins: vec![Bin {
                name: BinName::new(b"a").unwrap(),
                value: pack::to_particle(&a).unwrap(),
            }],
            set_id: ns.set_id(set.as_bytes()).unwrap(),
            ..Record::default()
        }
    }

    /// (bval, first digest byte) of every entry, in index order.
    fn entries(part: &mut Partition, ns: &Namespace, def: &Arc<SIndex>) -> Vec<(i64, u8)> {
        let (_, e) = part.indexed(ns, def);
        e.range(Bound::Unbounded, Position::LAST)
            .map(|p| (p.bval(false), p.digest()[0]))
            .collect()
    }

    #[test]
    fn entries_follow_inserts_updates_and_removals() {
        let ns = Namespace::new("test");
        let idx = def("s", Collection::Default);
        let mut part = Partition::default();
        part.insert(&ns, [1; 20], record(&ns, "s", Value::Int(5)));
        part.insert(&ns, [2; 20], record(&ns, "other", Value::Int(1)));
        assert_eq!(entries(&mut part, &ns, &idx), vec![(5, 1)]);
        part.insert(&ns, [3; 20], record(&ns, "s", Value::Int(-2)));
        part.insert(&ns, [1; 20], record(&ns, "s", Value::Int(9)));
        assert_eq!(entries(&mut part, &ns, &idx), vec![(-2, 3), (9, 1)]);
        part.insert(&ns, [3; 20], record(&ns, "s", Value::Str("x".into())));
        assert_eq!(entries(&mut part, &ns, &idx), vec![(9, 1)]);
        part.remove(&[1; 20]);
        assert_eq!(entries(&mut part, &ns, &idx), vec![]);
    }

    #[test]
    fn a_list_index_enters_each_distinct_element_once() {
        let ns = Namespace::new("test");
        let idx = def("", Collection::List);
        let list = |items: Vec<Value>| Value::List(List { flags: 0, items });
        let mut part = Partition::default();
        let items = vec![
            Value::Int(7),
            Value::Int(3),
            Value::Int(7),
            Value::Str("s".into()),
        ];
        part.insert(&ns, [4; 20], record(&ns, "s", list(items)));
        assert_eq!(entries(&mut part, &ns, &idx), vec![(3, 4), (7, 4)]);
    }

    #[test]
    fn removals_and_replacements_keep_the_entries_in_step() {
        let ns = Namespace::new("test");
        let idx = def("", Collection::Default);
        let mut part = Partition::default();
        for i in 0..6u8 {
            part.insert(&ns, [i; 20], record(&ns, "s", Value::Int(i64::from(i))));
        }
        assert_eq!(entries(&mut part, &ns, &idx).len(), 6);
        let removed = part.remove_where(|r| r.bins[0].value.data.last() < Some(&3));
        assert_eq!(removed, 3);
        assert_eq!(entries(&mut part, &ns, &idx), vec![(3, 3), (4, 4), (5, 5)]);
        let mut fresh = Records::new();
        fresh.insert([8; 20], record(&ns, "s", Value::Int(80)));
        part.replace(&ns, fresh);
        assert_eq!(entries(&mut part, &ns, &idx), vec![(80, 8)]);
        part.drop_indexes(|_| false);
        assert!(part.index(&idx).is_none());
    }

    #[test]
    fn the_expiry_order_follows_every_change_of_void_time() {
        let ns = Namespace::new("test");
        let expiring = |void_time| Record {
            void_time,
            ..record(&ns, "s", Value::Int(1))
        };
        let mut part = Partition::default();
        for (i, t) in [(1u8, 50), (2, 10), (3, 0), (4, 30)] {
            part.insert(&ns, [i; 20], expiring(t));
        }
        assert_eq!(part.next_expiry(), Some(10));
        part.insert(&ns, [2; 20], expiring(90));
        part.insert(&ns, [4; 20], expiring(0));
        assert_eq!(part.next_expiry(), Some(50));
        assert_eq!(part.remove_expired(50), 0);
        assert_eq!(part.remove_expired(51), 1);
        assert!(part.get(&[1; 20]).is_none() && part.len() == 3);
        part.remove(&[2; 20]);
        assert_eq!(part.next_expiry(), None);
        let mut fresh = Records::new();
        fresh.insert([7; 20], expiring(5));
        part.replace(&ns, fresh);
        assert_eq!(part.remove_expired(5), 0);
        assert_eq!(part.remove_expired(6), 1);
        assert!(part.is_empty());
    }

    #[test]
    fn a_query_on_a_dropped_index_leaves_no_entries_behind() {
        let ns = Namespace::new("test");
        ns.write(0)
            .insert(&ns, [0; 20], record(&ns, "", Value::Int(4)));
        let count = |def: &Arc<SIndex>| {
            ns.with_index(0, def, |_, e| {
                e.range(Bound::Unbounded, Position::LAST).count()
            })
        };
        let known = ns.index(&def("", Collection::Default));
        assert_eq!(count(&known), 1);
        assert!(ns.read(0).index(&known).is_some());
        ns.forget_indexes(|_| false);
        assert!(ns.read(0).index(&known).is_none());
        assert_eq!(count(&known), 1);
        assert!(ns.read(0).index(&known).is_none());
    }
}
