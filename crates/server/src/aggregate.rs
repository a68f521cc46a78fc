//! Foreground stream-UDF queries (UDF_OP 1): as a real server, the node runs the stream
//! function once per partition with selected records, up to the first reduce, and sends each
//! output as a record with bin `SUCCESS` (or one with bin `FAILURE` holding the error); the
//! client finishes the reduce.

use std::time::{Duration, Instant};

use engine::particle_type as pt;
use engine::{Particle, RecordView};

use crate::clock::{cl_secs, now_ms};
use crate::engine_ops::View;
use crate::query::{each_selected, serves, Plan};
use crate::record::rc;
use crate::store::{Digest, Record};
use crate::wire::*;
use crate::{cluster, Shared};

/// How long an aggregation may run when its query's timeout field is 0. A real server sets
/// aggregations no bound at all (an endless stream function spins until the node restarts);
/// here Lua stops at the query's timeout, or after this.
const UNTIMED_AGGREGATION: Duration = Duration::from_secs(30);

/// Appends the node's partial results (and unserved partitions) to `out`, calling
/// `after_message` after each so that they leave in frames as they come.
pub(crate) fn respond(
    msg: &Msg<'_>,
    shared: &Shared,
    p: &Plan<'_>,
    out: &mut Vec<u8>,
    after_message: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) {
    let text = |t| msg.fields.get(t).and_then(|b| std::str::from_utf8(b).ok());
    let (Some(module), Some(function)) = (text(field::UDF_PACKAGE), text(field::UDF_FUNCTION))
    else {
        header_only(out, 0, rc::PARAMETER, 0);
        return;
    };
    let args = msg.fields.get(field::UDF_ARGLIST).unwrap_or(&[0x90]);
    let deadline = Instant::now()
        + match msg.header.timeout {
            0 => UNTIMED_AGGREGATION,
            ms => Duration::from_millis(u64::from(ms)),
        };
    let mut unserved = Vec::new();
    let records = Selection::new(shared, p, &mut unserved);
    let ran = shared.udfs.aggregate(
        module,
        function,
        args,
        records,
        &mut |v| {
            let mut reply = ReplyMsg::begin(out);
            match engine::pack::to_particle(&v) {
                Some(p) => reply.op(out, b"SUCCESS", p.ptype, &p.data),
                None => reply.op(out, b"SUCCESS", pt::NULL, &[]),
            }
            reply.finish(out, 0, rc::OK, 0, 0, 0);
            after_message(out)
        },
        deadline,
    );
    if let Err(failure) = ran {
        crate::log::warning(shared, "udf", &failure.log_line());
        let mut reply = ReplyMsg::begin(out);
        reply.op(out, b"FAILURE", pt::STRING, failure.message.as_bytes());
        reply.finish(out, 0, rc::OK, 0, 0, 0);
    }
    if p.send_done {
        for pid in unserved {
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
}

/// The selected records of the partitions this node serves, one partition's copy at a time
/// as the stream asks for them; partitions it cannot serve go to `unserved` (reported done
/// with result 11, so the client asks their owner).
struct Selection<'a> {
    shared: &'a Shared,
    plan: &'a Plan<'a>,
    unserved: &'a mut Vec<usize>,
    next_partition: usize,
    now_cl: u32,
}

impl<'a> Selection<'a> {
    fn new(shared: &'a Shared, plan: &'a Plan<'a>, unserved: &'a mut Vec<usize>) -> Self {
        Selection {
            shared,
            plan,
            unserved,
            next_partition: 0,
            now_cl: cl_secs(now_ms()),
        }
    }

    /// Copies the next partition's selected records (none when this node does not serve it);
    /// None when no partition is left.
    fn copy_next_partition(&mut self) -> Option<Vec<Selected>> {
        let &(pid, _) = self.plan.partitions.get(self.next_partition)?;
        self.next_partition += 1;
        let (shared, p, now_cl) = (self.shared, self.plan, self.now_cl);
        let mut copied = Vec::new();
        let served = cluster::gated(shared, || {
            let here = serves(shared, p, pid);
            if here {
                each_selected(p, pid, now_cl, |d, r| {
                    copied.push(Selected {
                        digest: *d,
                        set: p.ns.set_name(r.set_id),
                        record: r.clone(),
                    });
                });
            }
            here
        });
        if !served {
            self.unserved.push(pid);
        }
        Some(copied)
    }
}

impl Iterator for Selection<'_> {
    type Item = Vec<Selected>;

    fn next(&mut self) -> Option<Vec<Selected>> {
        self.copy_next_partition()
    }
}

/// One selected record, copied out of its partition.
struct Selected {
    digest: Digest,
    set: String,
    record: Record,
}

impl Selected {
    fn view(&self) -> View<'_> {
        View::stored(&self.digest, &self.record, &self.set)
    }
}

impl RecordView for Selected {
    fn bin(&self, name: &str) -> Option<&Particle> {
        self.record.bin(name.as_bytes())
    }
    fn bin_names(&self) -> Vec<&str> {
        self.record.bins.iter().map(|b| b.name.as_str()).collect()
    }
    fn exists(&self) -> bool {
        true
    }
    fn set_name(&self) -> &str {
        &self.set
    }
    fn user_key(&self) -> Option<&Particle> {
        self.record.key.as_ref()
    }
    fn digest(&self) -> &[u8; 20] {
        &self.digest
    }
    fn generation(&self) -> u32 {
        u32::from(self.record.generation)
    }
    fn void_time_ns(&self) -> u64 {
        self.view().void_time_ns()
    }
    fn last_update_ns(&self) -> u64 {
        self.view().last_update_ns()
    }
    fn size_bytes(&self) -> u64 {
        self.view().size_bytes()
    }
}
