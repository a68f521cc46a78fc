use aerospike::{BatchReadPolicy, Value};

use crate::policy::road::{plain, plain_put};

use super::*;

fn ask(key: i64, read: Read) -> Ask {
    Ask {
        key: Key::new("test", "s", Value::from(key)).unwrap(),
        job: Job::Read(read),
        ttl: 0,
        send_key: false,
    }
}

/// One reply message: result code, batch index and int bins (generation 3).
fn reply(info3: u8, code: u8, index: u32, bins: &[(&str, i64)]) -> Vec<u8> {
    let mut m = message::tests::record([0; 20], bins);
    m[3] = info3;
    m[5] = code;
    m[14..18].copy_from_slice(&index.to_be_bytes());
    m
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn a_request_names_each_key_and_repeats_a_header_it_shares() {
    let asks = [
        ask(1, Read::All),
        ask(2, Read::All),
        ask(3, Read::Bins(vec!["ab".into()])),
        ask(4, Read::Header),
    ];
    let mut out = Vec::new();
    let policy = BatchPolicy::default();
    encode(&mut out, &policy, asks.iter(), 250);
    let proto = u64::from_be_bytes(out[..8].try_into().unwrap());
    assert_eq!((proto >> 48) & 0xFF, u64::from(AS_MSG));
    assert_eq!(proto & 0xFFFF_FFFF_FFFF, (out.len() - 8) as u64);
    let h = &out[8..30];
    assert_eq!((h[0], h[1], h[2], h[3]), (22, INFO1_BATCH, 0, 0));
    assert_eq!(be32(h, 14), 250, "the server's timeout");
    assert_eq!((be16(h, 18), be16(h, 20)), (1, 0), "one field, no ops");
    let f = &out[30..];
    assert_eq!(be32(f, 0) as usize, f.len() - 4);
    assert_eq!(f[4], FIELD_BATCH_INDEX);
    assert_eq!(be32(f, 5), 4);
    assert_eq!(f[9], FLAG_KEY_ERRORS | FLAG_INLINE | FLAG_RESPOND_ALL);
    // row 0: index, digest, a full header: read all, ttl 0, namespace and set fields
    let r = &f[10..];
    assert_eq!(be32(r, 0), 0);
    assert_eq!(r[4..24], asks[0].key.digest());
    assert_eq!(r[24..28], [BATCH_MSG_INFO | BATCH_MSG_TTL, 3, 0, 0]);
    assert_eq!(be32(r, 28), 0);
    assert_eq!((be16(r, 32), be16(r, 34)), (2, 0));
    let ns_set = [
        0,
        0,
        0,
        5,
        FIELD_NAMESPACE,
        b't',
        b'e',
        b's',
        b't',
        0,
        0,
        0,
        2,
        FIELD_SET,
        b's',
    ];
    assert_eq!(r[36..51], ns_set);
    // row 1 repeats row 0
    let r = &r[51..];
    assert_eq!(be32(r, 0), 1);
    assert_eq!(r[4..24], asks[1].key.digest());
    assert_eq!(r[24], BATCH_MSG_REPEAT);
    // row 2 reads one bin by name
    let r = &r[25..];
    assert_eq!(be32(r, 0), 2);
    assert_eq!(
        r[24..28],
        [BATCH_MSG_INFO | BATCH_MSG_TTL, INFO1_READ, 0, 0]
    );
    assert_eq!((be16(r, 32), be16(r, 34)), (2, 1));
    assert_eq!(r[51..61], [0, 0, 0, 6, OP_READ, 0, 0, 2, b'a', b'b']);
    // row 3 asks for the header only
    assert!(f.ends_with(&ns_set));
    let at = f.len() - ns_set.len() - 12;
    assert_eq!(f[at], BATCH_MSG_INFO | BATCH_MSG_TTL);
    assert_eq!(f[at + 1], INFO1_READ | INFO1_NOBINDATA);
}

#[test]
fn a_reply_gives_each_row_its_own_answer_until_the_last_message() {
    let asks = [ask(1, Read::All), ask(2, Read::All), ask(3, Read::All)];
    let rows = [0, 1, 2];
    let label: Arc<str> = "A: 127.0.0.1:3000".into();
    let mut got: Vec<Option<Answer>> = vec![None, None, None];
    let mut frame = reply(0, KEY_NOT_FOUND, 1, &[]);
    frame.extend(reply(0, OK, 0, &[("n", 5), ("m", -1)]));
    assert!(!parse_frame(&frame, &rows, &asks, &label, &mut got).unwrap());
    let mut last = reply(0, 14, 2, &[]);
    last.extend(reply(INFO3_LAST, OK, 0, &[]));
    assert!(parse_frame(&last, &rows, &asks, &label, &mut got).unwrap());
    let Some(Answer::Found(rec)) = &got[0] else {
        panic!("row 0 was found")
    };
    assert_eq!(rec.record().generation, 3);
    assert_eq!(rec.record().digest, asks[0].key.digest());
    let bins: Vec<_> = rec
        .bins()
        .map(|(n, t, v)| (n.to_vec(), t, v.to_vec()))
        .collect();
    assert_eq!(
        bins,
        [
            (b"n".to_vec(), 1, 5i64.to_be_bytes().to_vec()),
            (b"m".to_vec(), 1, (-1i64).to_be_bytes().to_vec())
        ]
    );
    assert!(matches!(got[1], Some(Answer::NotFound)));
    let Some(Answer::Refused { code: 14, node }) = &got[2] else {
        panic!("row 2 was refused")
    };
    assert_eq!(&**node, "A: 127.0.0.1:3000");
}

#[test]
fn an_error_that_ends_the_reply_stops_the_batch_at_its_row() {
    let asks = [ask(1, Read::All), ask(2, Read::All)];
    let label: Arc<str> = "A".into();
    let mut got: Vec<Option<Answer>> = vec![None, None];
    let frame = reply(INFO3_LAST, 4, 0, &[]);
    assert!(parse_frame(&frame, &[0, 1], &asks, &label, &mut got).unwrap());
    assert!(matches!(got[0], Some(Answer::Stopped { code: 4, .. })));
    assert!(got[1].is_none());
}

#[test]
fn a_reply_naming_a_row_not_asked_is_refused() {
    let asks = [ask(1, Read::All)];
    let label: Arc<str> = "A".into();
    let mut got: Vec<Option<Answer>> = vec![None];
    let frame = reply(0, OK, 1, &[]);
    assert!(parse_frame(&frame, &[0], &asks, &label, &mut got).is_err());
    let cut = reply(0, OK, 0, &[("n", 1)]);
    assert!(parse_frame(&cut[..cut.len() - 1], &[0], &asks, &label, &mut got).is_err());
}

#[test]
fn a_record_nested_too_deeply_is_reported_by_bin() {
    let key = ask(1, Read::All).key;
    let mut m = reply(0, OK, 0, &[]);
    m[21] = 1;
    let mut list = vec![0x91; crate::convert::depth::MAX_READ_DEPTH + 1];
    list.push(1);
    m.extend_from_slice(&u32::try_from(4 + 1 + list.len()).unwrap().to_be_bytes());
    m.extend_from_slice(&[1, particle::LIST, 0, 1, b'l']);
    m.extend_from_slice(&list);
    let located = message::locate(&m, 0).unwrap();
    assert!(matches!(found(&m, &located, &key), Answer::TooDeep(bin) if bin == "l"));
}

#[test]
fn limits_follow_the_socket_and_total_timeouts() {
    let mut p = BatchPolicy::default();
    let now = Instant::now();
    (p.base_policy.socket_timeout, p.base_policy.total_timeout) = (0, 0);
    let l = Limits::of(&p, now);
    assert_eq!((l.total, l.socket, l.server_ms), (None, None, 0));
    assert!(l.next_read().is_none());
    (p.base_policy.socket_timeout, p.base_policy.total_timeout) = (200, 1000);
    let l = Limits::of(&p, now);
    assert_eq!(l.total, Some(now + Duration::from_millis(1000)));
    assert_eq!(
        (l.socket, l.server_ms),
        (Some(Duration::from_millis(200)), 200)
    );
    (p.base_policy.socket_timeout, p.base_policy.total_timeout) = (200, 0);
    let l = Limits::of(&p, now);
    assert_eq!((l.total, l.server_ms), (None, 0));
    assert!(l.next_read().is_some());
}

#[test]
fn only_plain_reads_with_short_bin_names_go_over_the_wire() {
    assert_eq!(read_of(&aerospike::Bins::All), Some(Read::All));
    assert_eq!(read_of(&aerospike::Bins::None), Some(Read::Header));
    assert_eq!(read_of(&aerospike::Bins::Some(vec![])), Some(Read::Header));
    assert_eq!(read_of(&aerospike::Bins::Some(vec!["a".repeat(16)])), None);
    let mut p = BatchPolicy::default();
    assert!(plain(&p, &BatchReadPolicy::default()));
    p.base_policy.use_compression = true;
    assert!(!plain(&p, &BatchReadPolicy::default()));
}

fn put(key: i64, ttl: u32, bins: Vec<aerospike::Bin>) -> Ask {
    Ask {
        job: Job::Put(bins),
        ttl,
        ..ask(key, Read::All)
    }
}

#[test]
fn a_put_row_writes_each_bin_and_is_never_a_repeat() {
    let bins = || vec![aerospike::Bin::new("n", Value::from(7i64))];
    let asks = [put(1, 60, bins()), put(2, 60, bins())];
    let mut out = Vec::new();
    encode(&mut out, &BatchPolicy::write_default(), asks.iter(), 0);
    let r = &out[30 + 10..];
    let write = INFO2_WRITE | INFO2_RESPOND_ALL_OPS;
    let head = [
        BATCH_MSG_INFO | BATCH_MSG_GEN | BATCH_MSG_TTL,
        0,
        write,
        0,
        0,
        0,
    ];
    assert_eq!(r[24..30], head, "attributes, generation 0");
    assert_eq!(be32(r, 30), 60, "the expiration");
    assert_eq!(
        (be16(r, 34), be16(r, 36)),
        (2, 1),
        "namespace and set, one op"
    );
    let op = [0, 0, 0, 13, 2, 1, 0, 1, b'n', 0, 0, 0, 0, 0, 0, 0, 7];
    assert_eq!(r[53..70], op);
    let r = &r[70..];
    assert_eq!(be32(r, 0), 1);
    assert_eq!(r[24..30], head, "a put row is sent in full");
    assert_eq!(r.len(), 70);
}

#[test]
fn a_put_row_with_send_key_carries_its_user_key() {
    let bins = vec![aerospike::Bin::new("n", Value::from(7i64))];
    let asks = [Ask {
        send_key: true,
        ..put(5, 0, bins)
    }];
    let mut out = Vec::new();
    encode(&mut out, &BatchPolicy::write_default(), asks.iter(), 0);
    let r = &out[30 + 10..];
    assert_eq!(
        (be16(r, 34), be16(r, 36)),
        (3, 1),
        "namespace, set, key; one op"
    );
    let key_field = [0, 0, 0, 10, FIELD_KEY, 1, 0, 0, 0, 0, 0, 0, 0, 5];
    assert_eq!(r[53..67], key_field, "the key: an int particle");
    assert_eq!(r.len(), 67 + 17);
}

#[test]
fn a_put_row_answered_ok_was_written_and_a_missing_record_is_a_refusal() {
    let asks = [put(1, 0, vec![]), put(2, 0, vec![])];
    let label: Arc<str> = "A".into();
    let mut got: Vec<Option<Answer>> = vec![None, None];
    let mut frame = reply(0, OK, 0, &[]);
    frame.extend(reply(0, KEY_NOT_FOUND, 1, &[]));
    frame.extend(reply(INFO3_LAST, OK, 0, &[]));
    assert!(parse_frame(&frame, &[0, 1], &asks, &label, &mut got).unwrap());
    assert!(matches!(got[0], Some(Answer::Written(_))));
    assert!(matches!(got[1], Some(Answer::Refused { code: 2, .. })));
}

#[test]
fn only_plain_puts_go_over_the_wire() {
    let p = BatchPolicy::write_default();
    let row = aerospike::BatchWritePolicy::default();
    assert!(plain_put(&p, &row));
    let mut keyed = row.clone();
    keyed.send_key = true;
    assert!(
        plain_put(&p, &keyed),
        "the key is a field the wire row carries"
    );
    let changed: [fn(&mut aerospike::BatchWritePolicy); 4] = [
        |r| r.durable_delete = true,
        |r| r.generation_policy = aerospike::GenerationPolicy::ExpectGenEqual,
        |r| r.record_exists_action = aerospike::RecordExistsAction::CreateOnly,
        |r| r.commit_level = aerospike::CommitLevel::CommitMaster,
    ];
    for change in changed {
        let mut r = row.clone();
        change(&mut r);
        assert!(!plain_put(&p, &r));
    }
}
