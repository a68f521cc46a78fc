//! Resume tokens: the partitions a query reads and, per partition, where it stopped.
//!
//! `AFQ2`: magic, kind (0 scan, 1 index query), begin, count and the number of cursors (u16
//! little-endian each), then per cursor the partition (u16), the last digest and, for an
//! index query, the last record's bval (u64 little-endian): a server resumes an index query
//! strictly after (bval, digest). `AFQ1` (earlier versions) had no kind and no bvals: it
//! still resumes a scan, and an index query from the start of its partitions only.

use std::collections::BTreeMap;

use pyo3::PyErr;

use crate::errors::{invalid_argument, ResumeTokenError};

pub const PARTITIONS: usize = 4096;
const MAGIC: &[u8; 4] = b"AFQ2";
const OLD_MAGIC: &[u8; 4] = b"AFQ1";
const SCAN: u8 = 0;
const INDEX: u8 = 1;

/// Where a partition's reading stopped: the last record's digest and, in an index query,
/// its bval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub digest: [u8; 20],
    pub bval: Option<u64>,
}

/// A token's partitions `[begin, begin + count)` and its cursors.
pub struct Resume {
    pub begin: usize,
    pub count: usize,
    pub cursors: BTreeMap<u16, Cursor>,
}

fn u16_at(b: &[u8], o: usize) -> usize {
    usize::from(u16::from_le_bytes([b[o], b[o + 1]]))
}

/// Why a token cannot be read.
#[derive(Debug)]
pub enum Refused {
    Malformed,
    /// A token of another kind of query (or one this query cannot honour).
    Unusable(&'static str),
}

impl From<Refused> for PyErr {
    fn from(r: Refused) -> PyErr {
        match r {
            Refused::Malformed => invalid_argument("malformed resume token"),
            Refused::Unusable(m) => ResumeTokenError::new_err(m),
        }
    }
}

/// The token `b` for a scan (`indexed` false) or an index query.
pub fn parse(b: &[u8], indexed: bool) -> Result<Resume, Refused> {
    let bad = || Refused::Malformed;
    let (kind, at) = match b.get(..4) {
        Some(m) if m == MAGIC && b.len() >= 11 => (b[4], 5),
        Some(m) if m == OLD_MAGIC && b.len() >= 10 => (SCAN, 4),
        _ => return Err(bad()),
    };
    let (begin, count, n) = (u16_at(b, at), u16_at(b, at + 2), u16_at(b, at + 4));
    let size = match kind {
        SCAN => 22,
        INDEX => 30,
        _ => return Err(bad()),
    };
    let entries = &b[at + 6..];
    if begin + count > PARTITIONS || entries.len() != n * size {
        return Err(bad());
    }
    if count > 0 && (kind == INDEX) != indexed {
        let message = if &b[..4] == OLD_MAGIC {
            "this resume token was made by an earlier version, which did not record where an \
             index query stopped: it cannot resume a where_index() query (start it again)"
        } else if indexed {
            "a resume token of a scan cannot resume a where_index() query"
        } else {
            "a resume token of a where_index() query cannot resume a scan"
        };
        if n > 0 || kind == INDEX {
            return Err(Refused::Unusable(message));
        }
    }
    let cursors = entries
        .chunks_exact(size)
        .map(|e| {
            let mut digest = [0u8; 20];
            digest.copy_from_slice(&e[2..22]);
            let bval = (size == 30).then(|| {
                let mut v = [0u8; 8];
                v.copy_from_slice(&e[22..30]);
                u64::from_le_bytes(v)
            });
            (u16::from_le_bytes([e[0], e[1]]), Cursor { digest, bval })
        })
        .collect();
    Ok(Resume {
        begin,
        count,
        cursors,
    })
}

/// The token for partitions `[begin, begin + count)` read up to `cursors`; an error names
/// a cursor of an index query without a bval (the crate's path does not report them).
pub fn encode(
    begin: u16,
    count: u16,
    indexed: bool,
    cursors: &BTreeMap<u16, Cursor>,
) -> Result<Vec<u8>, &'static str> {
    let size = if indexed { 30 } else { 22 };
    let mut b = Vec::with_capacity(11 + cursors.len() * size);
    b.extend_from_slice(MAGIC);
    b.push(if indexed { INDEX } else { SCAN });
    b.extend_from_slice(&begin.to_le_bytes());
    b.extend_from_slice(&count.to_le_bytes());
    b.extend_from_slice(
        &u16::try_from(cursors.len())
            .unwrap_or(u16::MAX)
            .to_le_bytes(),
    );
    for (pid, c) in cursors {
        b.extend_from_slice(&pid.to_le_bytes());
        b.extend_from_slice(&c.digest);
        if indexed {
            let bval = c.bval.ok_or(
                "cannot make a resume token for this where_index() query: with login, TLS or \
                 compression the client reads index queries through the aerospike crate, \
                 which does not report where each record stands in the index (read the query \
                 as one stream, or page it on a client without login, TLS and compression)",
            )?;
            b.extend_from_slice(&bval.to_le_bytes());
        }
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursors(bval: Option<u64>) -> BTreeMap<u16, Cursor> {
        BTreeMap::from([(
            7,
            Cursor {
                digest: [3; 20],
                bval,
            },
        )])
    }

    #[test]
    fn index_cursors_carry_their_bval() {
        let b = encode(0, 4096, true, &cursors(Some(u64::MAX - 1))).unwrap();
        assert_eq!(b.len(), 11 + 30);
        let r = parse(&b, true).unwrap();
        assert_eq!((r.begin, r.count), (0, 4096));
        assert_eq!(r.cursors, cursors(Some(u64::MAX - 1)));
        assert!(encode(0, 4096, true, &cursors(None)).is_err());
    }

    #[test]
    fn scan_tokens_old_and_new_resume_a_scan() {
        let b = encode(5, 10, false, &cursors(None)).unwrap();
        assert_eq!(parse(&b, false).unwrap().cursors, cursors(None));
        let mut old = b"AFQ1".to_vec();
        old.extend_from_slice(&b[5..]);
        let r = parse(&old, false).unwrap();
        assert_eq!((r.begin, r.count, r.cursors), (5, 10, cursors(None)));
        assert!(parse(&old, true).is_err());
        assert!(parse(&b, true).is_err());
        assert!(parse(&old[..old.len() - 1], false).is_err());
    }
}
