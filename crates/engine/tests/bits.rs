//! Bit ops on blobs: the results and result codes the official clients' test suites expect
//! from a real server, payloads encoded the way the client encodes them.

mod common;
use bytes::Bytes;
use common::*;
use engine::bits::apply;
use engine::cdt::BinChange;
use engine::value::Value;
use engine::Particle;

const READ: u8 = 12;
const MODIFY: u8 = 13;

fn blob(b: &[u8]) -> Value {
    Value::Bytes(4, b.to_vec())
}

fn blob_p(b: &[u8]) -> Particle {
    Particle {
        ptype: 4,
        data: Bytes::from(b.to_vec()),
    }
}

/// The blob after a modify op on `start` (None = the bin is absent).
fn modify(start: Option<&[u8]>, code: i64, args: Vec<Value>) -> Result<Option<Vec<u8>>, u8> {
    let bin = start.map(blob_p);
    let r = apply(MODIFY, bin.as_ref(), &op(code, args))?;
    assert_eq!(r.value, None);
    Ok(match r.bin {
        BinChange::Set(p) => Some(p.data.to_vec()),
        _ => start.map(<[u8]>::to_vec),
    })
}

fn read(start: &[u8], code: i64, args: Vec<Value>) -> Result<Value, u8> {
    let r = apply(READ, Some(&blob_p(start)), &op(code, args))?;
    assert_eq!(r.bin, BinChange::Unchanged);
    Ok(r.value.map_or(Value::Nil, |p| dec(&p)))
}

const RANDOM: [u8; 5] = [0x01, 0x42, 0x03, 0x04, 0x05];
const ONES: [u8; 5] = [1; 5];
const FF: [u8; 5] = [0xff; 5];
const COUNT: [u8; 5] = [1, 86, 86, 255, 3];

fn ok(v: &[u8]) -> Result<Option<Vec<u8>>, u8> {
    Ok(Some(v.to_vec()))
}

#[test]
fn c_client_examples() {
    let r = Some(&RANDOM[..]);
    let p = |f: i64| i(f);
    assert_eq!(
        modify(Some(&[1, 0x42]), 0, vec![i(4), p(0), i(0)]),
        ok(&[1, 0x42, 0, 0])
    );
    assert_eq!(
        modify(r, 1, vec![i(1), blob(&[0xff, 0xc7]), p(0)]),
        ok(&[1, 0xff, 0xc7, 0x42, 3, 4, 5])
    );
    assert_eq!(modify(r, 2, vec![i(2), i(3), p(0)]), ok(&[1, 0x42]));
    assert_eq!(
        modify(r, 3, vec![i(13), i(3), blob(&[0xe0]), p(0)]),
        ok(&[1, 0x47, 3, 4, 5])
    );
    assert_eq!(
        modify(r, 4, vec![i(17), i(6), blob(&[0xa8]), p(0)]),
        ok(&[1, 0x42, 0x57, 4, 5])
    );
    assert_eq!(
        modify(r, 5, vec![i(17), i(6), blob(&[0xac]), p(0)]),
        ok(&[1, 0x42, 0x55, 4, 5])
    );
    assert_eq!(
        modify(r, 6, vec![i(23), i(9), blob(&[0x3c, 0x80]), p(0)]),
        ok(&[1, 0x42, 2, 0, 5])
    );
    assert_eq!(
        modify(r, 7, vec![i(25), i(6), p(0)]),
        ok(&[1, 0x42, 3, 0x7a, 5])
    );
    assert_eq!(
        modify(r, 8, vec![i(32), i(8), i(3), p(0)]),
        ok(&[1, 0x42, 3, 4, 0x28])
    );
    assert_eq!(
        modify(r, 9, vec![i(0), i(9), i(1), p(0)]),
        ok(&[0, 0xc2, 3, 4, 5])
    );
    assert_eq!(
        modify(r, 10, vec![i(24), i(16), i(128), p(0), i(0)]),
        ok(&[1, 0x42, 3, 4, 0x85])
    );
    assert_eq!(
        modify(r, 11, vec![i(24), i(16), i(128), p(0), i(0)]),
        ok(&[1, 0x42, 3, 3, 0x85])
    );
    assert_eq!(
        modify(r, 12, vec![i(1), i(8), i(127), p(0)]),
        ok(&[0x3f, 0xc2, 3, 4, 5])
    );
    assert_eq!(modify(r, 12, vec![i(0), i(40), i(-1), p(0)]), ok(&FF));
}

