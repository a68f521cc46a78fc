//! `CallDefaults` (a client's defaults per command family) and `Policy` (a call's own
//! options), from which the crate's policies of a call are built.

pub mod road;

use std::sync::Arc;

use aerospike::expressions::Expression;
use aerospike::policy::{BasePolicy, QueryDuration, ReadModeAp, ReadModeSc, ReadTouchTtl, Replica};
use aerospike::{
    BatchDeletePolicy, BatchPolicy, BatchReadPolicy, BatchUdfPolicy, BatchWritePolicy, Expiration,
    GenerationPolicy, QueryPolicy, ReadPolicy, RecordExistsAction, WritePolicy,
};
use parking_lot::Mutex;
use pyo3::prelude::*;

use crate::convert::bytes_keys::BytesKeys;

/// The limits of one command family: timeouts and retries, in ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    /// Total timeout (0 = none).
    pub total_timeout: u32,
    /// Socket idle timeout (0 = none).
    pub socket_timeout: u32,
    /// Attempts after the first (writes retry only when `retry_writes` says so).
    pub max_retries: usize,
    /// Pause between attempts.
    pub retry_pause: u32,
}

impl Family {
    const fn new(total_timeout: u32, socket_timeout: u32, max_retries: usize) -> Self {
        Family {
            total_timeout,
            socket_timeout,
            max_retries,
            retry_pause: 0,
        }
    }
}

/// The defaults of calls, per command family (`connect(policy=...)`, `with_policy`), resolved
/// in Python: every field has its value.
#[pyclass(frozen, module = "aerospike_fluent._native")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallDefaults {
    pub read: Family,
    pub write: Family,
    pub batch: Family,
    pub query: Family,
    pub udf: Family,
    /// Info commands' timeout in ms.
    pub info_timeout: u32,
    pub retry_writes: bool,
    pub send_key: bool,
    pub expiration: Expiration,
    pub durable_delete: bool,
    pub compress: bool,
    pub replica: Replica,
    pub read_mode_ap: ReadModeAp,
    pub read_mode_sc: ReadModeSc,
    /// How `bytes` user keys are hashed.
    pub bytes_keys: BytesKeys,
    /// Whether a read gives its record its write TTL again (`read_touch_ttl_percent`).
    pub read_touch_ttl: ReadTouchTtl,
}

/// A client's defaults: its calls', and how it waits and counts.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub calls: CallDefaults,
    /// How long a blocking single-record call busy-polls for its reply, in µs (0 = never).
    pub spin_wait_us: u32,
    /// Whether calls are counted in the client's metrics.
    pub metrics: bool,
    /// The most calls in flight at once (`None`: no limit), and how long a call waits for a
    /// slot, in ms (0: as long as it takes).
    pub max_in_flight: Option<usize>,
    pub queue_timeout_ms: u32,
}

/// The native policies a call may need, all derived from one `Policy`.
#[derive(Clone, Debug)]
pub struct Natives {
    /// Single-record reads.
    pub read: ReadPolicy,
    /// Single-record writes and operate.
    pub write: WritePolicy,
    /// Record UDF apply.
    pub udf: WritePolicy,
    /// Whole-batch (read-only batches).
    pub batch: BatchPolicy,
    /// Whole-batch with writes.
    pub batch_write: BatchPolicy,
    /// Batch read row.
    pub batch_read_row: BatchReadPolicy,
    /// Batch write row.
    pub batch_write_row: BatchWritePolicy,
    /// Batch delete row.
    pub batch_delete_row: BatchDeletePolicy,
    /// Batch UDF row.
    pub batch_udf_row: BatchUdfPolicy,
    /// Scans and queries.
    pub query: QueryPolicy,
    /// Whether single-record reads and writes under these policies can take the wire path
    /// (`request::single`).
    pub wire_read: bool,
    pub wire_write: bool,
    /// Whether operate and touch under these policies can (`request::operate`).
    pub wire_operate: bool,
    /// Whether read-only batches (and read rows) under these policies can (`request::batch`).
    pub wire_batch: bool,
    /// Whether batches of put rows (and put rows) under these policies can (`request::batch`).
    pub wire_batch_put: bool,
}

