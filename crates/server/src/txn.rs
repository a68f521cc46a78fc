//! Multi-record transactions on strong-consistency namespaces: provisional writes a
//! transaction locks (the committed record kept beside them), the monitor records clients
//! keep, verify and roll requests, and the sweep that ends transactions past their deadline.

mod sweep;

pub use sweep::sweep;

use engine::value::Value;
use ripemd::{Digest as _, Ripemd160};

use crate::clock::now_ms;
use crate::request::RecReq;
use crate::store::{Digest, Namespace, Partition, Record};
use crate::wire::{op, Fields, INFO2_DELETE};

/// The set of transaction monitors.
pub const MONITOR_SET: &[u8] = b"<ERO~MRT";
/// How long a transaction may run when it asks for no timeout (`transaction-duration`).
pub const DEFAULT_DURATION: u32 = 10;
/// The longest timeout a transaction may ask for, in seconds.
pub const MAX_DURATION: u32 = 120;
/// Most records one transaction may write (digests its monitor holds).
pub const MAX_WRITES: usize = 4096;

/// `info4` bits.
pub const VERIFY_READ: u8 = 1;
pub const ROLL_FORWARD: u8 = 1 << 1;
pub const ROLL_BACK: u8 = 1 << 2;

/// Field types.
pub const RECORD_VERSION: u8 = 3;
pub const TXN_ID: u8 = 5;
pub const TXN_DEADLINE: u8 = 6;

/// Result codes.
pub mod rc {
    pub const BLOCKED: u8 = 120;
    pub const VERSION_MISMATCH: u8 = 121;
    pub const EXPIRED: u8 = 122;
    pub const TOO_MANY_WRITES: u8 = 123;
    pub const COMMITTED: u8 = 124;
    pub const ABORTED: u8 = 125;
}

/// What a record carries for transactions.
#[derive(Clone, Debug)]
pub enum TxnMeta {
    /// A provisional write of transaction `id` (its deadline in citrusleaf seconds); `orig`
    /// is the committed record it hides (None: there was none). A provisional delete keeps
    /// the record with no bins.
    Locked {
        id: i64,
        deadline: u32,
        orig: Option<Record>,
    },
    /// A transaction's monitor, and when the transaction expires.
    Monitor { deadline: u32 },
}

/// The transaction fields of a request and its `info4` flags.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxnFields {
    pub info4: u8,
    pub id: Option<i64>,
    pub version: Option<u64>,
    pub deadline: Option<u32>,
}

impl TxnFields {
    /// Reads the fields; malformed ones are a parameter error.
    pub fn parse(info4: u8, fields: &Fields<'_>) -> Result<TxnFields, ()> {
        let id = match fields.get(TXN_ID) {
            Some(b) => Some(i64::from_le_bytes(b.try_into().map_err(|_| ())?)),
            None => None,
        };
        let deadline = match fields.get(TXN_DEADLINE) {
            Some(b) => Some(u32::from_le_bytes(b.try_into().map_err(|_| ())?)),
            None => None,
        };
        let version = match fields.get(RECORD_VERSION) {
            Some(b) if b.len() == 7 => {
                let mut v = [0u8; 8];
                v[..7].copy_from_slice(b);
                Some(u64::from_le_bytes(v))
            }
            Some(_) => return Err(()),
            None => None,
        };
        Ok(TxnFields {
            info4,
            id,
            version,
            deadline,
        })
    }

    /// Whether the request takes part in a transaction (or verifies or rolls one).
    pub fn any(&self) -> bool {
        self.id.is_some() || self.info4 & (VERIFY_READ | ROLL_FORWARD | ROLL_BACK) != 0
    }
}

/// A record's version as clients see it (7 bytes): its last update in ms since the
/// citrusleaf epoch (low 40 bits) and its generation (high 16).
pub fn version(r: &Record) -> u64 {
    let since_epoch = r
        .last_update_ms
        .saturating_sub(crate::clock::CITRUSLEAF_EPOCH * 1000);
    (since_epoch & 0xFF_FFFF_FFFF) | u64::from(r.generation) << 40
}