#[test]
fn reads() {
    assert_eq!(read(&FF, 50, vec![i(0), i(8)]), Ok(blob(&[0xff])));
    assert_eq!(read(&COUNT, 50, vec![i(-2), i(2)]), Ok(blob(&[0xc0])));
    assert_eq!(read(&ONES, 50, vec![i(4), i(8)]), Ok(blob(&[0x10])));
    assert_eq!(
        read(&FF, 50, vec![i(4), i(17)]),
        Ok(blob(&[0xff, 0xff, 0x80]))
    );
    assert_eq!(read(&COUNT, 51, vec![i(20), i(9)]), Ok(i(7)));
    assert_eq!(read(&FF, 54, vec![i(4), i(17)]), Ok(i(131071)));
    assert_eq!(read(&FF, 54, vec![i(0), i(8), i(1)]), Ok(i(-1)));
    assert_eq!(read(&COUNT, 52, vec![i(32), i(8), b(true)]), Ok(i(6)));
    assert_eq!(read(&ONES, 52, vec![i(7), i(8), b(false)]), Ok(i(1)));
    assert_eq!(read(&FF, 52, vec![i(0), i(40), b(false)]), Ok(i(-1)));
    assert_eq!(read(&COUNT, 53, vec![i(32), i(8), b(true)]), Ok(i(7)));
    assert_eq!(read(&COUNT, 53, vec![i(4), i(8), b(false)]), Ok(i(6)));
    assert_eq!(read(&FF, 53, vec![i(0), i(40), b(false)]), Ok(i(-1)));
    // A read of a missing bin answers nothing, even with bad arguments.
    let r = apply(READ, None, &op(50, vec![i(-99), i(0)])).unwrap();
    assert_eq!((r.bin, r.value), (BinChange::Unchanged, None));
}

#[test]
fn ranges_and_their_codes() {
    let z = Some(&[0u8; 5][..]);
    let f = Some(&FF[..]);
    // Bit edits and reads past the blob: not applicable (26).
    assert_eq!(modify(z, 3, vec![i(41), i(8), blob(&[0xff])]), Err(26));
    assert_eq!(modify(z, 3, vec![i(0), i(48), blob(&[0xff; 6])]), Err(26));
    assert_eq!(read(&ONES, 50, vec![i(41), i(1)]), Err(26));
    assert_eq!(read(&ONES, 51, vec![i(0), i(41)]), Err(26));
    assert_eq!(modify(z, 10, vec![i(0), i(41), i(1), i(0), i(0)]), Err(26));
    assert_eq!(modify(z, 10, vec![i(40), i(1), i(1), i(0), i(0)]), Err(26));
    // A value shorter than the bit size, or a zero size: parameter errors (4).
    assert_eq!(modify(z, 3, vec![i(0), i(16), blob(&[0xff])]), Err(4));
    assert_eq!(modify(z, 4, vec![i(0), i(0), blob(&[0xff])]), Err(4));
    assert_eq!(modify(z, 12, vec![i(0), i(65), i(1)]), Err(4));
    // Byte removal past the end: parameter error, unless partial.
    assert_eq!(modify(z, 2, vec![i(6), i(1)]), Err(4));
    assert_eq!(modify(z, 2, vec![i(3), i(3)]), Err(4));
    assert_eq!(modify(z, 2, vec![i(3), i(3), i(8)]), ok(&[0, 0, 0]));
    assert_eq!(modify(z, 2, vec![i(1), i(2)]), ok(&[0, 0, 0]));
    // Partial: the edit stops at the end of the blob.
    assert_eq!(
        modify(f, 7, vec![i(36), i(8), i(8)]),
        ok(&[0xff, 0xff, 0xff, 0xff, 0xf0])
    );
    // no_fail: the op is skipped.
    assert_eq!(modify(f, 7, vec![i(36), i(8), i(4)]), ok(&FF));
    // Negative offsets count from the end; past the start is a parameter error.
    assert_eq!(
        modify(f, 7, vec![i(-4), i(4)]),
        ok(&[0xff, 0xff, 0xff, 0xff, 0xf0])
    );
    assert_eq!(modify(f, 7, vec![i(-41), i(4)]), Err(4));
}

