//! Record UDF execution (fields 30-32) against a working copy of the record.

use bytes::Bytes;
use engine::particle_type as pt;
use engine::udf::RecordMut;
use engine::{Particle, RecordView, ResultCode};

use crate::bins::BinSet;
use crate::clock::{cl_secs, now_ms};
use crate::engine_ops::View;
use crate::record::{rc, RecReq};
use crate::store::{partition_of, void_time_for, BinName, Digest, Namespace, Record};
use crate::wire::*;
use crate::Shared;

/// Most bins a UDF may leave on a record when it adds one (as on a real server).
const UDF_BIN_LIMIT: usize = 512;

/// The record a UDF sees and changes.
struct UdfRec<'a> {
    bins: BinSet,
    key: Option<Particle>,
    set: String,
    digest: &'a Digest,
    generation: u32,
    void_time: u32,
    last_update_ms: u64,
    exists: bool,
    commit: bool,
    ttl: Option<i64>,
}

impl UdfRec<'_> {
    fn view(&self) -> View<'_> {
        View {
            bins: self.bins.bins(),
            index: self.bins.index(),
            key: self.key.as_ref(),
            set: &self.set,
            digest: self.digest,
            generation: self.generation,
            void_time: self.void_time,
            last_update_ms: self.last_update_ms,
            exists: self.exists,
        }
    }
}

impl RecordView for UdfRec<'_> {
    fn bin(&self, name: &str) -> Option<&Particle> {
        self.bins.get(name.as_bytes())
    }
    fn bin_names(&self) -> Vec<&str> {
        self.bins.live().map(|b| b.name.as_str()).collect()
    }
    fn exists(&self) -> bool {
        self.exists
    }
    fn set_name(&self) -> &str {
        &self.set
    }
    fn user_key(&self) -> Option<&Particle> {
        self.key.as_ref()
    }
    fn digest(&self) -> &[u8; 20] {
        self.digest
    }
    fn generation(&self) -> u32 {
        self.generation
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

impl RecordMut for UdfRec<'_> {
    fn set_bin(&mut self, name: &str, value: Particle) -> Result<(), ResultCode> {
        let name = BinName::new(name.as_bytes()).ok_or(rc::BIN_NAME)?;
        if self.bins.len() >= UDF_BIN_LIMIT && self.bins.get(name.as_bytes()).is_none() {
            return Err(rc::BIN_NAME);
        }
        self.bins.set(name, value);
        Ok(())
    }
    fn remove_bin(&mut self, name: &str) -> Result<(), ResultCode> {
        self.bins.remove(name.as_bytes());
        Ok(())
    }
    fn create(&mut self) -> Result<(), ResultCode> {
        if self.exists {
            return Err(rc::KEY_EXISTS);
        }
        self.exists = true;
        self.commit = true;
        Ok(())
    }
    fn update(&mut self) -> Result<(), ResultCode> {
        self.exists = true;
        self.commit = true;
        Ok(())
    }
    fn remove(&mut self) -> Result<(), ResultCode> {
        self.exists = false;
        self.commit = true;
        Ok(())
    }
    fn set_ttl(&mut self, ttl: i64) {
        self.ttl = Some(ttl);
        self.commit = true;
    }
}

/// Runs the UDF named by `fields` on `digest`; appends the reply (bin SUCCESS or FAILURE).
///
/// Lua runs on a copy of the record with no partition lock held, so other records of the
/// partition stay readable and writable meanwhile. UDFs on one record take turns; a plain
/// write that lands on the record during the run makes the UDF run again on the new record.
pub fn execute(
    shared: &Shared,
    ns: &Namespace,
    digest: &Digest,
    req: &RecReq<'_>,
    fields: &Fields<'_>,
    out: &mut Vec<u8>,
    slot: u32,
) -> u8 {
    let text = |t| fields.get(t).and_then(|b| std::str::from_utf8(b).ok());
    let (Some(module), Some(function)) = (text(field::UDF_PACKAGE), text(field::UDF_FUNCTION))
    else {
        header_only(out, 0, rc::PARAMETER, slot);
        return rc::PARAMETER;
    };
    if let Some(code) = crate::txn::refusal(ns, req) {
        header_only(out, 0, code, slot);
        return code;
    }
    let call = Call {
        shared,
        ns,
        digest,
        req,
        module,
        function,
        args: fields.get(field::UDF_ARGLIST).unwrap_or(&[0x90]),
    };
    let _turn = ns.udf_turns.take(digest);
    for _ in 0..RUNS_PER_CALL {
        if let Some(code) = call.run(out, slot) {
            return code;
        }
    }
    header_only(out, 0, rc::KEY_BUSY, slot);
    rc::KEY_BUSY
}

/// Times a UDF runs again because plain writes kept changing its record before the server
/// answers KEY_BUSY.
const RUNS_PER_CALL: usize = 8;

/// One record UDF call.
struct Call<'a> {
    shared: &'a Shared,
    ns: &'a Namespace,
    digest: &'a Digest,
    req: &'a RecReq<'a>,
    module: &'a str,
    function: &'a str,
    args: &'a [u8],
}

