//! Which node masters each partition of a namespace, asked of the nodes themselves (the
//! `replicas` info command) just before a scan round, so a round follows the cluster as it is.

use std::sync::Arc;

use aerospike::policy::AdminPolicy;
use aerospike::{Client, Node};
use base64::Engine;

pub const PARTITIONS: usize = 4096;

/// Per partition, the index in `nodes` of its master (`None`: no node claims it).
pub struct Map {
    pub nodes: Vec<Arc<Node>>,
    pub master: Vec<Option<usize>>,
}

/// Ask every node which partitions of `namespace` it masters; a node that does not answer
/// masters nothing.
pub async fn fetch(client: &Client, admin: &AdminPolicy, namespace: &str) -> Map {
    let nodes = client.nodes();
    let answers =
        futures::future::join_all(nodes.iter().map(|n| n.info(admin, &["replicas"]))).await;
    let answers = answers
        .into_iter()
        .map(|a| a.ok().and_then(|m| m.get("replicas").cloned()))
        .collect();
    from_answers(nodes, answers, namespace)
}

/// The map given each node's `replicas` answer (`None`: it did not answer).
pub fn from_answers(nodes: Vec<Arc<Node>>, answers: Vec<Option<String>>, namespace: &str) -> Map {
    let mut master: Vec<Option<usize>> = vec![None; PARTITIONS];
    let mut regime = vec![0u32; PARTITIONS];
    for (i, answer) in answers.into_iter().enumerate() {
        let Some(text) = answer else {
            continue;
        };
        let Some((r, bitmap)) = master_bitmap(&text, namespace) else {
            continue;
        };
        for (pid, slot) in master.iter_mut().enumerate() {
            let owned = bitmap
                .get(pid >> 3)
                .is_some_and(|b| b & (0x80 >> (pid & 7)) != 0);
            if owned && (slot.is_none() || r >= regime[pid]) {
                *slot = Some(i);
                regime[pid] = r;
            }
        }
    }
    Map { nodes, master }
}

/// The regime and master bitmap of `namespace` in a `replicas` answer
/// (`ns:regime,copies,master,prole...;ns2:...`).
fn master_bitmap(text: &str, namespace: &str) -> Option<(u32, Vec<u8>)> {
    let entry = text
        .split(';')
        .filter_map(|e| e.split_once(':'))
        .find(|(ns, _)| *ns == namespace)?
        .1;
    let parts: Vec<&str> = entry.split(',').collect();
    let (regime, bitmap) = match parts.as_slice() {
        [regime, _copies, master, ..] => (regime.parse().ok()?, master),
        [master] => (0, master),
        _ => return None,
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(bitmap)
        .ok()?;
    Some((regime, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_master_bitmap_is_the_first_of_the_namespace() {
        let mut bm = vec![0u8; PARTITIONS / 8];
        bm[0] = 0b0100_0000;
        let b64 = base64::engine::general_purpose::STANDARD.encode(&bm);
        let text = format!("other:1,1,AAAA;test:3,2,{b64},AAAA");
        let (regime, bytes) = master_bitmap(&text, "test").unwrap();
        assert_eq!(regime, 3);
        assert_eq!(bytes[0], 0b0100_0000);
        assert!(master_bitmap(&text, "none").is_none());
    }
}
