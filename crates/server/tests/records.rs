//! Single-record commands through the `aerospike` crate.

// Policies read best as "default, then change one field".
#![allow(clippy::field_reassign_with_default)]

mod common;

use aerospike::{
    as_bin, as_key, operations, Bins, Error, Expiration, GenerationPolicy, ReadPolicy,
    RecordExistsAction, Value, WritePolicy,
};

fn code<T: std::fmt::Debug>(r: Result<T, Error>) -> i32 {
    r.expect_err("expected a server error").result_code()
}

#[tokio::test]
async fn put_get_all_types() {
    let (_server, client) = common::connect().await;
    let key = as_key!("test", "rec_types", "k1");
    let bins = [
        as_bin!("i", 42),
        as_bin!("f", 1.5),
        as_bin!("s", "hello"),
        as_bin!("b", vec![1u8, 2, 3]),
        as_bin!("t", true),
    ];
    client
        .put(&WritePolicy::default(), &key, &bins)
        .await
        .expect("put");
    let rec = client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("get");
    assert_eq!(rec.bins.get("i"), Some(&Value::Int(42)));
    assert_eq!(rec.bins.get("f"), Some(&Value::from(1.5)));
    assert_eq!(rec.bins.get("s"), Some(&Value::from("hello")));
    assert_eq!(rec.bins.get("b"), Some(&Value::Blob(vec![1, 2, 3])));
    assert_eq!(rec.bins.get("t"), Some(&Value::Bool(true)));
    assert_eq!(rec.generation, 1);
    let only = client
        .get(&ReadPolicy::default(), &key, ["s"])
        .await
        .expect("select");
    assert_eq!(only.bins.len(), 1);
    let header = client
        .get(&ReadPolicy::default(), &key, Bins::None)
        .await
        .expect("header");
    assert!(header.bins.is_empty());
    assert_eq!(header.generation, 1);
}

#[tokio::test]
async fn exists_actions_generation_and_delete() {
    let (server, client) = common::connect().await;
    let key = as_key!("test", "rec_actions", 7);
    let mut create = WritePolicy::default();
    create.record_exists_action = RecordExistsAction::CreateOnly;
    client
        .put(&create, &key, &[as_bin!("a", 1)])
        .await
        .expect("create");
    assert_eq!(code(client.put(&create, &key, &[as_bin!("a", 2)]).await), 5);

    let mut update_only = WritePolicy::default();
    update_only.record_exists_action = RecordExistsAction::UpdateOnly;
    let missing = as_key!("test", "rec_actions", 8);
    assert_eq!(
        code(client.put(&update_only, &missing, &[as_bin!("a", 1)]).await),
        2
    );

    let mut replace = WritePolicy::default();
    replace.record_exists_action = RecordExistsAction::Replace;
    client
        .put(&replace, &key, &[as_bin!("b", 2)])
        .await
        .expect("replace");
    let rec = client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("get");
    assert_eq!(rec.bins.len(), 1);
    assert_eq!(rec.generation, 2);

    let mut gen = WritePolicy::default();
    gen.generation_policy = GenerationPolicy::ExpectGenEqual;
    gen.generation = 1;
    assert_eq!(code(client.put(&gen, &key, &[as_bin!("c", 3)]).await), 3);
    gen.generation = 2;
    client
        .put(&gen, &key, &[as_bin!("c", 3)])
        .await
        .expect("gen ok");

    assert!(client
        .exists(&ReadPolicy::default(), &key)
        .await
        .expect("exists"));
    assert!(client
        .delete(&WritePolicy::default(), &key)
        .await
        .expect("delete"));
    assert!(!client
        .delete(&WritePolicy::default(), &key)
        .await
        .expect("delete again"));
    assert!(!client
        .exists(&ReadPolicy::default(), &key)
        .await
        .expect("exists"));
    assert_eq!(
        code(client.get(&ReadPolicy::default(), &key, Bins::All).await),
        2
    );
    assert_eq!(common::stat(&server, "delete"), 2);
}

#[tokio::test]
async fn operate_is_one_request_and_scalar_ops_work() {
    let (server, client) = common::connect().await;
    let key = as_key!("test", "rec_operate", "k");
    client
        .put(
            &WritePolicy::default(),
            &key,
            &[as_bin!("n", 10), as_bin!("s", "b")],
        )
        .await
        .expect("put");
    server.reset_stats();
    let n = as_bin!("n", 5);
    let app = as_bin!("s", "c");
    let pre = as_bin!("s", "a");
    let ops = [
        operations::add(&n),
        operations::append(&app),
        operations::prepend(&pre),
        operations::get_bin("n"),
        operations::get_bin("s"),
    ];
    let rec = client
        .operate(&WritePolicy::default(), &key, &ops)
        .await
        .expect("operate");
    // Writes make the crate ask for one result per op (as with a real server): nil for writes.
    assert_eq!(
        rec.bins.get("n"),
        Some(&Value::MultiResult(vec![Value::Nil, Value::Int(15)]))
    );
    assert_eq!(
        rec.bins.get("s"),
        Some(&Value::MultiResult(vec![
            Value::Nil,
            Value::Nil,
            Value::from("abc")
        ]))
    );
    assert_eq!(common::stat(&server, "operate"), 1);

    let bad = as_bin!("s", 1);
    assert_eq!(
        code(
            client
                .operate(&WritePolicy::default(), &key, &[operations::add(&bad)])
                .await
        ),
        12
    );
    client
        .touch(&WritePolicy::default(), &key)
        .await
        .expect("touch");
    let rec = client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("get");
    assert_eq!(rec.generation, 3);
    let gone = as_key!("test", "rec_operate", "missing");
    assert_eq!(code(client.touch(&WritePolicy::default(), &gone).await), 2);
}

