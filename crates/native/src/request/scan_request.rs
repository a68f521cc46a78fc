//! The scan/query request one node is sent: namespace, set, limits, the index condition,
//! filter expression, the partitions to read (whole, or after a digest and, in an index
//! query, its bval) and the bins to return.

use crate::convert::token::Cursor;
use crate::request::index::IndexQuery;

pub use crate::conn::frame::{proto_header, AS_MSG};
pub(crate) const HEADER_SIZE: u8 = 22;

pub(crate) const INFO1_READ: u8 = 1;
const INFO1_SHORT_QUERY: u8 = 1 << 2;
const INFO1_NOBINDATA: u8 = 1 << 5;
const INFO1_READ_MODE_AP_ALL: u8 = 1 << 6;
const INFO2_RELAX_AP_LONG_QUERY: u8 = 1 << 6;
const INFO3_PARTITION_DONE: u8 = 1 << 2;

pub(crate) const FIELD_NAMESPACE: u8 = 0;
pub(crate) const FIELD_SET: u8 = 1;
const FIELD_QUERY_ID: u8 = 7;
const FIELD_SOCKET_TIMEOUT: u8 = 9;
const FIELD_RECORDS_PER_SECOND: u8 = 10;
const FIELD_PID_ARRAY: u8 = 11;
const FIELD_DIGEST_ARRAY: u8 = 12;
const FIELD_MAX_RECORDS: u8 = 13;
const FIELD_BVAL_ARRAY: u8 = 15;
const FIELD_FILTER_EXP: u8 = 43;

pub(crate) const OP_READ: u8 = 1;

/// What every node of one scan is asked, whatever its partitions.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub namespace: String,
    pub set_name: String,
    /// `None`: every bin; `Some([])`: no bin data.
    pub bins: Option<Vec<String>>,
    /// A secondary-index condition (an index query; none: a scan).
    pub index: Option<IndexQuery>,
    /// A packed filter expression.
    pub filter: Option<Vec<u8>>,
    pub socket_timeout_ms: u32,
    pub total_timeout_ms: u32,
    pub records_per_second: u32,
    pub short: bool,
    pub relax_ap: bool,
    pub read_all_replicas: bool,
}

