//! Batch, scan, query, secondary index and truncate through the `aerospike` crate.

// Policies read best as "default, then change one field".
#![allow(clippy::field_reassign_with_default)]

mod common;

use aerospike::query::Filter;
use aerospike::query::{PartitionFilter, Statement};
use aerospike::{
    as_bin, as_key, operations, AdminPolicy, BatchOperation, BatchPolicy, BatchReadPolicy,
    BatchWritePolicy, Bins, CollectionIndexType, IndexType, QueryPolicy, ReadPolicy, Task, Value,
    WritePolicy,
};

async fn seed(client: &aerospike::Client, set: &str, n: i64) {
    for i in 0..n {
        let key = as_key!("test", set, i);
        client
            .put(
                &WritePolicy::default(),
                &key,
                &[as_bin!("i", i), as_bin!("s", format!("v{}", i % 3))],
            )
            .await
            .expect("put");
    }
}

#[tokio::test]
async fn batch_mixed_is_one_request() {
    let (server, client) = common::connect().await;
    seed(&client, "bt_mixed", 10).await;
    server.reset_stats();
    let rp = BatchReadPolicy::default();
    let wp = BatchWritePolicy::default();
    let bin = as_bin!("w", 1);
    let mut ops = vec![
        BatchOperation::read(&rp, as_key!("test", "bt_mixed", 1), Bins::All),
        BatchOperation::read(&rp, as_key!("test", "bt_mixed", 2), Bins::from(["s"])),
        BatchOperation::read(&rp, as_key!("test", "bt_mixed", 99), Bins::All),
        BatchOperation::write(
            &wp,
            as_key!("test", "bt_mixed", 3),
            vec![operations::put(&bin)],
        ),
        BatchOperation::delete(&Default::default(), as_key!("test", "bt_mixed", 4)),
    ];
    client
        .batch(&BatchPolicy::default(), &mut ops)
        .await
        .expect("batch");
    assert_eq!(common::stat(&server, "batch"), 1);
    assert_eq!(common::stat(&server, "read"), 0);
    let rec1 = ops[0].record().expect("rec 1");
    assert_eq!(rec1.bins.get("i"), Some(&Value::Int(1)));
    assert_eq!(ops[1].record().expect("rec 2").bins.len(), 1);
    assert!(ops[2].record().is_none());
    let rec3 = client
        .get(
            &ReadPolicy::default(),
            &as_key!("test", "bt_mixed", 3),
            Bins::All,
        )
        .await
        .expect("get");
    assert_eq!(rec3.bins.get("w"), Some(&Value::Int(1)));
    assert!(!client
        .exists(&ReadPolicy::default(), &as_key!("test", "bt_mixed", 4))
        .await
        .expect("exists"));

    let keys: Vec<_> = (0..1000).map(|i| as_key!("test", "bt_mixed", i)).collect();
    server.reset_stats();
    let mut reads: Vec<_> = keys
        .iter()
        .map(|k| BatchOperation::read(&rp, k.clone(), Bins::All))
        .collect();
    client
        .batch(&BatchPolicy::default(), &mut reads)
        .await
        .expect("batch 1000");
    assert_eq!(common::stat(&server, "batch"), 1);
    assert_eq!(reads.iter().filter(|r| r.record().is_some()).count(), 9);
}

async fn collect(
    client: &aerospike::Client,
    stmt: Statement,
    pf: PartitionFilter,
) -> Vec<aerospike::Record> {
    let rs = client
        .query(&QueryPolicy::default(), pf, stmt)
        .await
        .expect("query");
    let mut out = Vec::new();
    let mut stream = rs.into_stream();
    use futures::StreamExt;
    while let Some(r) = stream.next().await {
        out.push(r.expect("record"));
    }
    out
}