/// The version as the 7-byte field.
pub fn version_field(v: u64) -> [u8; 7] {
    let b = v.to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4], b[5], b[6]]
}

/// The deadline as the 4-byte field.
pub fn deadline_field(d: u32) -> [u8; 4] {
    d.to_le_bytes()
}

fn is_tombstone(r: &Record) -> bool {
    r.bins.is_empty() && matches!(r.txn.as_deref(), Some(TxnMeta::Locked { .. }))
}

/// Whether `req` writes to a transaction monitor.
pub fn is_monitor_request(req: &RecReq<'_>) -> bool {
    req.set == MONITOR_SET
}

/// The refusal of a transaction request on `ns` (None: it may run): a Community server
/// refuses them all (25), an Enterprise one on a namespace without strong consistency
/// answers "unsupported feature" (16).
pub fn refusal(ns: &Namespace, req: &RecReq<'_>) -> Option<u8> {
    if !(req.txn.any() || (req.is_write() && is_monitor_request(req))) {
        return None;
    }
    if !ns.durable_deletes {
        Some(crate::record::rc::ENTERPRISE_ONLY)
    } else if !ns.strong_consistency {
        Some(crate::record::rc::UNSUPPORTED_FEATURE)
    } else {
        None
    }
}

/// What a read sees of `rec`: a transaction its own provisional writes, everybody else the
/// committed record. With the version to report (reads inside a transaction of a committed
/// record), or the refusal of a read by a transaction past its deadline.
pub fn visible<'a>(
    rec: Option<&'a Record>,
    t: &TxnFields,
    now_cl: u32,
) -> Result<(Option<&'a Record>, Option<u64>), u8> {
    let Some(r) = rec else {
        return match t.version {
            Some(_) if t.id.is_some() => Err(rc::VERSION_MISMATCH),
            _ => Ok((None, None)),
        };
    };
    match r.txn.as_deref() {
        Some(TxnMeta::Locked { id, deadline, orig }) => {
            if t.id == Some(*id) {
                if *deadline < now_cl {
                    return Err(rc::EXPIRED);
                }
                Ok(((!is_tombstone(r)).then_some(r), None))
            } else if t.id.is_some() {
                if t.version.is_some() && t.version != orig.as_ref().map(version) {
                    return Err(rc::VERSION_MISMATCH);
                }
                Err(rc::BLOCKED)
            } else {
                Ok((orig.as_ref(), None))
            }
        }
        Some(TxnMeta::Monitor { .. }) => Ok((Some(r), None)),
        None if t.id.is_some() => {
            if t.version.is_some_and(|v| v != version(r)) {
                return Err(rc::VERSION_MISMATCH);
            }
            Ok((Some(r), Some(version(r))))
        }
        None => Ok((Some(r), None)),
    }
}

/// What scans and queries see of a stored record: the committed one (None: a provisional
/// create, or a transaction monitor).
pub fn committed(r: &Record) -> Option<&Record> {
    match r.txn.as_deref() {
        None => Some(r),
        Some(TxnMeta::Locked { orig, .. }) => orig.as_ref(),
        Some(TxnMeta::Monitor { .. }) => None,
    }
}

/// The version of the committed record at `digest` (what verify compares).
fn committed_version(part: &Partition, digest: &Digest) -> Option<u64> {
    let r = part.get(digest)?;
    match r.txn.as_deref() {
        Some(TxnMeta::Locked { orig, .. }) => orig.as_ref().map(version),
        _ => Some(version(r)),
    }
}

/// Verify: whether the committed record still has the version the transaction read.
pub fn verify(part: &Partition, digest: &Digest, t: &TxnFields) -> u8 {
    if committed_version(part, digest) == t.version {
        crate::record::rc::OK
    } else {
        rc::VERSION_MISMATCH
    }
}

