//! Reads that touch their record (`read_touch_ttl_percent`, carried in a read's TTL field): a
//! read within that share of the last write's TTL from the record's end gives it that TTL again.

use crate::clock::cl_secs;
use crate::record::rc;
use crate::store::{partition_of, Digest, Namespace, Record};

/// The percentage that never touches (0 takes the namespace default, which is off).
const NEVER: u32 = u32::MAX;

/// Whether a read's TTL field asks for a touch at all.
pub fn asked(ttl: u32) -> bool {
    ttl != 0 && ttl != NEVER
}

/// The write TTL to give `rec` again, if a read with `pct` is due to touch it; a percentage over
/// 100 is refused (before any filter), as a real server.
pub fn due(rec: &Record, pct: u32, now_ms: u64) -> Result<Option<u32>, u8> {
    if pct > 100 {
        return Err(rc::PARAMETER);
    }
    if rec.void_time == 0 {
        return Ok(None);
    }
    let write_ttl = rec.void_time.saturating_sub(cl_secs(rec.last_update_ms));
    let threshold = (u64::from(write_ttl) * u64::from(pct) / 100) as u32;
    Ok((cl_secs(now_ms) >= rec.void_time - threshold).then_some(write_ttl))
}

/// Gives the record its write TTL again from `now_ms`, keeping its generation; a write that
/// has moved its void time further since the read leaves it as it is.
pub fn apply(ns: &Namespace, digest: &Digest, write_ttl: u32, now_ms: u64) {
    let mut part = ns.write(partition_of(digest));
    let Some(rec) = part.get(digest) else { return };
    let void_time = cl_secs(now_ms).saturating_add(write_ttl);
    if rec.expired(cl_secs(now_ms)) || rec.void_time >= void_time {
        return;
    }
    let mut rec = rec.clone();
    rec.void_time = void_time;
    rec.last_update_ms = now_ms;
    part.insert(ns, *digest, rec);
}