impl Call<'_> {
    /// Runs the UDF once and commits; None when the record changed while Lua ran.
    fn run(&self, out: &mut Vec<u8>, slot: u32) -> Option<u8> {
        let (ns, digest, req) = (self.ns, self.digest, self.req);
        let pid = partition_of(digest);
        let now = now_ms();
        let (before, mut rec) = {
            let mut part = ns.write(pid);
            if part.get(digest).is_some_and(|r| r.expired(cl_secs(now))) {
                part.remove(digest);
                ns.count_change(-1);
            }
            let existing = part.get(digest);
            if ns.strong_consistency {
                if let Err(code) = crate::txn::udf_may_run(existing, req, cl_secs(now)) {
                    header_only(out, 0, code, slot);
                    return Some(code);
                }
            }
            // As a real server: the filter applies to a record that exists.
            if let Some(Err(code)) =
                existing.map(|r| crate::record::check_filter(ns, digest, r, req.filter))
            {
                header_only(out, 0, code, slot);
                return Some(code);
            }
            let rec = UdfRec {
                bins: BinSet::new(existing.map(|r| r.bins.clone()).unwrap_or_default()),
                key: existing.and_then(|r| r.key.clone()),
                set: match existing {
                    Some(r) => ns.set_name(r.set_id),
                    None => String::from_utf8_lossy(req.set).into_owned(),
                },
                digest,
                generation: existing.map_or(0, |r| u32::from(r.generation)),
                void_time: existing.map_or(0, |r| r.void_time),
                last_update_ms: existing.map_or(0, |r| r.last_update_ms),
                exists: existing.is_some(),
                commit: false,
                ttl: None,
            };
            (existing.map(version), rec)
        };
        let outcome = self.shared.udfs.apply(
            self.module,
            self.function,
            self.args,
            &mut rec,
            req.deadline,
        );
        let mut part = ns.write(pid);
        if part.get(digest).map(version) != before {
            return None;
        }
        let mut reply = ReplyMsg::begin(out);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(failure) => {
                crate::log::warning(self.shared, "udf", &failure.log_line());
                reply.op(out, b"FAILURE", pt::STRING, failure.message.as_bytes());
                reply.finish(out, 0, failure.code, 0, 0, slot);
                return Some(failure.code);
            }
        };
        let existed = before.is_some();
        let old = before.map(|(generation, _, void_time, set_id)| (generation, void_time, set_id));
        let (mut generation, mut void_time) = (rec.generation, rec.void_time);
        let deletes = rec.commit && existed && (!rec.exists || rec.bins.is_empty());
        if rec.commit && !crate::ttl::is_valid(req.ttl) {
            reply.discard_body(out);
            reply.finish(out, 0, rc::PARAMETER, 0, 0, slot);
            return Some(rc::PARAMETER);
        }
        if deletes && req.info2 & INFO2_DURABLE_DELETE != 0 && !ns.durable_deletes {
            reply.discard_body(out);
            reply.finish(out, 0, rc::ENTERPRISE_ONLY, 0, 0, slot);
            return Some(rc::ENTERPRISE_ONLY);
        }
        let prep = if rec.commit && ns.strong_consistency {
            match crate::txn::before_write(&mut part, digest, req, cl_secs(now)) {
                Ok(prep) => Some(prep),
                Err(code) => {
                    reply.discard_body(out);
                    reply.finish(out, 0, code, 0, 0, slot);
                    return Some(code);
                }
            }
        } else {
            None
        };
        if rec.commit {
            if !rec.exists || rec.bins.is_empty() {
                if existed {
                    part.remove(digest);
                    ns.count_change(-1);
                }
            } else {
                let gen = old.map_or(0, |o| o.0).wrapping_add(1).max(1);
                let ttl = match rec.ttl {
                    Some(t) if t < 0 => u32::MAX,
                    Some(t) => u32::try_from(t).unwrap_or(u32::MAX - 2),
                    None => req.ttl,
                };
                let set_id = match old {
                    Some(o) => o.2,
                    None => ns.set_id(req.set).unwrap_or(0),
                };
                let record = Record {
                    bins: std::mem::take(&mut rec.bins).into_bins(),
                    key: rec.key.take().or_else(|| req.key.and_then(key_particle)),
                    set_id,
                    generation: gen,
                    void_time: void_time_for(ttl, old.map(|o| o.1), now),
                    last_update_ms: now,
                    txn: None,
                };
                generation = u32::from(gen);
                void_time = record.void_time;
                if part.insert(ns, *digest, record).is_none() {
                    ns.count_change(1);
                }
            }
        }
        if let Some(prep) = prep {
            crate::txn::after_write(ns, &mut part, digest, prep, true);
        }
        match &outcome.value {
            Some(v) => reply.op(out, b"SUCCESS", v.ptype, &v.data),
            None => reply.op(out, b"SUCCESS", pt::NULL, &[]),
        }
        reply.finish(out, 0, rc::OK, generation, void_time, slot);
        Some(rc::OK)
    }
}

/// What changes whenever a record is written, touched, deleted or re-created.
fn version(r: &Record) -> (u16, u64, u32, u16) {
    (r.generation, r.last_update_ms, r.void_time, r.set_id)
}

fn key_particle(field: &[u8]) -> Option<Particle> {
    let (t, d) = field.split_first()?;
    Some(Particle {
        ptype: *t,
        data: Bytes::copy_from_slice(d),
    })
}