#[tokio::test]
async fn scan_set_and_paginate_by_partition_cursor() {
    let (server, client) = common::connect().await;
    seed(&client, "sc_a", 50).await;
    seed(&client, "sc_b", 7).await;
    server.reset_stats();
    let all = collect(
        &client,
        Statement::new("test", "sc_a", Bins::All),
        PartitionFilter::all(),
    )
    .await;
    assert_eq!(all.len(), 50);
    assert_eq!(common::stat(&server, "scan"), 1);
    assert!(all.iter().all(|r| r.bins.len() == 2));

    // Pages of 20 resumed with the partition cursor: every record exactly once.
    let mut policy = QueryPolicy::default();
    policy.max_records = 20;
    let mut pf = PartitionFilter::all();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..10 {
        let rs = client
            .query(
                &policy,
                pf.clone(),
                Statement::new("test", "sc_a", Bins::All),
            )
            .await
            .expect("page");
        let mut stream = rs.clone().into_stream();
        use futures::StreamExt;
        let mut n = 0;
        while let Some(r) = stream.next().await {
            let r = r.expect("record");
            assert!(seen.insert(r.bins.get("i").cloned().expect("bin i").to_string()));
            n += 1;
        }
        assert!(n <= 20);
        pf = rs.partition_filter().expect("cursor");
        if pf.done() {
            break;
        }
    }
    assert_eq!(seen.len(), 50);

    let one = collect(
        &client,
        Statement::new("test", "sc_b", Bins::from(["s"])),
        PartitionFilter::by_range(0, 4096),
    )
    .await;
    assert_eq!(one.len(), 7);
    assert!(one.iter().all(|r| r.bins.len() == 1));
}

#[tokio::test]
async fn sindex_queries_int_range_and_string_equality() {
    let (server, client) = common::connect().await;
    seed(&client, "q_idx", 30).await;
    let ap = AdminPolicy::default();
    let mut stmt = Statement::new("test", "q_idx", Bins::All);
    stmt.set_filter(Filter::range("i", 10, 14));
    let no_index = client
        .query(
            &QueryPolicy::default(),
            PartitionFilter::all(),
            stmt.clone(),
        )
        .await;
    let failed = match no_index {
        Err(_) => true,
        Ok(rs) => {
            use futures::StreamExt;
            let mut s = rs.into_stream();
            let mut err = false;
            while let Some(r) = s.next().await {
                err |= r.is_err();
            }
            err
        }
    };
    assert!(failed, "a query without an index must fail");
    let task = client
        .create_index_on_bin(
            &ap,
            "test",
            "q_idx",
            "i",
            "q_idx_i",
            IndexType::Numeric,
            CollectionIndexType::Default,
            None,
        )
        .await
        .expect("create index");
    task.wait_till_complete(None).await.expect("index ready");
    client
        .create_index_on_bin(
            &ap,
            "test",
            "q_idx",
            "s",
            "q_idx_s",
            IndexType::String,
            CollectionIndexType::Default,
            None,
        )
        .await
        .expect("create index s");
    server.reset_stats();
    let found = collect(&client, stmt, PartitionFilter::all()).await;
    let mut ints: Vec<i64> = found
        .iter()
        .filter_map(|r| match r.bins.get("i") {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        })
        .collect();
    ints.sort_unstable();
    assert_eq!(ints, vec![10, 11, 12, 13, 14]);
    assert_eq!(common::stat(&server, "query"), 1);

    let mut by_s = Statement::new("test", "q_idx", Bins::All);
    by_s.set_filter(Filter::equal("s", "v1"));
    assert_eq!(
        collect(&client, by_s, PartitionFilter::all()).await.len(),
        10
    );
    client
        .drop_index(&ap, "test", "q_idx", "q_idx_s")
        .await
        .expect("drop");
}

#[tokio::test]
async fn truncate_set_only() {
    let (_server, client) = common::connect().await;
    seed(&client, "tr_a", 12).await;
    seed(&client, "tr_b", 5).await;
    // Truncating to now keeps what was written in the current millisecond.
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    client
        .truncate(&AdminPolicy::default(), "test", "tr_a", 0)
        .await
        .expect("truncate");
    assert_eq!(
        collect(
            &client,
            Statement::new("test", "tr_a", Bins::All),
            PartitionFilter::all()
        )
        .await
        .len(),
        0
    );
    assert_eq!(
        collect(
            &client,
            Statement::new("test", "tr_b", Bins::All),
            PartitionFilter::all()
        )
        .await
        .len(),
        5
    );
}

