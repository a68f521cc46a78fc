//! Which node holds each copy of each partition of a namespace, from the nodes' own answers to
//! the `replicas` info command (`ns:regime,copies,master,replica1,...`, a base64 bitmap of
//! partitions per copy).

use std::sync::Arc;

use base64::Engine;

pub const PARTITIONS: usize = 4096;

/// A node as the wire path knows it: no handle on the crate's node (whose connections a
/// table kept after its crate client closed would hold open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub address: String,
    pub tls_name: Option<String>,
}

impl Node {
    pub fn of(n: &aerospike::Node) -> Arc<Node> {
        Arc::new(Node {
            name: n.name().to_owned(),
            address: n.address().to_owned(),
            tls_name: n.host().tls_name,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Per partition, the index in `nodes` of its master (`None`: no node claims it), and of
/// each of its replicas (`replicas[0]` is the first replica).
pub struct Map {
    pub nodes: Vec<Arc<Node>>,
    pub master: Vec<Option<usize>>,
    pub replicas: Vec<Vec<Option<usize>>>,
    /// A node listed the namespace with a regime: it is in strong-consistency mode.
    pub strong_consistency: bool,
    /// Nodes that answered, and those of them that listed the namespace.
    answered: usize,
    listed: usize,
}

impl Map {
    /// Whether every copy of every partition is held by the same node (by name) in both.
    pub fn same_owners(&self, other: &Map) -> bool {
        fn name(m: &Map, at: Option<usize>) -> Option<&str> {
            at.map(|i| m.nodes[i].name.as_str())
        }
        let same = |a: &[Option<usize>], b: &[Option<usize>]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| name(self, *x) == name(other, *y))
        };
        same(&self.master, &other.master)
            && self.replicas.len() == other.replicas.len()
            && self
                .replicas
                .iter()
                .zip(&other.replicas)
                .all(|(a, b)| same(a, b))
    }

    /// The node (index in `nodes`) of copy `sequence` of partition `pid`: the master for 0,
    /// then each replica in turn, wrapping round the copies some node holds.
    pub fn copy(&self, pid: usize, sequence: usize) -> Option<usize> {
        let holders = || {
            std::iter::once(self.master.get(pid).copied().flatten())
                .chain(self.replicas.iter().map(|r| r.get(pid).copied().flatten()))
                .flatten()
        };
        let n = holders().count();
        (n > 0).then(|| holders().nth(sequence % n)).flatten()
    }

    /// Some node serves the namespace, and none in strong-consistency mode.
    pub fn known_ap(&self) -> bool {
        self.listed > 0 && !self.strong_consistency
    }

    /// Every node answered and none serves the namespace.
    pub fn lacks_namespace(&self) -> bool {
        !self.nodes.is_empty() && self.answered == self.nodes.len() && self.listed == 0
    }
}

/// The map given each node's `replicas` answer (`None`: it did not answer). Where two nodes
/// claim the same copy of a partition, the higher regime wins.
pub fn from_answers(nodes: Vec<Arc<Node>>, answers: Vec<Option<String>>, namespace: &str) -> Map {
    let mut copies: Vec<Vec<Option<usize>>> = Vec::new();
    let mut regimes: Vec<Vec<u32>> = Vec::new();
    let (mut answered, mut listed) = (0, 0);
    let mut strong_consistency = false;
    for (i, answer) in answers.into_iter().enumerate() {
        answered += usize::from(answer.is_some());
        let Some((regime, bitmaps)) = answer.as_deref().and_then(|t| bitmaps(t, namespace)) else {
            continue;
        };
        listed += 1;
        strong_consistency |= regime > 0;
        for (copy, bitmap) in bitmaps.iter().enumerate() {
            if copies.len() <= copy {
                copies.push(vec![None; PARTITIONS]);
                regimes.push(vec![0; PARTITIONS]);
            }
            for (pid, slot) in copies[copy].iter_mut().enumerate() {
                let owned = bitmap
                    .get(pid >> 3)
                    .is_some_and(|b| b & (0x80 >> (pid & 7)) != 0);
                if owned && (slot.is_none() || regime >= regimes[copy][pid]) {
                    *slot = Some(i);
                    regimes[copy][pid] = regime;
                }
            }
        }
    }
    let mut copies = copies.into_iter();
    Map {
        nodes,
        master: copies.next().unwrap_or_else(|| vec![None; PARTITIONS]),
        replicas: copies.collect(),
        strong_consistency,
        answered,
        listed,
    }
}

/// The regime and the bitmap of each copy of `namespace` in a `replicas` answer
/// (`ns:regime,copies,master,replica...;ns2:...`; old servers: `ns:master`).
fn bitmaps(text: &str, namespace: &str) -> Option<(u32, Vec<Vec<u8>>)> {
    let entry = text
        .split(';')
        .filter_map(|e| e.split_once(':'))
        .find(|(ns, _)| *ns == namespace)?
        .1;
    let parts: Vec<&str> = entry.split(',').collect();
    let decode = |b: &&str| base64::engine::general_purpose::STANDARD.decode(b).ok();
    match parts.as_slice() {
        [regime, _copies, maps @ ..] if !maps.is_empty() => {
            let maps = maps.iter().map(decode).collect::<Option<Vec<_>>>()?;
            Some((regime.parse().ok()?, maps))
        }
        [master] => Some((0, vec![decode(master)?])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(first: u8) -> String {
        let mut bm = vec![0u8; PARTITIONS / 8];
        bm[0] = first;
        base64::engine::general_purpose::STANDARD.encode(&bm)
    }

    #[test]
    fn each_copy_has_its_bitmap_the_master_first() {
        let text = format!(
            "other:1,1,AAAA;test:3,2,{},{}",
            b64(0b0100_0000),
            b64(0b1000_0000)
        );
        let (regime, maps) = bitmaps(&text, "test").unwrap();
        assert_eq!(regime, 3);
        assert_eq!((maps[0][0], maps[1][0]), (0b0100_0000, 0b1000_0000));
        assert!(bitmaps(&text, "none").is_none());
    }

    #[test]
    fn masters_and_replicas_come_from_every_node_the_newer_regime_winning() {
        let a = format!("test:1,2,{},{}", b64(0b1000_0000), b64(0b0100_0000));
        let b = format!("test:1,2,{},{}", b64(0b0100_0000), b64(0b1000_0000));
        let map = from_answers(Vec::new(), vec![Some(a), None, Some(b)], "test");
        assert_eq!(
            (map.master[0], map.master[1], map.master[2]),
            (Some(0), Some(2), None)
        );
        assert_eq!((map.replicas[0][0], map.replicas[0][1]), (Some(2), Some(0)));
        let newer = format!("test:2,1,{}", b64(0b1000_0000));
        let older = format!("test:1,1,{}", b64(0b1000_0000));
        let map = from_answers(Vec::new(), vec![Some(newer), Some(older)], "test");
        assert_eq!(map.master[0], Some(0));
    }

    #[test]
    fn the_sequence_goes_master_first_then_each_replica_and_wraps() {
        let a = format!("test:1,2,{},{}", b64(0b1000_0000), b64(0b0100_0000));
        let b = format!("test:1,2,{},{}", b64(0b0100_0000), b64(0b1000_0000));
        let map = from_answers(Vec::new(), vec![Some(a), None, Some(b)], "test");
        let copies = |pid| (0..4).map(|s| map.copy(pid, s)).collect::<Vec<_>>();
        assert_eq!(copies(0), [Some(0), Some(2), Some(0), Some(2)]);
        assert_eq!(copies(1), [Some(2), Some(0), Some(2), Some(0)]);
        // a partition no node holds has no copy to go to
        assert_eq!(copies(2), [None; 4]);
    }

    #[test]
    fn a_namespace_no_answering_node_lists_is_missing() {
        let node = |n: &str| {
            Arc::new(Node {
                name: n.into(),
                address: "127.0.0.1:3000".into(),
                tls_name: None,
            })
        };
        let text = format!("test:1,1,{}", b64(0b1000_0000));
        let nodes = vec![node("A"), node("B")];
        let all = vec![Some(text.clone()), Some(text.clone())];
        assert!(!from_answers(nodes.clone(), all.clone(), "test").lacks_namespace());
        assert!(from_answers(nodes.clone(), all, "nope").lacks_namespace());
        // a node that did not answer may serve it
        let one = vec![Some(text), None];
        assert!(!from_answers(nodes, one, "nope").lacks_namespace());
    }
}
