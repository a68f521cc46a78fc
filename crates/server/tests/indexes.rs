//! Secondary indexes through the `aerospike` crate: on a CDT context, on an expression, over
//! collection elements, and geospatial.

mod common;

use std::collections::HashMap;

use aerospike::expressions::{int_bin, num_abs};
use aerospike::operations::cdt_context::{ctx_list_index, ctx_map_key};
use aerospike::query::{Filter, PartitionFilter, Statement};
use aerospike::{
    as_bin, as_key, AdminPolicy, Bins, Client, CollectionIndexType, IndexType, QueryPolicy, Task,
    Value, WritePolicy,
};
use futures::StreamExt;

async fn put(client: &Client, set: &str, i: i64, bins: Vec<aerospike::Bin>) {
    client
        .put(&WritePolicy::default(), &as_key!("test", set, i), &bins)
        .await
        .expect("put");
}

async fn ids(client: &Client, set: &str, filter: Filter) -> Vec<i64> {
    let mut stmt = Statement::new("test", set, Bins::All);
    stmt.set_filter(filter);
    let rs = client
        .query(&QueryPolicy::default(), PartitionFilter::all(), stmt)
        .await
        .expect("query");
    let mut out = Vec::new();
    let mut stream = rs.into_stream();
    while let Some(r) = stream.next().await {
        match r.expect("record").bins.get("id") {
            Some(Value::Int(i)) => out.push(*i),
            other => panic!("id {other:?}"),
        }
    }
    out.sort_unstable();
    out
}

fn map(pairs: &[(&str, Value)]) -> Value {
    let m: HashMap<Value, Value> = pairs
        .iter()
        .map(|(k, v)| (Value::from(*k), v.clone()))
        .collect();
    Value::from(m)
}

#[tokio::test]
async fn a_context_index_matches_the_value_at_the_path() {
    let (_server, client) = common::connect().await;
    for i in 0..6 {
        let prefs = map(&[(
            "scores",
            Value::from(vec![Value::from(i * 10), Value::from(1)]),
        )]);
        put(
            &client,
            "ix_ctx",
            i,
            vec![as_bin!("id", i), as_bin!("prefs", prefs)],
        )
        .await;
    }
    let path = vec![ctx_map_key(Value::from("scores")), ctx_list_index(0)];
    client
        .create_index_on_bin(
            &AdminPolicy::default(),
            "test",
            "ix_ctx",
            "prefs",
            "ix_ctx_first_score",
            IndexType::Numeric,
            CollectionIndexType::Default,
            Some(&path),
        )
        .await
        .expect("create")
        .wait_till_complete(None)
        .await
        .expect("ready");
    let found = ids(
        &client,
        "ix_ctx",
        Filter::range("prefs", 15, 40).context(path),
    )
    .await;
    assert_eq!(found, vec![2, 3, 4]);
    // The same bin without the context is another index: none exists.
    let mut stmt = Statement::new("test", "ix_ctx", Bins::All);
    stmt.set_filter(Filter::range("prefs", 15, 40));
    let failed = match client
        .query(&QueryPolicy::default(), PartitionFilter::all(), stmt)
        .await
    {
        Err(_) => true,
        Ok(rs) => rs.into_stream().any(|r| async move { r.is_err() }).await,
    };
    assert!(failed, "a query on the bin itself needs its own index");
}

#[tokio::test]
async fn an_expression_index_matches_the_expression_value() {
    let (_server, client) = common::connect().await;
    for i in -3..=3 {
        put(
            &client,
            "ix_exp",
            i,
            vec![as_bin!("id", i), as_bin!("a", i * 2)],
        )
        .await;
    }
    let exp = num_abs(int_bin("a"));
    client
        .create_index_using_expression(
            &AdminPolicy::default(),
            "test",
            "ix_exp",
            "ix_exp_abs_a",
            IndexType::Numeric,
            CollectionIndexType::Default,
            &exp,
        )
        .await
        .expect("create")
        .wait_till_complete(None)
        .await
        .expect("ready");
    let found = ids(&client, "ix_exp", Filter::range("", 4, 4).expression(exp)).await;
    assert_eq!(found, vec![-2, 2]);
    let by_name = ids(
        &client,
        "ix_exp",
        Filter::range_by_index("ix_exp_abs_a", 6, 6),
    )
    .await;
    assert_eq!(by_name, vec![-3, 3]);
}