#[test]
fn inserts_and_resizes() {
    let f = Some(&FF[..]);
    assert_eq!(
        modify(f, 1, vec![i(9), blob(&[3])]),
        ok(&[255, 255, 255, 255, 255, 0, 0, 0, 0, 3])
    );
    assert_eq!(modify(None, 1, vec![i(0), blob(&[3])]), ok(&[3]));
    assert_eq!(modify(None, 1, vec![i(2), blob(&[3])]), ok(&[0, 0, 3]));
    assert_eq!(modify(None, 1, vec![i(-1), blob(&[3])]), Err(4));
    let zo = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1];
    assert_eq!(
        modify(Some(&ONES), 0, vec![i(10)]),
        ok(&[1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    );
    assert_eq!(modify(Some(&ONES), 0, vec![i(10), i(0), i(1)]), ok(&zo));
    assert_eq!(modify(Some(&zo), 0, vec![i(5), i(0), i(1)]), ok(&ONES));
    assert_eq!(modify(Some(&zo), 0, vec![i(5)]), ok(&[0; 5]));
    assert_eq!(modify(Some(&ONES), 0, vec![i(1), i(0), i(2)]), Err(4));
    assert_eq!(modify(Some(&ONES), 0, vec![i(10), i(0), i(4)]), Err(4));
    assert_eq!(modify(Some(&ONES), 0, vec![i(1), i(4), i(2)]), ok(&ONES));
    assert_eq!(modify(None, 0, vec![i(3)]), ok(&[0, 0, 0]));
    assert_eq!(modify(None, 0, vec![i(0)]), Ok(None));
    assert_eq!(modify(Some(&ONES), 0, vec![i(0), i(0), i(6)]), Err(4));
}

#[test]
fn write_flags() {
    let z = Some(&[0u8; 5][..]);
    assert_eq!(modify(z, 0, vec![i(10), i(1)]), Err(6));
    assert_eq!(modify(z, 0, vec![i(10), i(1 | 4)]), ok(&[0; 5]));
    assert_eq!(modify(None, 0, vec![i(10), i(2)]), Err(17));
    assert_eq!(modify(None, 0, vec![i(10), i(2 | 4)]), Ok(None));
    assert_eq!(modify(None, 0, vec![i(10), i(1)]), ok(&[0; 10]));
    assert_eq!(modify(z, 0, vec![i(10), i(1 | 2)]), Err(4));
    // create_only is not a flag of the bit edits; partial not one of resize.
    assert_eq!(modify(z, 7, vec![i(0), i(8), i(1)]), Err(4));
    assert_eq!(modify(z, 0, vec![i(10), i(8)]), Err(4));
    for code in [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] {
        let mut args = vec![i(0), i(8)];
        if (3..=6).contains(&code) {
            args.push(blob(&[1]));
        } else if code >= 8 {
            args.push(i(1));
        }
        assert_eq!(modify(None, code, args), Err(17), "op {code}");
    }
    // Bit ops on another type: bin type error (12).
    let r = apply(MODIFY, Some(&int_p(1)), &op(7, vec![i(0), i(8)]));
    assert_eq!(r.map(|_| ()), Err(12));
    let r = apply(READ, Some(&str_p("a")), &op(51, vec![i(0), i(8)]));
    assert_eq!(r.map(|_| ()), Err(12));
    // A read code in a modify op (and the reverse) is a parameter error.
    let r = apply(MODIFY, Some(&blob_p(&FF)), &op(51, vec![i(0), i(8)]));
    assert_eq!(r.map(|_| ()), Err(4));
    let r = apply(READ, Some(&blob_p(&FF)), &op(7, vec![i(0), i(8)]));
    assert_eq!(r.map(|_| ()), Err(4));
}

#[test]
fn arithmetic_overflow() {
    let f = Some(&FF[..]);
    let o = Some(&ONES[..]);
    let add = |_: Option<&[u8]>, v, signed_action| vec![i(0), i(8), i(v), i(0), i(signed_action)];
    assert_eq!(modify(o, 10, add(o, 1, 0)), ok(&[2, 1, 1, 1, 1]));
    assert_eq!(
        modify(f, 10, add(f, 254, 1 | 4)),
        ok(&[253, 255, 255, 255, 255])
    );
    assert_eq!(modify(f, 10, add(f, 1, 0)), Err(26));
    assert_eq!(modify(f, 10, add(f, 1, 2)), ok(&FF));
    assert_eq!(modify(f, 10, add(f, 1, 4)), ok(&[0, 255, 255, 255, 255]));
    assert_eq!(modify(f, 11, add(f, 156, 1)), ok(&[99, 255, 255, 255, 255]));
    assert_eq!(modify(o, 11, add(o, 255, 0)), Err(26));
    assert_eq!(modify(o, 11, add(o, 255, 2)), ok(&[0, 1, 1, 1, 1]));
    assert_eq!(modify(f, 11, add(f, 1, 4)), ok(&[254, 255, 255, 255, 255]));
    // Signed: 127 + 1 overflows; saturate gives 127, -128 - 1 saturates to -128.
    let m = Some(&[0x7f][..]);
    assert_eq!(modify(m, 10, add(m, 1, 1)), Err(26));
    assert_eq!(modify(m, 10, add(m, 1, 1 | 2)), ok(&[0x7f]));
    assert_eq!(modify(m, 10, add(m, 1, 1 | 4)), ok(&[0x80]));
    let n = Some(&[0x80][..]);
    assert_eq!(modify(n, 11, add(n, 1, 1 | 2)), ok(&[0x80]));
    // Saturate and wrap together are refused.
    assert_eq!(modify(f, 10, add(f, 1, 2 | 4)), Err(4));
    let z = Some(&[0u8; 5][..]);
    assert_eq!(
        modify(z, 10, vec![i(8), i(16), i(65535), i(0), i(0)]),
        ok(&[0, 255, 255, 0, 0])
    );
    assert_eq!(
        modify(o, 11, vec![i(8), i(16), i(257), i(0), i(0)]),
        ok(&[1, 0, 0, 1, 1])
    );
}
