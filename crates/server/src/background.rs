//! Background jobs: a query's write ops or its UDF applied to every selected record, each
//! record a transaction of its own, then remembered for `query-show`.

use std::time::Instant;

use crate::clock::{cl_secs, now_ms, transaction_deadline};
use crate::jobs::Job;
use crate::query::{each_selected, Plan};
use crate::query_kind::QueryKind;
use crate::record::{self, rc, RecReq};
use crate::wire::*;
use crate::{cluster, udf, Shared};

/// Runs the job of `msg` (a background kind) to its end and remembers it under the request's
/// query id.
pub(crate) fn run(msg: &Msg<'_>, shared: &Shared, p: &Plan<'_>, kind: QueryKind) {
    let started = Instant::now();
    let (succeeded, failed) = apply(msg, shared, p, kind);
    let Some(id) = msg
        .fields
        .get(field::QUERY_ID)
        .and_then(|b| b.try_into().ok())
    else {
        return;
    };
    let text = |ftype| {
        msg.fields
            .get(ftype)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    shared.jobs.done(Job {
        id: u64::from_be_bytes(id),
        kind,
        namespace: p.ns.name.clone(),
        set: text(field::SET),
        sindex: p
            .index
            .as_ref()
            .map(|(idx, _)| idx.name.clone())
            .unwrap_or_default(),
        udf: (kind == QueryKind::BackgroundUdf)
            .then(|| (text(field::UDF_PACKAGE), text(field::UDF_FUNCTION))),
        succeeded,
        failed,
        run_time: started.elapsed(),
        finished: Instant::now(),
    });
}

/// Applies the message's write ops (or UDF) to every selected record; returns how many
/// records it succeeded and failed on.
fn apply(msg: &Msg<'_>, shared: &Shared, p: &Plan<'_>, kind: QueryKind) -> (u64, u64) {
    let now_cl = cl_secs(now_ms());
    let mut digests = Vec::new();
    for &(pid, _) in &p.partitions {
        cluster::gated(shared, || {
            if !cluster::master_here(shared, pid) {
                return;
            }
            each_selected(p, pid, now_cl, |d, _| digests.push(*d));
        });
    }
    let is_udf = kind == QueryKind::BackgroundUdf;
    let mut req = RecReq {
        info1: 0,
        info2: INFO2_WRITE | (msg.header.info2 & INFO2_DURABLE_DELETE),
        info3: INFO3_UPDATE_ONLY,
        generation: 0,
        ttl: msg.header.ttl,
        set: &[],
        key: None,
        filter: None,
        ops: msg.ops,
        deadline: transaction_deadline(0),
        txn: crate::txn::TxnFields::default(),
    };
    let mut scratch = Vec::new();
    let ns = p.ns.name.as_bytes();
    let (mut succeeded, mut failed) = (0, 0);
    for d in &digests {
        scratch.clear();
        // Each record is a transaction of its own, with no timeout given.
        req.deadline = transaction_deadline(0);
        let code = cluster::keyed(shared, ns, d, true, |node, ns| {
            if is_udf {
                udf::execute(node, ns, d, &req, &msg.fields, &mut scratch, 0)
            } else {
                record::execute(ns, d, &req, &mut scratch, 0)
            }
        });
        if code == Some(rc::OK) {
            succeeded += 1;
        } else {
            failed += 1;
        }
    }
    (succeeded, failed)
}