impl Request {
    /// The message asking one node for `whole` partitions and for `after` ones past their
    /// cursor, at most `max_records` records (0: no limit).
    pub fn encode(
        &self,
        task_id: u64,
        whole: &[u16],
        after: &[Cursor],
        max_records: u64,
    ) -> Vec<u8> {
        let mut body = Vec::with_capacity(128 + whole.len() * 2 + after.len() * 20);
        body.resize(8 + usize::from(HEADER_SIZE), 0);
        let mut fields = 0u16;
        let mut field = |body: &mut Vec<u8>, kind: u8, data: &[u8]| {
            put_field_header(body, kind, data.len());
            body.extend_from_slice(data);
            fields += 1;
        };
        if !self.namespace.is_empty() {
            field(&mut body, FIELD_NAMESPACE, self.namespace.as_bytes());
        }
        if !self.set_name.is_empty() {
            field(&mut body, FIELD_SET, self.set_name.as_bytes());
        }
        if self.records_per_second > 0 {
            field(
                &mut body,
                FIELD_RECORDS_PER_SECOND,
                &self.records_per_second.to_be_bytes(),
            );
        }
        field(
            &mut body,
            FIELD_SOCKET_TIMEOUT,
            &self.socket_timeout_ms.to_be_bytes(),
        );
        field(&mut body, FIELD_QUERY_ID, &task_id.to_be_bytes());
        if let Some(index) = &self.index {
            for (kind, data) in index.fields() {
                field(&mut body, kind, data);
            }
        }
        if let Some(exp) = &self.filter {
            field(&mut body, FIELD_FILTER_EXP, exp);
        }
        if !whole.is_empty() {
            let ids: Vec<u8> = whole.iter().flat_map(|p| p.to_le_bytes()).collect();
            field(&mut body, FIELD_PID_ARRAY, &ids);
        }
        if !after.is_empty() {
            let digests: Vec<u8> = after.iter().flat_map(|c| c.digest).collect();
            field(&mut body, FIELD_DIGEST_ARRAY, &digests);
            if self.index.is_some() {
                // A server resumes an index query's partition after (bval, digest).
                let bvals: Vec<u8> = after
                    .iter()
                    .flat_map(|c| c.bval.unwrap_or(0).to_le_bytes())
                    .collect();
                field(&mut body, FIELD_BVAL_ARRAY, &bvals);
            }
        }
        if max_records > 0 {
            field(&mut body, FIELD_MAX_RECORDS, &max_records.to_be_bytes());
        }
        let names: &[String] = self.bins.as_deref().unwrap_or_default();
        for name in names {
            let name = &name.as_bytes()[..name.len().min(255)];
            let size = u32::try_from(4 + name.len()).unwrap_or(u32::MAX);
            body.extend_from_slice(&size.to_be_bytes());
            #[allow(clippy::cast_possible_truncation)]
            body.extend_from_slice(&[OP_READ, 0, 0, name.len() as u8]);
            body.extend_from_slice(name);
        }

        let mut info1 = INFO1_READ;
        if self.bins.as_ref().is_some_and(Vec::is_empty) {
            info1 |= INFO1_NOBINDATA;
        }
        if self.short {
            info1 |= INFO1_SHORT_QUERY;
        }
        if self.read_all_replicas {
            info1 |= INFO1_READ_MODE_AP_ALL;
        }
        let info2 = if self.relax_ap {
            INFO2_RELAX_AP_LONG_QUERY
        } else {
            0
        };
        let header = proto_header(AS_MSG, body.len() - 8);
        body[..8].copy_from_slice(&header);
        let h = &mut body[8..8 + usize::from(HEADER_SIZE)];
        h[0] = HEADER_SIZE;
        h[1] = info1;
        h[2] = info2;
        h[3] = INFO3_PARTITION_DONE;
        h[14..18].copy_from_slice(&self.total_timeout_ms.to_be_bytes());
        h[18..20].copy_from_slice(&fields.to_be_bytes());
        let ops = u16::try_from(names.len()).unwrap_or(u16::MAX);
        h[20..22].copy_from_slice(&ops.to_be_bytes());
        body
    }
}

fn put_field_header(body: &mut Vec<u8>, kind: u8, len: usize) {
    let size = u32::try_from(len + 1).unwrap_or(u32::MAX);
    body.extend_from_slice(&size.to_be_bytes());
    body.push(kind);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_its_partitions_and_bins() {
        let r = Request {
            namespace: "test".into(),
            set_name: "s".into(),
            bins: Some(vec!["a".into()]),
            socket_timeout_ms: 30_000,
            ..Request::default()
        };
        let after = [Cursor {
            digest: [9; 20],
            bval: None,
        }];
        let b = r.encode(7, &[1, 2], &after, 0);
        let size = u64::from_be_bytes(b[..8].try_into().unwrap()) & 0xFFFF_FFFF_FFFF;
        assert_eq!(size as usize, b.len() - 8);
        assert_eq!(b[8], 22);
        // namespace, set, socket timeout, task id, pids, digests
        assert_eq!(u16::from_be_bytes([b[26], b[27]]), 6);
        assert_eq!(u16::from_be_bytes([b[28], b[29]]), 1);
        assert!(b.ends_with(&[0, 0, 0, 5, OP_READ, 0, 0, 1, b'a']));
        let pids = [0, 0, 0, 5, FIELD_PID_ARRAY, 1, 0, 2, 0];
        assert!(b.windows(pids.len()).any(|w| w == pids));
    }

    #[test]
    fn an_index_query_resumes_after_digest_and_bval() {
        let r = Request {
            namespace: "test".into(),
            index: Some(IndexQuery::default()),
            ..Request::default()
        };
        let after = [Cursor {
            digest: [9; 20],
            bval: Some(u64::MAX),
        }];
        let b = r.encode(7, &[], &after, 0);
        let mut bvals = vec![0, 0, 0, 9, FIELD_BVAL_ARRAY];
        bvals.extend_from_slice(&[0xFF; 8]);
        assert!(b.ends_with(&bvals));
        let mut digests = vec![0, 0, 0, 21, FIELD_DIGEST_ARRAY];
        digests.extend_from_slice(&[9; 20]);
        assert!(b.windows(digests.len()).any(|w| w == digests));
    }
}
