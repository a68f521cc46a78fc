//! A multi-node embedded cluster through the `aerospike` crate: discovery, routing,
//! replication, scans over every node, and membership changes.

#![allow(clippy::field_reassign_with_default)]

use std::collections::HashSet;
use std::time::Duration;

use aerospike::query::{PartitionFilter, Statement};
use aerospike::{
    as_bin, as_key, Bins, Client, ClientPolicy, QueryPolicy, ReadPolicy, Value, WritePolicy,
};
use futures::StreamExt;
use server::{Cluster, ClusterConfig, NodeStatus, ServerConfig};

fn cluster(nodes: usize, rf: usize) -> Cluster {
    Cluster::start(ClusterConfig {
        server: ServerConfig::default(),
        nodes,
        replication_factor: rf,
        racks: 0,
    })
    .expect("cluster starts")
}

fn stat(cluster: &Cluster, slot: usize, name: &str) -> u64 {
    let node = cluster.server(slot).expect("node");
    node.stats()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, v)| v)
}

fn stored(cluster: &Cluster) -> u64 {
    (0..cluster.len())
        .map(|s| stat(cluster, s, "records"))
        .sum()
}

/// A client seeded with node 0 only, once it has found `nodes` nodes.
async fn client(cluster: &Cluster, nodes: usize) -> Client {
    let seed = cluster.addr(0).expect("node 0").to_string();
    let client = Client::new(&ClientPolicy::default(), &seed)
        .await
        .expect("client connects");
    settle(&client, nodes).await;
    client
}

