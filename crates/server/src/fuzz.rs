//! Property tests: random and mutated frames never panic the parsers or the request handlers.

use proptest::prelude::*;

use crate::wire::{field, Msg};
use crate::{dispatch, info, ServerConfig, Shared};

/// A valid single-record write message to mutate.
fn valid_write() -> Vec<u8> {
    let mut v = vec![22u8, 0, 1, 0, 0, 0];
    v.extend_from_slice(&[0; 12]);
    v.extend_from_slice(&3u16.to_be_bytes());
    v.extend_from_slice(&2u16.to_be_bytes());
    for (t, d) in [
        (field::NAMESPACE, &b"test"[..]),
        (field::SET, b"s"),
        (field::DIGEST, &[7u8; 20]),
    ] {
        v.extend_from_slice(&(d.len() as u32 + 1).to_be_bytes());
        v.push(t);
        v.extend_from_slice(d);
    }
    for (op, pt, name, data) in [
        (2u8, 1u8, &b"a"[..], &5i64.to_be_bytes()[..]),
        (5, 1, b"a", &1i64.to_be_bytes()),
    ] {
        v.extend_from_slice(&((4 + name.len() + data.len()) as u32).to_be_bytes());
        v.extend_from_slice(&[op, pt, 0, name.len() as u8]);
        v.extend_from_slice(name);
        v.extend_from_slice(data);
    }
    v
}

/// A valid batch message (2 rows, the second a REPEAT) to mutate.
fn valid_batch() -> Vec<u8> {
    let mut rows = Vec::new();
    rows.extend_from_slice(&2u32.to_be_bytes());
    rows.push(0);
    rows.extend_from_slice(&0u32.to_be_bytes());
    rows.extend_from_slice(&[7u8; 20]);
    rows.extend_from_slice(&[0x2 | 0x8, 1 | 2, 0, 0]);
    rows.extend_from_slice(&0u32.to_be_bytes());
    rows.extend_from_slice(&1u16.to_be_bytes());
    rows.extend_from_slice(&0u16.to_be_bytes());
    rows.extend_from_slice(&5u32.to_be_bytes());
    rows.push(field::NAMESPACE);
    rows.extend_from_slice(b"test");
    rows.extend_from_slice(&1u32.to_be_bytes());
    rows.extend_from_slice(&[2u8; 20]);
    rows.push(1);
    let mut v = vec![22u8, 8, 0, 0, 0, 0];
    v.extend_from_slice(&[0; 12]);
    v.extend_from_slice(&1u16.to_be_bytes());
    v.extend_from_slice(&0u16.to_be_bytes());
    v.extend_from_slice(&(rows.len() as u32 + 1).to_be_bytes());
    v.push(field::BATCH_INDEX);
    v.extend_from_slice(&rows);
    v
}

fn mutate(mut base: Vec<u8>, edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    for &(at, b) in edits {
        if !base.is_empty() {
            let i = at % base.len();
            base[i] = b;
        }
    }
    base.truncate(cut.min(base.len()));
    base
}

fn handle(shared: &Shared, body: &[u8]) {
    let mut out = Vec::new();
    if let Ok(msg) = Msg::parse(body) {
        if !dispatch::is_stream(&msg) {
            dispatch::single(
                &msg,
                shared,
                &mut out,
                &crate::security::Grants::everything(),
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let shared = Shared::new(&ServerConfig::default()).expect("default config");
        handle(&shared, &body);
        let mut out = Vec::new();
        info::handle(&body, &shared, &crate::security::Caller::new(false, None), &mut out);
        prop_assert!(out.len() >= 8);
    }

    #[test]
    fn mutated_frames_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in 0usize..400,
    ) {
        let shared = Shared::new(&ServerConfig::default()).expect("default config");
        handle(&shared, &mutate(valid_write(), &edits, cut));
        handle(&shared, &mutate(valid_batch(), &edits, cut));
    }
}

#[test]
fn valid_seeds_are_served() {
    let shared = Shared::new(&ServerConfig::default()).expect("default config");
    let run = |body: Vec<u8>| {
        let mut out = Vec::new();
        let msg = Msg::parse(&body).expect("valid seed");
        dispatch::single(
            &msg,
            &shared,
            &mut out,
            &crate::security::Grants::everything(),
        );
        out
    };
    let out = run(valid_write());
    assert_eq!(out.len(), 8 + 22, "a write answers with a bare header");
    assert_eq!(out[8 + 5], 0);
    // Batch: row 0 finds the record just written, row 1 (REPEAT, other digest) does not,
    // then the LAST marker. Messages are 22-byte headers plus ops.
    let out = run(valid_batch());
    let first = Msg::parse(&out[8..]).expect("row 0");
    assert_eq!(first.header.result_code, 0);
    assert_eq!(
        first.ops.iter().next().map(|o| o.data),
        Some(&6i64.to_be_bytes()[..])
    );
    let rest = &out[8
        + 22
        + first
            .ops
            .iter()
            .map(|o| 8 + o.name.len() + o.data.len())
            .sum::<usize>()..];
    let second = Msg::parse(rest).expect("row 1");
    assert_eq!((second.header.result_code, second.header.timeout), (2, 1));
    let last = Msg::parse(&rest[22..]).expect("last");
    assert_eq!(
        last.header.info3 & crate::wire::INFO3_LAST,
        crate::wire::INFO3_LAST
    );
}