/// A call's own limits; `None`: the family's default.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    pub(crate) total: Option<u32>,
    pub(crate) socket: Option<u32>,
    pub(crate) retries: Option<usize>,
    pub(crate) retry_writes: Option<bool>,
    /// Query pacing per node (0 = unlimited), foreground and background.
    pub(crate) records_per_second: u32,
    /// A query expected to return few records (the server answers it on one thread).
    pub(crate) short_query: bool,
}

/// What a command family's policy is for: reads take the replica and read modes, writes
/// retry only when `retry_writes` says so.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Read,
    Write,
}

impl Limits {
    fn apply(&self, base: &mut BasePolicy, family: &Family, d: &CallDefaults, role: Role) {
        base.total_timeout = self.total.unwrap_or(family.total_timeout);
        base.socket_timeout = self.socket.unwrap_or(family.socket_timeout);
        let retries = self.retries.unwrap_or(family.max_retries);
        base.max_retries = match role {
            Role::Write if !self.retry_writes.unwrap_or(d.retry_writes) => 0,
            _ => retries,
        };
        base.socket_timeout = attempt_ms(base);
        base.sleep_between_retries = family.retry_pause;
        base.use_compression = d.compress;
        if role == Role::Read {
            base.replica = d.replica;
            base.read_mode_ap = d.read_mode_ap;
            base.read_mode_sc = d.read_mode_sc;
        }
    }
}

/// A call's own write options; `None`: the client's default.
#[derive(Clone, Debug)]
pub(crate) struct WriteOptions {
    pub(crate) exists: RecordExistsAction,
    pub(crate) generation: Option<u32>,
    /// The write's generation must exceed the record's (else equal it).
    pub(crate) generation_gt: bool,
    pub(crate) expiration: Option<Expiration>,
    pub(crate) send_key: Option<bool>,
    pub(crate) durable_delete: Option<bool>,
    pub(crate) respond_all_ops: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            exists: RecordExistsAction::Update,
            generation: None,
            generation_gt: false,
            expiration: None,
            send_key: None,
            durable_delete: None,
            respond_all_ops: true,
        }
    }
}

impl WriteOptions {
    fn policy(&self, d: &CallDefaults) -> WritePolicy {
        WritePolicy {
            record_exists_action: self.exists,
            generation_policy: match (self.generation, self.generation_gt) {
                (None, _) => GenerationPolicy::None,
                (Some(_), false) => GenerationPolicy::ExpectGenEqual,
                (Some(_), true) => GenerationPolicy::ExpectGenGreater,
            },
            generation: self.generation.unwrap_or(0),
            expiration: self.expiration.unwrap_or(d.expiration),
            send_key: self.send_key.unwrap_or(d.send_key),
            durable_delete: self.durable_delete.unwrap_or(d.durable_delete),
            respond_per_each_op: self.respond_all_ops,
            ..WritePolicy::default()
        }
    }
}