/// As a real server: truncating to now removes records last updated before the current
/// millisecond, so one written in the same millisecond stays.
#[tokio::test]
async fn truncate_to_now_keeps_records_written_in_its_millisecond() {
    let (_server, client) = common::connect().await;
    let now_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis()
    };
    for attempt in 0..1000i64 {
        let key = as_key!("test", "tr_same_ms", attempt);
        let start = now_ms();
        client
            .put(&WritePolicy::default(), &key, &[as_bin!("i", attempt)])
            .await
            .expect("put");
        client
            .truncate(&AdminPolicy::default(), "test", "tr_same_ms", 0)
            .await
            .expect("truncate");
        if now_ms() == start {
            let kept = client.exists(&ReadPolicy::default(), &key).await;
            assert!(
                kept.expect("exists"),
                "attempt {attempt}: the record was truncated"
            );
            return;
        }
    }
    panic!("no put and truncate within one millisecond in 1000 tries");
}

#[tokio::test]
async fn enterprise_servers_take_compressed_requests_and_replies() {
    let server = server::Server::start(server::ServerConfig {
        edition: server::Edition::Enterprise,
        ..server::ServerConfig::default()
    })
    .expect("server");
    let client = common::client_for(&server).await;
    let mut wp = WritePolicy::default();
    wp.base_policy.use_compression = true;
    let key = as_key!("test", "cmp", 1);
    let big = "x".repeat(5000);
    client
        .put(&wp, &key, &[as_bin!("big", big.clone())])
        .await
        .expect("compressed put");
    let mut rp = ReadPolicy::default();
    rp.base_policy.use_compression = true;
    let rec = client
        .get(&rp, &key, Bins::All)
        .await
        .expect("compressed get");
    assert_eq!(rec.bins.get("big"), Some(&Value::from(big)));
}

#[tokio::test]
async fn community_servers_refuse_compression_and_durable_deletes() {
    let (_server, client) = common::connect().await;
    let key = as_key!("test", "ce_only", 1);
    let mut wp = WritePolicy::default();
    wp.base_policy.use_compression = true;
    // The crate compresses requests above a size threshold.
    let err = client
        .put(&wp, &key, &[as_bin!("a", "x".repeat(5000))])
        .await
        .expect_err("compressed put on CE");
    assert_eq!(err.result_code(), 25, "{err}");
    client
        .put(&WritePolicy::default(), &key, &[as_bin!("a", 1)])
        .await
        .expect("plain put");
    let mut durable = WritePolicy::default();
    durable.durable_delete = true;
    let err = client
        .delete(&durable, &key)
        .await
        .expect_err("durable delete on CE");
    assert_eq!(err.result_code(), 25, "{err}");
    let err = client
        .put(&durable, &key, &[as_bin!("a", Value::Nil)])
        .await
        .expect_err("a durable write that deletes the record");
    assert_eq!(err.result_code(), 25, "{err}");
    let absent = as_key!("test", "ce_only", 2);
    let err = client
        .put(
            &WritePolicy::default(),
            &absent,
            &[as_bin!("a", Value::Nil)],
        )
        .await
        .expect_err("deleting the only bin of no record");
    assert_eq!(err.result_code(), 2, "{err}");
    assert!(client
        .delete(&WritePolicy::default(), &key)
        .await
        .expect("plain delete"));
}

#[tokio::test]
async fn partitions_stream_in_descending_digest_order_as_a_real_server() {
    let (_server, client) = common::connect().await;
    seed(&client, "sc_order", 3000).await;
    let all = collect(
        &client,
        Statement::new("test", "sc_order", Bins::All),
        PartitionFilter::all(),
    )
    .await;
    let mut last: std::collections::HashMap<usize, [u8; 20]> = Default::default();
    let mut shared_partitions = 0;
    for r in &all {
        let key = r.key.as_ref().expect("key");
        if let Some(prev) = last.insert(key.partition_id(), key.digest()) {
            shared_partitions += 1;
            assert!(
                key.digest() < prev,
                "ascending within partition {}",
                key.partition_id()
            );
        }
    }
    assert!(
        shared_partitions > 100,
        "too few partitions hold two records"
    );
}