#[tokio::test]
async fn collection_indexes_match_elements_keys_and_values() {
    let (_server, client) = common::connect().await;
    let tags = |t: &[&str]| Value::from(t.iter().map(|s| Value::from(*s)).collect::<Vec<_>>());
    put(
        &client,
        "ix_col",
        1,
        vec![
            as_bin!("id", 1),
            as_bin!("tags", tags(&["red", "blue"])),
            as_bin!("m", map(&[("x", Value::from(5))])),
        ],
    )
    .await;
    put(
        &client,
        "ix_col",
        2,
        vec![
            as_bin!("id", 2),
            as_bin!("tags", tags(&["green"])),
            as_bin!("m", map(&[("y", Value::from(9))])),
        ],
    )
    .await;
    let ap = AdminPolicy::default();
    for (bin, name, itype, cit) in [
        (
            "tags",
            "ix_col_tags",
            IndexType::String,
            CollectionIndexType::List,
        ),
        (
            "m",
            "ix_col_mk",
            IndexType::String,
            CollectionIndexType::MapKeys,
        ),
        (
            "m",
            "ix_col_mv",
            IndexType::Numeric,
            CollectionIndexType::MapValues,
        ),
    ] {
        client
            .create_index_on_bin(&ap, "test", "ix_col", bin, name, itype, cit, None)
            .await
            .expect("create");
    }
    let list = CollectionIndexType::List;
    assert_eq!(
        ids(&client, "ix_col", Filter::contains("tags", "blue", list)).await,
        vec![1]
    );
    let keys = CollectionIndexType::MapKeys;
    assert_eq!(
        ids(&client, "ix_col", Filter::contains("m", "y", keys)).await,
        vec![2]
    );
    let values = CollectionIndexType::MapValues;
    let range = Filter::contains_range("m", 0, 6, values);
    assert_eq!(ids(&client, "ix_col", range).await, vec![1]);
}

#[tokio::test]
async fn geo_indexes_answer_within_and_contains() {
    let (server, client) = common::connect().await;
    let point =
        |x: f64, y: f64| Value::GeoJson(format!(r#"{{"type":"Point","coordinates":[{x},{y}]}}"#));
    put(
        &client,
        "ix_geo",
        1,
        vec![as_bin!("id", 1), as_bin!("loc", point(2.0, 2.0))],
    )
    .await;
    put(
        &client,
        "ix_geo",
        2,
        vec![as_bin!("id", 2), as_bin!("loc", point(20.0, 20.0))],
    )
    .await;
    let square = r#"{"type":"Polygon","coordinates":[[[0,0],[5,0],[5,5],[0,5],[0,0]]]}"#;
    put(
        &client,
        "ix_geo",
        3,
        vec![
            as_bin!("id", 3),
            as_bin!("area", Value::GeoJson(square.into())),
        ],
    )
    .await;
    let ap = AdminPolicy::default();
    for (bin, name) in [("loc", "ix_geo_loc"), ("area", "ix_geo_area")] {
        client
            .create_index_on_bin(
                &ap,
                "test",
                "ix_geo",
                bin,
                name,
                IndexType::Geo2DSphere,
                CollectionIndexType::Default,
                None,
            )
            .await
            .expect("create");
    }
    let within = Filter::geo_within_region("loc", square);
    assert_eq!(ids(&client, "ix_geo", within).await, vec![1]);
    let near = Filter::geo_within_radius("loc", 20.0, 20.01, 5_000.0);
    assert_eq!(ids(&client, "ix_geo", near).await, vec![2]);
    let holds = Filter::geo_contains("area", r#"{"type":"Point","coordinates":[1,1]}"#);
    assert_eq!(ids(&client, "ix_geo", holds).await, vec![3]);
    let listed = common::info(&server, "sindex-list:namespace=test").await;
    assert!(listed.contains("indexname=ix_geo_loc") && listed.contains("type=geo2dsphere"));
}