async fn settle(client: &Client, nodes: usize) {
    for _ in 0..100 {
        if client.nodes().len() == nodes {
            // One more tend so every node's partition map is in.
            tokio::time::sleep(Duration::from_millis(1200)).await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("client sees {} nodes, wanted {nodes}", client.nodes().len());
}

async fn put_all(client: &Client, set: &str, n: i64) {
    for i in 0..n {
        client
            .put(
                &WritePolicy::default(),
                &as_key!("test", set, i),
                &[as_bin!("i", i)],
            )
            .await
            .expect("put");
    }
}

async fn missing(client: &Client, set: &str, n: i64) -> Vec<i64> {
    let mut out = Vec::new();
    for i in 0..n {
        let got = client
            .get(&ReadPolicy::default(), &as_key!("test", set, i), Bins::All)
            .await;
        if got.is_err() {
            out.push(i);
        }
    }
    out
}

async fn scan_keys(client: &Client, set: &str) -> Vec<i64> {
    let stmt = Statement::new("test", set, Bins::All);
    let rs = client
        .query(&QueryPolicy::default(), PartitionFilter::all(), stmt)
        .await
        .expect("scan");
    let mut stream = rs.into_stream();
    let mut out = Vec::new();
    while let Some(r) = stream.next().await {
        let r = r.expect("record");
        match r.bins.get("i") {
            Some(Value::Int(i)) => out.push(*i),
            other => panic!("bin i: {other:?}"),
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_are_discovered_and_each_masters_a_share() {
    let c = cluster(3, 2);
    let client = client(&c, 3).await;
    put_all(&client, "cl_share", 600).await;
    for slot in 0..3 {
        let writes = stat(&c, slot, "write");
        assert!((100..400).contains(&writes), "node {slot}: {writes} writes");
    }
    assert_eq!(stored(&c), 1200, "two copies of each record");
    let mut keys = scan_keys(&client, "cl_share").await;
    keys.sort_unstable();
    assert_eq!(keys, (0..600).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_without_its_data_loses_nothing() {
    let c = cluster(3, 2);
    let client = client(&c, 3).await;
    put_all(&client, "cl_kill", 500).await;
    c.kill(1, false).expect("kill");
    assert_eq!(c.status(1), Some(NodeStatus::Down));
    assert_eq!(stored(&c), 1000, "replicas rebuilt on the two survivors");
    settle(&client, 2).await;
    assert_eq!(missing(&client, "cl_kill", 500).await, Vec::<i64>::new());
    c.restart(1).expect("restart");
    settle(&client, 3).await;
    assert_eq!(stored(&c), 1000);
    assert!(
        stat(&c, 1, "records") > 0,
        "the restarted node got its share back"
    );
    assert_eq!(scan_keys(&client, "cl_kill").await.len(), 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_added_and_removed_take_and_give_their_share() {
    let c = cluster(2, 2);
    let client = client(&c, 2).await;
    put_all(&client, "cl_grow", 400).await;
    let gen = c.generation(0);
    let added = c.add_node().expect("add");
    assert_ne!(
        c.generation(0),
        gen,
        "membership changes the partition generation"
    );
    settle(&client, 3).await;
    assert!(stat(&c, added, "records") > 0);
    assert_eq!(stored(&c), 800);
    c.remove_node(0).expect("remove");
    assert_eq!(c.status(0), Some(NodeStatus::Removed));
    assert_eq!(stored(&c), 800);
    settle(&client, 2).await;
    assert_eq!(missing(&client, "cl_grow", 400).await, Vec::<i64>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_isolated_node_serves_alone_and_both_sides_merge_on_heal() {
    let c = cluster(3, 2);
    let client = client(&c, 3).await;
    put_all(&client, "cl_split", 300).await;
    c.isolate(2, true).expect("isolate");
    assert_eq!(c.status(2), Some(NodeStatus::Isolated));
    // A client of the isolated node alone writes there.
    let lone = Client::new(
        &ClientPolicy::default(),
        &c.addr(2).expect("node 2").to_string(),
    )
    .await
    .expect("lone client");
    let wp = WritePolicy::default();
    for i in 1000..1050 {
        lone.put(&wp, &as_key!("test", "cl_split", i), &[as_bin!("i", i)])
            .await
            .expect("write on the isolated side");
    }
    c.isolate(2, false).expect("heal");
    settle(&client, 3).await;
    let keys: HashSet<i64> = scan_keys(&client, "cl_split").await.into_iter().collect();
    assert_eq!(keys.len(), 350);
    assert_eq!(stored(&c), 700);
}

/// Result code of a raw single-record read of `digest` sent to `addr`.
fn raw_read(addr: std::net::SocketAddr, digest: &[u8; 20]) -> u8 {
    use std::io::{Read, Write};
    let mut msg = vec![22u8, 3, 0, 0, 0, 0];
    msg.extend_from_slice(&[0; 12]);
    msg.extend_from_slice(&2u16.to_be_bytes());
    msg.extend_from_slice(&0u16.to_be_bytes());
    msg.extend_from_slice(&5u32.to_be_bytes());
    msg.push(0);
    msg.extend_from_slice(b"test");
    msg.extend_from_slice(&21u32.to_be_bytes());
    msg.push(4);
    msg.extend_from_slice(digest);
    let mut frame = (0x0203_0000_0000_0000u64 | msg.len() as u64)
        .to_be_bytes()
        .to_vec();
    frame.extend_from_slice(&msg);
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.write_all(&frame).expect("send");
    let mut head = [0u8; 8];
    s.read_exact(&mut head).expect("reply");
    let len = (u64::from_be_bytes(head) & 0xFFFF_FFFF_FFFF) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).expect("body");
    body[5]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_to_a_node_without_the_partition_is_proxied() {
    let c = cluster(3, 1);
    let client = client(&c, 3).await;
    put_all(&client, "cl_proxy", 90).await;
    let held = stat(&c, 0, "records");
    assert!(held < 90, "node 0 holds {held} of 90");
    let node0 = c.addr(0).expect("node 0");
    for i in 0..90 {
        let key = as_key!("test", "cl_proxy", i);
        assert_eq!(raw_read(node0, &key.digest()), 0, "key {i}");
    }
    assert_eq!(
        raw_read(node0, &[7u8; 20]),
        2,
        "an absent record is still not found"
    );
}
