//! One message of a scan/query reply, located in the reply's bytes: its header, the key fields
//! and where its bins are. Nothing is copied or decoded here.

use std::ops::Range;

use crate::convert::particle::Bad;

pub const INFO3_LAST: u8 = 1;
pub const INFO3_PARTITION_DONE: u8 = 1 << 2;

const FIELD_NAMESPACE: u8 = 0;
const FIELD_SET: u8 = 1;
const FIELD_KEY: u8 = 2;
const FIELD_DIGEST: u8 = 4;
/// An index query record's bval (u64 little-endian): where it stands in the index.
const FIELD_BVAL: u8 = 15;

/// A message's header and the parts of it a record is made of (ranges into the reply).
#[derive(Debug, Default)]
pub struct Message {
    /// The whole message.
    pub span: Range<usize>,
    pub info3: u8,
    pub result_code: u8,
    /// A record's generation; a partition's id in a partition-done message.
    pub generation: u32,
    pub expiration: u32,
    pub digest: Option<[u8; 20]>,
    pub bval: Option<u64>,
    pub namespace: Range<usize>,
    pub set_name: Range<usize>,
    /// The user key's particle type and bytes.
    pub key: Option<(u8, Range<usize>)>,
    /// The bins (read ops), `n_ops` of them.
    pub ops: Range<usize>,
    pub n_ops: u16,
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn short() -> Bad {
    Bad::Malformed("a reply message cut short".into())
}

/// The message starting at `at` in `b` (a reply body).
pub fn locate(b: &[u8], at: usize) -> Result<Message, Bad> {
    let head = b.get(at..at + 22).ok_or_else(short)?;
    let header_size = usize::from(head[0]);
    if header_size < 22 {
        return Err(Bad::Malformed(format!(
            "a message header of {header_size} bytes"
        )));
    }
    let mut m = Message {
        info3: head[3],
        result_code: head[5],
        generation: be32(head, 6),
        expiration: be32(head, 10),
        n_ops: u16::from_be_bytes([head[20], head[21]]),
        ..Message::default()
    };
    let n_fields = u16::from_be_bytes([head[18], head[19]]);
    let mut p = at + header_size;
    for _ in 0..n_fields {
        let len = be32(b.get(p..p + 4).ok_or_else(short)?, 0) as usize;
        if len == 0 || b.len() < p + 4 + len {
            return Err(short());
        }
        let kind = b[p + 4];
        let data = p + 5..p + 4 + len;
        match kind {
            FIELD_DIGEST if data.len() == 20 => {
                let mut d = [0u8; 20];
                d.copy_from_slice(&b[data]);
                m.digest = Some(d);
            }
            FIELD_BVAL if data.len() == 8 => {
                let mut v = [0u8; 8];
                v.copy_from_slice(&b[data]);
                m.bval = Some(u64::from_le_bytes(v));
            }
            FIELD_NAMESPACE => m.namespace = data,
            FIELD_SET => m.set_name = data,
            FIELD_KEY if !data.is_empty() => {
                m.key = Some((b[data.start], data.start + 1..data.end))
            }
            _ => {}
        }
        p += 4 + len;
    }
    let ops_start = p;
    for _ in 0..m.n_ops {
        let size = be32(b.get(p..p + 8).ok_or_else(short)?, 0) as usize;
        let name_len = usize::from(b[p + 7]);
        if size < 4 + name_len || b.len() < p + 4 + size {
            return Err(short());
        }
        p += 4 + size;
    }
    m.ops = ops_start..p;
    m.span = at..p;
    Ok(m)
}

/// A record's bins: name, particle type and value bytes, in the order they came.
pub struct Bins<'a> {
    b: &'a [u8],
    left: u16,
}

impl<'a> Bins<'a> {
    /// The `n` bins in `b` (a message's ops, already checked by [`locate`]).
    pub fn new(b: &'a [u8], n: u16) -> Self {
        Bins { b, left: n }
    }
}

impl<'a> Iterator for Bins<'a> {
    type Item = (&'a [u8], u8, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 || self.b.len() < 8 {
            return None;
        }
        self.left -= 1;
        let size = be32(self.b, 0) as usize;
        let ptype = self.b[5];
        let name_len = usize::from(self.b[7]);
        let name = &self.b[8..8 + name_len];
        let value = &self.b[8 + name_len..4 + size];
        self.b = &self.b[4 + size..];
        Some((name, ptype, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(usize::from(self.left)))
    }
}

/// The partition a digest belongs to.
pub fn partition_of(digest: &[u8; 20]) -> u16 {
    u16::from_le_bytes([digest[0], digest[1]]) & 0x0FFF
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A record message: digest, namespace, set, and int bins.
    pub fn record(digest: [u8; 20], bins: &[(&str, i64)]) -> Vec<u8> {
        let mut m = vec![
            22, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0,
        ];
        m[21] = u8::try_from(bins.len()).unwrap();
        for (kind, data) in [(FIELD_DIGEST, &digest[..]), (0, b"test"), (1, b"s")] {
            m.extend_from_slice(&u32::try_from(data.len() + 1).unwrap().to_be_bytes());
            m.push(kind);
            m.extend_from_slice(data);
        }
        for (name, v) in bins {
            let size = u32::try_from(4 + name.len() + 8).unwrap();
            m.extend_from_slice(&size.to_be_bytes());
            m.extend_from_slice(&[1, 1, 0, u8::try_from(name.len()).unwrap()]);
            m.extend_from_slice(name.as_bytes());
            m.extend_from_slice(&v.to_be_bytes());
        }
        m
    }

    #[test]
    fn a_record_message_is_located() {
        let mut b = vec![0u8; 3];
        b.extend(record([7; 20], &[("a", 1), ("bb", -2)]));
        let m = locate(&b, 3).unwrap();
        assert_eq!(m.span, 3..b.len());
        assert_eq!(m.generation, 3);
        assert_eq!(m.digest, Some([7; 20]));
        assert_eq!(&b[m.namespace.clone()], b"test");
        let bins: Vec<_> = Bins::new(&b[m.ops.clone()], m.n_ops).collect();
        assert_eq!(bins.len(), 2);
        assert_eq!(bins[1].0, b"bb");
        assert_eq!(bins[1].2, (-2i64).to_be_bytes());
        assert!(locate(&b[..b.len() - 1], 3).is_err());
        assert_eq!(m.bval, None);
    }

    #[test]
    fn an_index_record_brings_its_bval() {
        let mut b = record([7; 20], &[("a", 1)]);
        b[19] += 1;
        let at = 22 + 25;
        let mut field = 9u32.to_be_bytes().to_vec();
        field.push(FIELD_BVAL);
        field.extend_from_slice(&(-5i64).to_le_bytes());
        b.splice(at..at, field);
        let m = locate(&b, 0).unwrap();
        assert_eq!(m.bval, Some((-5i64) as u64));
        assert_eq!(m.digest, Some([7; 20]));
        assert_eq!(Bins::new(&b[m.ops.clone()], m.n_ops).count(), 1);
    }
}