impl Natives {
    fn build(
        limits: &Limits,
        d: &CallDefaults,
        options: &WriteOptions,
        filter: Option<&Expression>,
    ) -> Self {
        let mut write = options.policy(d);
        let mut udf = write.clone();
        limits.apply(&mut write.base_policy, &d.write, d, Role::Write);
        // an operate that only reads touches as a read does
        write.base_policy.read_touch_ttl = d.read_touch_ttl;
        write.records_per_second = limits.records_per_second;
        write.base_policy.filter_expression = filter.cloned();
        limits.apply(&mut udf.base_policy, &d.udf, d, Role::Write);
        udf.base_policy.filter_expression = filter.cloned();
        let mut read = ReadPolicy::default();
        limits.apply(&mut read.base_policy, &d.read, d, Role::Read);
        read.base_policy.read_touch_ttl = d.read_touch_ttl;
        read.base_policy.filter_expression = filter.cloned();
        let mut batch = BatchPolicy::default();
        limits.apply(&mut batch.base_policy, &d.batch, d, Role::Read);
        batch.base_policy.read_touch_ttl = d.read_touch_ttl;
        batch.base_policy.filter_expression = filter.cloned();
        let mut batch_write = BatchPolicy::write_default();
        limits.apply(&mut batch_write.base_policy, &d.batch, d, Role::Write);
        batch_write.base_policy.filter_expression = filter.cloned();
        let mut query = QueryPolicy::default();
        limits.apply(&mut query.base_policy, &d.query, d, Role::Read);
        query.base_policy.filter_expression = filter.cloned();
        query.records_per_second = limits.records_per_second;
        if limits.short_query {
            query.expected_duration = QueryDuration::Short;
        }
        let batch_read_row = BatchReadPolicy {
            filter_expression: filter.cloned(),
            read_touch_ttl: d.read_touch_ttl,
        };
        let batch_write_row = BatchWritePolicy {
            record_exists_action: write.record_exists_action,
            generation_policy: write.generation_policy,
            generation: write.generation,
            expiration: write.expiration,
            send_key: write.send_key,
            durable_delete: write.durable_delete,
            filter_expression: filter.cloned(),
            ..BatchWritePolicy::default()
        };
        let batch_delete_row = BatchDeletePolicy {
            generation_policy: write.generation_policy,
            generation: write.generation,
            send_key: write.send_key,
            durable_delete: write.durable_delete,
            filter_expression: filter.cloned(),
            ..BatchDeletePolicy::default()
        };
        let batch_udf_row = BatchUdfPolicy {
            expiration: write.expiration,
            send_key: write.send_key,
            durable_delete: write.durable_delete,
            filter_expression: filter.cloned(),
            ..BatchUdfPolicy::default()
        };
        Natives {
            wire_read: road::plain_read(&read),
            wire_write: road::plain_write(&write),
            wire_operate: road::operable(&write),
            wire_batch: road::plain(&batch, &batch_read_row),
            wire_batch_put: road::plain_put(&batch_write, &batch_write_row),
            read,
            write,
            udf,
            batch,
            batch_write,
            batch_read_row,
            batch_write_row,
            batch_delete_row,
            batch_udf_row,
            query,
        }
    }

    /// The policies of a call with no options of its own.
    pub fn defaults(d: &CallDefaults) -> Self {
        Natives::build(&Limits::default(), d, &WriteOptions::default(), None)
    }
}

/// Per-call options, immutable; the native policies are built for the first client defaults
/// they meet and kept for calls under the same defaults.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Policy {
    pub(crate) limits: Limits,
    pub(crate) write: WriteOptions,
    pub(crate) filter: Option<Expression>,
    pub(crate) built: Mutex<Option<(CallDefaults, Arc<Natives>)>>,
}

impl Policy {
    /// The native policies of this call under a client's defaults.
    pub fn natives(&self, d: &CallDefaults) -> Arc<Natives> {
        let mut built = self.built.lock();
        if let Some((for_defaults, natives)) = built.as_ref() {
            if for_defaults == d {
                return natives.clone();
            }
        }
        let natives = Arc::new(Natives::build(
            &self.limits,
            d,
            &self.write,
            self.filter.as_ref(),
        ));
        *built = Some((*d, natives.clone()));
        natives
    }
}

/// The built-in defaults (those of `af.Policy()` with nothing set).
pub const BUILT_IN: CallDefaults = CallDefaults {
    read: Family::new(1000, 0, 2),
    write: Family::new(1000, 0, 2),
    batch: Family::new(1000, 0, 2),
    // A stream lives as long as its consumer: like the official clients, no total deadline,
    // only a per-read socket timeout.
    query: Family::new(0, 30_000, 2),
    udf: Family::new(1000, 0, 2),
    info_timeout: 1000,
    retry_writes: false,
    send_key: false,
    expiration: Expiration::NamespaceDefault,
    durable_delete: false,
    compress: false,
    replica: Replica::Sequence,
    read_mode_ap: ReadModeAp::One,
    read_mode_sc: ReadModeSc::Session,
    bytes_keys: BytesKeys::Blob,
    read_touch_ttl: ReadTouchTtl::ServerDefault,
};

/// How long one attempt under `b` may wait for its answer, in ms (0: no limit): the socket
/// timeout (within the total), or without one an equal share of the total among the
/// attempts, so that a read under the `sequence` replica policy still reaches another copy of
/// its partition when a node does not answer.
pub fn attempt_ms(b: &BasePolicy) -> u32 {
    match (b.socket_timeout, b.total_timeout) {
        (socket, 0) => socket,
        (0, total) => {
            let attempts = u32::try_from(b.max_retries.saturating_add(1)).unwrap_or(u32::MAX);
            (total / attempts).max(1)
        }
        (socket, total) => socket.min(total),
    }
}