/// Rolls transaction `id`'s provisional write at `digest` forward or back; anything else
/// there (already rolled, never written) is left as it is.
pub fn roll(ns: &Namespace, part: &mut Partition, digest: &Digest, id: i64, forward: bool) {
    let held = matches!(
        part.get(digest).and_then(|r| r.txn.as_deref()),
        Some(TxnMeta::Locked { id: i, .. }) if *i == id
    );
    if !held {
        return;
    }
    let Some(mut rec) = part.remove(digest) else {
        return;
    };
    let tombstone = is_tombstone(&rec);
    let Some(TxnMeta::Locked { orig, .. }) = rec.txn.take().map(|b| *b) else {
        return;
    };
    // Either way the record gets a new version: one past the provisional's generation.
    let generation = rec.generation.wrapping_add(1).max(1);
    let now = now_ms();
    if forward {
        if !tombstone {
            rec.generation = generation;
            rec.last_update_ms = now;
            part.insert(ns, *digest, rec);
        }
    } else if let Some(mut orig) = orig {
        orig.generation = generation;
        orig.last_update_ms = now;
        part.insert(ns, *digest, orig);
        if tombstone {
            ns.count_change(1);
        }
    } else if !tombstone {
        ns.count_change(-1);
    }
}

/// Whether a record UDF may run on `rec`: not on a record another transaction (or, for a call
/// outside one, any transaction) holds; not in a transaction past its deadline.
pub fn udf_may_run(rec: Option<&Record>, req: &RecReq<'_>, now_cl: u32) -> Result<(), u8> {
    match rec.and_then(|r| r.txn.as_deref()) {
        Some(TxnMeta::Locked { id, deadline, .. }) if req.txn.id == Some(*id) => {
            if *deadline < now_cl {
                Err(rc::EXPIRED)
            } else {
                Ok(())
            }
        }
        Some(TxnMeta::Locked { .. }) => Err(rc::BLOCKED),
        _ => Ok(()),
    }
}

/// How a write on a strong-consistency namespace goes, decided before it runs.
pub enum Prep {
    /// Not a transaction's: runs as anywhere.
    Plain,
    /// Transaction `id`'s write: the result is locked, `orig` kept beside it. `tombstone` is
    /// its own earlier provisional delete, set aside while the write runs.
    Locked {
        id: i64,
        deadline: u32,
        orig: Option<Record>,
        tombstone: Option<Record>,
    },
    /// A monitor write: the record keeps (or gets) this deadline.
    Monitor { deadline: u32 },
}

/// Checks a write on a strong-consistency namespace before it runs.
pub fn before_write(
    part: &mut Partition,
    digest: &Digest,
    req: &RecReq<'_>,
    now_cl: u32,
) -> Result<Prep, u8> {
    let existing = part.get(digest);
    if is_monitor_request(req)
        || matches!(
            existing.and_then(|r| r.txn.as_deref()),
            Some(TxnMeta::Monitor { .. })
        )
    {
        return monitor_write(existing, req, now_cl);
    }
    let lock = existing.and_then(|r| match r.txn.as_deref() {
        Some(TxnMeta::Locked { id, orig, .. }) => Some((*id, orig.clone())),
        _ => None,
    });
    let Some(id) = req.txn.id else {
        return match lock {
            Some(_) => Err(rc::BLOCKED),
            None => Ok(Prep::Plain),
        };
    };
    let deadline = match req.txn.deadline {
        Some(d) if d < now_cl => return Err(rc::EXPIRED),
        Some(d) => d,
        None => now_cl + DEFAULT_DURATION,
    };
    if let Some(v) = req.txn.version {
        let current = match &lock {
            Some((_, orig)) => orig.as_ref().map(version),
            None => existing.map(version),
        };
        if current != Some(v) {
            return Err(rc::VERSION_MISMATCH);
        }
    }
    match lock {
        Some((holder, _)) if holder != id => Err(rc::BLOCKED),
        Some((_, orig)) => {
            let tombstone = if existing.is_some_and(is_tombstone) {
                part.remove(digest)
            } else {
                None
            };
            Ok(Prep::Locked {
                id,
                deadline,
                orig,
                tombstone,
            })
        }
        None => Ok(Prep::Locked {
            id,
            deadline,
            orig: existing.cloned(),
            tombstone: None,
        }),
    }
}

