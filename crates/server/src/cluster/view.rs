//! One node's view of its cluster: the members it sees and who owns each partition.

use crate::store::N_PARTITIONS;

/// Members, partition owners and the generation that changes with them.
#[derive(Debug, Clone)]
pub struct View {
    /// `partition-generation` (and `peers-generation`): changes whenever the view does.
    pub generation: u64,
    /// Slots of the member nodes, sorted.
    pub members: Vec<usize>,
    /// Copies of each partition: `min(replication factor, members)`.
    pub copies: usize,
    /// Owner slots of every partition, master first: `owners[pid * copies + r]`.
    owners: Vec<usize>,
}

impl View {
    /// A single node owning every partition.
    pub fn solo(slot: usize, generation: u64) -> View {
        View {
            generation,
            members: vec![slot],
            copies: 1,
            owners: vec![slot; N_PARTITIONS],
        }
    }

    /// Partition owners of `members` (slot, node id, rack id) with `replication_factor`
    /// copies: each partition orders the members by a hash of (node id, partition); the first
    /// is the master, and each further copy goes to the next node on a rack that holds no copy
    /// yet, or, once every rack holds one, to the next node.
    pub fn balanced(
        members: &[(usize, u64, u32)],
        replication_factor: usize,
        generation: u64,
    ) -> View {
        let copies = replication_factor.clamp(1, members.len().max(1));
        let mut owners = Vec::with_capacity(N_PARTITIONS * copies);
        let mut order: Vec<(u64, usize, u32)> = Vec::with_capacity(members.len());
        let mut taken: Vec<bool> = Vec::with_capacity(members.len());
        let mut racks_used: Vec<u32> = Vec::with_capacity(copies);
        for pid in 0..N_PARTITIONS {
            order.clear();
            order.extend(
                members
                    .iter()
                    .map(|&(slot, id, rack)| (succession_hash(id, pid), slot, rack)),
            );
            order.sort_unstable();
            taken.clear();
            taken.resize(order.len(), false);
            racks_used.clear();
            for _ in 0..copies {
                let pick = order
                    .iter()
                    .enumerate()
                    .position(|(i, &(_, _, rack))| !taken[i] && !racks_used.contains(&rack))
                    .or_else(|| taken.iter().position(|t| !t))
                    .unwrap_or(0);
                taken[pick] = true;
                racks_used.push(order[pick].2);
                owners.push(order[pick].1);
            }
        }
        let mut slots: Vec<usize> = members.iter().map(|&(s, _, _)| s).collect();
        slots.sort_unstable();
        View {
            generation,
            members: slots,
            copies,
            owners,
        }
    }

    /// Owners of `pid`, master first.
    pub fn owners(&self, pid: usize) -> &[usize] {
        let at = (pid % N_PARTITIONS) * self.copies;
        &self.owners[at..at + self.copies]
    }

    pub fn master(&self, pid: usize) -> usize {
        self.owners(pid)[0]
    }

    /// Whether `slot` holds a copy of `pid`.
    pub fn holds(&self, slot: usize, pid: usize) -> bool {
        self.owners(pid).contains(&slot)
    }

    /// Partition bitmaps of `slot`, one per copy index (master, then each replica), as the
    /// `replicas` info command encodes them: bit `pid` is `0x80 >> (pid % 8)` of byte `pid / 8`.
    pub fn bitmaps(&self, slot: usize) -> Vec<[u8; N_PARTITIONS / 8]> {
        let mut maps = vec![[0u8; N_PARTITIONS / 8]; self.copies];
        for pid in 0..N_PARTITIONS {
            for (r, &owner) in self.owners(pid).iter().enumerate() {
                if owner == slot {
                    maps[r][pid / 8] |= 0x80 >> (pid % 8);
                }
            }
        }
        maps
    }
}

/// Stable pseudo-random rank of a node for a partition (FNV-1a over both, then a 64-bit mix).
fn succession_hash(node_id: u64, pid: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in node_id
        .to_le_bytes()
        .into_iter()
        .chain((pid as u32).to_le_bytes())
    {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> View {
        View::balanced(&[(0, 0xA1, 0), (1, 0xB2, 0), (2, 0xC3, 0)], 2, 7)
    }

    #[test]
    fn every_partition_has_distinct_owners() {
        let v = three();
        for pid in 0..N_PARTITIONS {
            let o = v.owners(pid);
            assert_eq!(o.len(), 2);
            assert_ne!(o[0], o[1]);
        }
    }

    #[test]
    fn masters_are_spread() {
        let v = three();
        let mut per = [0usize; 3];
        for pid in 0..N_PARTITIONS {
            per[v.master(pid)] += 1;
        }
        for n in per {
            assert!((1100..1650).contains(&n), "{per:?}");
        }
    }

    #[test]
    fn losing_a_node_keeps_surviving_copies() {
        let before = three();
        let after = View::balanced(&[(0, 0xA1, 0), (2, 0xC3, 0)], 2, 8);
        for pid in 0..N_PARTITIONS {
            for &slot in before.owners(pid).iter().filter(|&&s| s != 1) {
                assert!(after.holds(slot, pid));
            }
        }
    }

    #[test]
    fn bitmaps_mark_owned_partitions() {
        let v = three();
        let maps = v.bitmaps(1);
        for pid in 0..N_PARTITIONS {
            let bit = |r: usize| maps[r][pid / 8] & (0x80 >> (pid % 8)) != 0;
            assert_eq!(bit(0), v.master(pid) == 1);
            assert_eq!(bit(1), v.owners(pid)[1] == 1);
        }
    }

    #[test]
    fn copies_go_to_distinct_racks() {
        let members = [(0, 0xA1, 1), (1, 0xB2, 2), (2, 0xC3, 1), (3, 0xD4, 2)];
        let v = View::balanced(&members, 2, 3);
        let rack = |slot: usize| members[slot].2;
        let mut masters = [0usize; 4];
        for pid in 0..N_PARTITIONS {
            let o = v.owners(pid);
            assert_ne!(rack(o[0]), rack(o[1]), "partition {pid}: {o:?}");
            masters[o[0]] += 1;
        }
        assert!(
            masters.iter().all(|&n| (800..1250).contains(&n)),
            "{masters:?}"
        );
    }

    #[test]
    fn more_copies_than_racks_still_fill_every_copy() {
        let v = View::balanced(&[(0, 1, 1), (1, 2, 1), (2, 3, 2)], 3, 1);
        for pid in 0..N_PARTITIONS {
            let mut o = v.owners(pid).to_vec();
            o.sort_unstable();
            assert_eq!(o, vec![0, 1, 2]);
        }
    }

    #[test]
    fn more_copies_than_members_is_clamped() {
        let v = View::balanced(&[(4, 9, 0)], 3, 1);
        assert_eq!(v.copies, 1);
        assert_eq!(v.owners(17), &[4]);
    }
}