#[tokio::test]
async fn ttl_expiry_hides_records() {
    let (_server, client) = common::connect().await;
    let key = as_key!("test", "rec_ttl", 1);
    let mut wp = WritePolicy::default();
    wp.expiration = Expiration::Seconds(1);
    client
        .put(&wp, &key, &[as_bin!("a", 1)])
        .await
        .expect("put");
    let rec = client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("get");
    assert!(rec.time_to_live().is_some());
    // Expiry is second-granular: wait until the void time has certainly passed.
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(
        code(client.get(&ReadPolicy::default(), &key, Bins::All).await),
        2
    );

    let forever = as_key!("test", "rec_ttl", 2);
    wp.expiration = Expiration::Never;
    client
        .put(&wp, &forever, &[as_bin!("a", 1)])
        .await
        .expect("put");
    let rec = client
        .get(&ReadPolicy::default(), &forever, Bins::All)
        .await
        .expect("get");
    assert_eq!(rec.time_to_live(), None);
}

#[tokio::test]
async fn unknown_namespace_and_long_bin_name() {
    let (_server, client) = common::connect().await;
    let key = as_key!("nope", "s", 1);
    assert_eq!(
        code(
            client
                .put(&WritePolicy::default(), &key, &[as_bin!("a", 1)])
                .await
        ),
        20
    );
    let key = as_key!("test", "s", 1);
    let r = client
        .put(
            &WritePolicy::default(),
            &key,
            &[as_bin!("sixteen_chars_xx", 1)],
        )
        .await;
    assert!(r.is_err());
}

#[tokio::test]
async fn the_record_size_limit_counts_a_stored_key() {
    let (_server, client) = common::connect().await;
    let big_key = "k".repeat(2 * 1024 * 1024);
    let bin = as_bin!("b", vec![0u8; 7 * 1024 * 1024]);
    let mut send_key = WritePolicy::default();
    send_key.send_key = true;
    let stored = as_key!("test", "rec_size", big_key.clone());
    assert_eq!(
        code(
            client
                .put(&send_key, &stored, std::slice::from_ref(&bin))
                .await
        ),
        13
    );
    // Without the key stored, the same bins fit.
    let digest_only = as_key!("test", "rec_size", big_key);
    client
        .put(&WritePolicy::default(), &digest_only, &[bin])
        .await
        .expect("7 MB of bins fit in 8 MB");
}

#[tokio::test]
async fn touch_and_delete_ops_as_a_real_server() {
    let (_server, client) = common::connect().await;
    let key = as_key!("test", "rec_touch_ops", 1);
    let wp = WritePolicy::default();
    client
        .put(&wp, &key, &[as_bin!("n", 5)])
        .await
        .expect("put");
    // A touch answers nothing, even when every op must answer (a write sets RESPOND_ALL_OPS).
    let ops = [operations::touch(), operations::get_bin("n")];
    let rec = client.operate(&wp, &key, &ops).await.expect("operate");
    assert_eq!(rec.results, Some(vec![Value::Int(5)]));
    assert_eq!(rec.generation, 2);
    // Touch or delete-all with a replace policy is a parameter error.
    let mut replace = WritePolicy::default();
    replace.record_exists_action = RecordExistsAction::Replace;
    let touch = [operations::put(&as_bin!("n", 1)), operations::touch()];
    assert_eq!(code(client.operate(&replace, &key, &touch).await), 4);
    let delete = [operations::delete(), operations::put(&as_bin!("n", 1))];
    assert_eq!(code(client.operate(&replace, &key, &delete).await), 4);
    // A missing record is "not found" before the generation is checked.
    let mut gen = WritePolicy::default();
    gen.generation_policy = GenerationPolicy::ExpectGenEqual;
    gen.generation = 9;
    let gone = as_key!("test", "rec_touch_ops", "missing");
    assert_eq!(code(client.touch(&gen, &gone).await), 2);
    assert!(!client
        .delete(&gen, &gone)
        .await
        .expect("delete of a missing record"));
    assert_eq!(code(client.touch(&gen, &key).await), 3);
    assert_eq!(code(client.delete(&gen, &key).await), 3);
}