fn monitor_write(existing: Option<&Record>, req: &RecReq<'_>, now_cl: u32) -> Result<Prep, u8> {
    if req.info2 & INFO2_DELETE != 0 {
        return Ok(Prep::Plain);
    }
    let writes_bin = |name: &[u8]| req.ops.iter().any(|o| o.op == op::WRITE && o.name == name);
    let marked = existing.is_some_and(|r| r.bin(b"fwd").is_some());
    match existing.and_then(|r| r.txn.as_deref()) {
        // Marked for roll-forward: committed, whatever the clock says.
        Some(TxnMeta::Monitor { .. }) if marked => Err(rc::COMMITTED),
        // Past its deadline the server rolls it back: too late to mark it, or to add keys.
        Some(TxnMeta::Monitor { deadline }) if *deadline < now_cl => Err(if writes_bin(b"fwd") {
            rc::ABORTED
        } else {
            rc::EXPIRED
        }),
        Some(TxnMeta::Monitor { deadline }) => {
            if too_many_writes(existing, req) {
                return Err(rc::TOO_MANY_WRITES);
            }
            Ok(Prep::Monitor {
                deadline: *deadline,
            })
        }
        _ if writes_bin(b"id") => {
            let duration = match req.ttl {
                0 => DEFAULT_DURATION,
                t => t.min(MAX_DURATION),
            };
            Ok(Prep::Monitor {
                deadline: now_cl + duration,
            })
        }
        // No monitor: it was closed, or the server ended the transaction.
        _ => Err(rc::EXPIRED),
    }
}

/// Whether the monitor would hold more digests than a transaction may write.
fn too_many_writes(existing: Option<&Record>, req: &RecReq<'_>) -> bool {
    let held = existing
        .and_then(|r| r.bin(b"keyds"))
        .and_then(|p| engine::pack::from_particle(p).ok())
        .map_or(0, |v| match v {
            Value::List(l) => l.items.len(),
            _ => 0,
        });
    held + req.ops.len() > MAX_WRITES
}

/// Finishes a write `before_write` let run (`ok`: it succeeded): locks the provisional
/// record, or stamps the monitor. Returns the deadline to report (monitor writes).
pub fn after_write(
    ns: &Namespace,
    part: &mut Partition,
    digest: &Digest,
    prep: Prep,
    ok: bool,
) -> Option<u32> {
    match prep {
        Prep::Plain => None,
        Prep::Locked {
            tombstone: Some(t), ..
        } if !ok => {
            part.insert(ns, *digest, t);
            None
        }
        Prep::Locked { .. } if !ok => None,
        Prep::Locked {
            id,
            deadline,
            orig,
            tombstone: _,
        } => {
            let meta = TxnMeta::Locked { id, deadline, orig };
            match part.get(digest).cloned() {
                Some(mut rec) => {
                    rec.txn = Some(Box::new(meta));
                    part.insert(ns, *digest, rec);
                }
                None => {
                    if let TxnMeta::Locked {
                        orig: Some(ref o), ..
                    } = meta
                    {
                        let tombstone = Record {
                            set_id: o.set_id,
                            key: o.key.clone(),
                            generation: o.generation.wrapping_add(1).max(1),
                            last_update_ms: now_ms(),
                            ..Record::default()
                        };
                        let tombstone = Record {
                            txn: Some(Box::new(meta)),
                            ..tombstone
                        };
                        part.insert(ns, *digest, tombstone);
                    }
                }
            }
            None
        }
        Prep::Monitor { deadline } => {
            if !ok {
                return None;
            }
            if let Some(mut rec) = part.get(digest).cloned() {
                rec.txn = Some(Box::new(TxnMeta::Monitor { deadline }));
                rec.void_time = 0;
                part.insert(ns, *digest, rec);
            }
            Some(deadline)
        }
    }
}

/// The digest of transaction `id`'s monitor.
pub fn monitor_digest(id: i64) -> Digest {
    let mut h = Ripemd160::new();
    h.update(MONITOR_SET);
    h.update([1u8]);
    h.update(id.to_be_bytes());
    h.finalize().into()
}
