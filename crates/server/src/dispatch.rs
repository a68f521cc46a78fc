//! Routes a parsed AS_MSG to the single-record, batch, UDF or scan/query handler and counts it.

use crate::clock::transaction_deadline;
use crate::conn::FrameSink;
use crate::record::{self, rc, RecReq};
use crate::security::{self, Grants};
use crate::stats::Kind;
use crate::store::Digest;
use crate::wire::*;
use crate::{batch, cluster, query, udf, Shared};

/// Whether the message is a scan/query (streamed reply).
pub fn is_stream(msg: &Msg<'_>) -> bool {
    msg.fields.get(field::DIGEST).is_none()
        && msg.fields.get(field::BATCH_INDEX).is_none()
        && msg.fields.get(field::BATCH_INDEX_WITH_SET).is_none()
}

/// Stats kind of a single-record request.
pub fn kind_of(req: &RecReq<'_>) -> Kind {
    if req.info2 & INFO2_DELETE != 0 {
        return Kind::Delete;
    }
    let all = |code: u8| !req.ops.is_empty() && req.ops.iter().all(|o| o.op == code);
    if req.is_write() {
        if all(op::WRITE) {
            Kind::Write
        } else {
            Kind::Operate
        }
    } else if req.ops.is_empty() || all(op::READ) {
        Kind::Read
    } else {
        Kind::Operate
    }
}

/// Builds the request of a single-record message (None: malformed transaction fields).
pub fn rec_req<'a>(msg: &Msg<'a>) -> Option<RecReq<'a>> {
    let h = &msg.header;
    let txn = crate::txn::TxnFields::parse(h.info4, &msg.fields).ok()?;
    Some(RecReq {
        info1: h.info1,
        info2: h.info2,
        info3: h.info3,
        generation: h.generation,
        ttl: h.ttl,
        set: msg.fields.get(field::SET).unwrap_or_default(),
        key: msg.fields.get(field::KEY),
        filter: msg.fields.get(field::FILTER_EXP),
        ops: msg.ops,
        deadline: transaction_deadline(h.timeout),
        txn,
    })
}

/// Handles a single-record, UDF or batch request; appends complete frames to `out`.
pub fn single(msg: &Msg<'_>, shared: &Shared, out: &mut Vec<u8>, grants: &Grants) {
    let at = begin_frame(out);
    if msg.fields.get(field::BATCH_INDEX).is_some() {
        shared.stats.count(Kind::Batch);
        batch::handle(msg, shared, grants, out);
    } else {
        one_record(msg, shared, out, grants);
    }
    end_frame(out, at, PROTO_MSG);
}

fn one_record(msg: &Msg<'_>, shared: &Shared, out: &mut Vec<u8>, grants: &Grants) {
    let Some(req) = rec_req(msg) else {
        return header_only(out, 0, rc::PARAMETER, 0);
    };
    let is_udf = msg.fields.get(field::UDF_PACKAGE).is_some();
    shared
        .stats
        .count(if is_udf { Kind::Udf } else { kind_of(&req) });
    let ns = msg.fields.get(field::NAMESPACE).unwrap_or_default();
    let digest: Option<&Digest> = msg
        .fields
        .get(field::DIGEST)
        .and_then(|d| d.try_into().ok());
    let Some(d) = digest else {
        return header_only(out, 0, rc::PARAMETER, 0);
    };
    if let Some(code) = grants.refusal(security::record_perm(&req, is_udf), ns, req.set) {
        return header_only(out, 0, code, 0);
    }
    let served = cluster::keyed(
        shared,
        ns,
        d,
        is_udf || req.is_write() || req.may_touch(),
        |node, ns| {
            if is_udf {
                udf::execute(node, ns, d, &req, &msg.fields, out, 0);
            } else {
                record::execute(ns, d, &req, out, 0);
            }
        },
    );
    if served.is_none() {
        header_only(out, 0, rc::NAMESPACE_NOT_FOUND, 0);
    }
}

/// Handles a scan or query, streaming frames to `sink`. Returns false when the peer is gone.
pub async fn stream(
    msg: &Msg<'_>,
    shared: &Shared,
    out: &mut Vec<u8>,
    sink: &mut FrameSink<'_>,
) -> bool {
    count_stream(msg, shared);
    query::handle(msg, shared, out, sink).await
}

/// Counts a scan or a query.
pub fn count_stream(msg: &Msg<'_>, shared: &Shared) {
    let kind = if msg.fields.get(field::INDEX_RANGE).is_some() {
        Kind::Query
    } else {
        Kind::Scan
    };
    shared.stats.count(kind);
}
