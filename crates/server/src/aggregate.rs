//! Foreground stream-UDF queries (UDF_OP 1): the node runs the stream function over the
//! selected records of each of its partitions up to the first reduce and sends each output as a record with bin
//! `SUCCESS` (or one with bin `FAILURE` holding the error); the client finishes the reduce.

use engine::particle_type as pt;

use crate::clock::{cl_secs, now_ms};
use crate::engine_ops::View;
use crate::query::{selected, serves, Plan};
use crate::record::rc;
use crate::store::{partition_of, Digest, Record};
use crate::wire::*;
use crate::{cluster, Shared};

/// UDF_OP value of a foreground aggregation.
const AGGREGATE: u8 = 1;

/// Whether `msg` asks for a foreground aggregation.
pub(crate) fn wanted(msg: &Msg<'_>) -> bool {
    msg.header.info2 & INFO2_WRITE == 0
        && msg.fields.get(field::UDF_OP).and_then(|b| b.first()) == Some(&AGGREGATE)
}

/// Appends the node's partial results (and unserved partitions) to `out`.
pub(crate) fn respond(msg: &Msg<'_>, shared: &Shared, p: &Plan<'_>, out: &mut Vec<u8>) {
    let text = |t| msg.fields.get(t).and_then(|b| std::str::from_utf8(b).ok());
    let (Some(module), Some(function)) = (text(field::UDF_PACKAGE), text(field::UDF_FUNCTION))
    else {
        header_only(out, 0, rc::PARAMETER, 0);
        return;
    };
    let args = msg.fields.get(field::UDF_ARGLIST).unwrap_or(&[0x90]);
    let records = collect(shared, p, out);
    fn view((digest, rec, set): &(Digest, Record, String)) -> View<'_> {
        View {
            bins: &rec.bins,
            index: None,
            key: rec.key.as_ref(),
            set,
            digest,
            generation: u32::from(rec.generation),
            void_time: rec.void_time,
            last_update_ms: rec.last_update_ms,
            exists: true,
        }
    }
    // As a real server, the stream function runs once per partition with matching records.
    let partitions = records
        .chunk_by(|a, b| partition_of(&a.0) == partition_of(&b.0))
        .map(|part| part.iter().map(view).collect::<Vec<_>>());
    match shared.udfs.aggregate(module, function, args, partitions) {
        Ok(values) => {
            for v in values {
                let mut reply = ReplyMsg::begin(out);
                match engine::pack::to_particle(&v) {
                    Some(p) => reply.op(out, b"SUCCESS", p.ptype, &p.data),
                    None => reply.op(out, b"SUCCESS", pt::NULL, &[]),
                }
                reply.finish(out, 0, rc::OK, 0, 0, 0);
            }
        }
        Err(failure) => {
            let mut reply = ReplyMsg::begin(out);
            reply.op(out, b"FAILURE", pt::STRING, failure.message.as_bytes());
            reply.finish(out, 0, rc::OK, 0, 0, 0);
        }
    }
}

/// The selected records of the partitions this node serves (a partition it cannot serve is
/// reported done with result 11, so the client asks its owner).
fn collect(shared: &Shared, p: &Plan<'_>, out: &mut Vec<u8>) -> Vec<(Digest, Record, String)> {
    let now_cl = cl_secs(now_ms());
    let mut records = Vec::new();
    for &(pid, _) in &p.partitions {
        let served = cluster::gated(shared, || {
            let here = serves(shared, p, pid);
            if here {
                let part = p.ns.read(pid);
                records.extend(
                    part.iter()
                        .filter(|(d, r)| selected(p, d, r, now_cl))
                        .map(|(d, r)| (*d, r.clone(), p.ns.set_name(r.set_id))),
                );
            }
            here
        });
        if !served && p.send_done {
            ReplyMsg::begin(out).finish(
                out,
                INFO3_PARTITION_DONE,
                rc::PARTITION_UNAVAILABLE,
                pid as u32,
                0,
                0,
            );
        }
    }
    records
}
