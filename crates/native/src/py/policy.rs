//! `CallDefaults` (a client's defaults per command family) and `Policy` (a call's own
//! options), from which the crate's policies of a call are built.

use std::sync::Arc;

use aerospike::expressions::Expression;
use aerospike::policy::{BasePolicy, QueryDuration, ReadModeAp, ReadModeSc, Replica};
use aerospike::{
    BatchDeletePolicy, BatchPolicy, BatchReadPolicy, BatchUdfPolicy, BatchWritePolicy, Expiration,
    GenerationPolicy, QueryPolicy, ReadPolicy, RecordExistsAction, WritePolicy,
};
use parking_lot::Mutex;
use pyo3::prelude::*;

use crate::convert::bytes_keys::BytesKeys;
use crate::errors::invalid_argument;
use crate::expr::to_expression;

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
}

/// A client's defaults: its calls', and how it waits and counts.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub calls: CallDefaults,
    /// How long a blocking single-record call busy-polls for its reply, in µs (0 = never).
    pub spin_wait_us: u32,
    /// Whether calls are counted in the client's metrics.
    pub metrics: bool,
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
struct Limits {
    total: Option<u32>,
    socket: Option<u32>,
    retries: Option<usize>,
    retry_writes: Option<bool>,
    /// Query pacing per node (0 = unlimited), foreground and background.
    records_per_second: u32,
    /// A query expected to return few records (the server answers it on one thread).
    short_query: bool,
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
        base.socket_timeout = crate::request::retry::attempt_ms(base);
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
struct WriteOptions {
    exists: RecordExistsAction,
    generation: Option<u32>,
    expiration: Option<Expiration>,
    send_key: Option<bool>,
    durable_delete: Option<bool>,
    respond_all_ops: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            exists: RecordExistsAction::Update,
            generation: None,
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
            generation_policy: if self.generation.is_some() {
                GenerationPolicy::ExpectGenEqual
            } else {
                GenerationPolicy::None
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
        write.records_per_second = limits.records_per_second;
        write.base_policy.filter_expression = filter.cloned();
        limits.apply(&mut udf.base_policy, &d.udf, d, Role::Write);
        udf.base_policy.filter_expression = filter.cloned();
        let mut read = ReadPolicy::default();
        limits.apply(&mut read.base_policy, &d.read, d, Role::Read);
        read.base_policy.filter_expression = filter.cloned();
        let mut batch = BatchPolicy::default();
        limits.apply(&mut batch.base_policy, &d.batch, d, Role::Read);
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
            ..BatchReadPolicy::default()
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
            wire_read: crate::request::single::plain_read(&read),
            wire_write: crate::request::single::plain_write(&write),
            wire_operate: crate::request::operate::operable(&write),
            wire_batch: crate::request::batch::plain(&batch, &batch_read_row),
            wire_batch_put: crate::request::batch::plain_put(&batch_write, &batch_write_row),
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
    limits: Limits,
    write: WriteOptions,
    filter: Option<Expression>,
    built: Mutex<Option<(CallDefaults, Arc<Natives>)>>,
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
};

fn expiration(ttl: i64) -> PyResult<Expiration> {
    Ok(match ttl {
        0 => Expiration::NamespaceDefault,
        -1 => Expiration::Never,
        -2 => Expiration::DontUpdate,
        s if s > 0 => Expiration::Seconds(
            u32::try_from(s).map_err(|_| invalid_argument(format!("ttl {s} is too large")))?,
        ),
        s => {
            return Err(invalid_argument(format!(
                "ttl {s}: use seconds > 0, -1 (never expire), -2 (do not change) or 0 \
                 (the namespace's default)"
            )))
        }
    })
}

fn exists_action(exists: u8) -> PyResult<RecordExistsAction> {
    Ok(match exists {
        0 => RecordExistsAction::Update,
        1 => RecordExistsAction::UpdateOnly,
        2 => RecordExistsAction::Replace,
        3 => RecordExistsAction::ReplaceOnly,
        4 => RecordExistsAction::CreateOnly,
        _ => {
            return Err(invalid_argument(format!(
                "exists must be 0..4, got {exists}"
            )))
        }
    })
}

fn millis(name: &str, v: Option<i64>) -> PyResult<Option<u32>> {
    v.map(|ms| {
        u32::try_from(ms).map_err(|_| invalid_argument(format!("{name} must be 0..2^32 ms")))
    })
    .transpose()
}

fn family((total, socket, retries, pause): FamilyArg) -> Family {
    Family {
        total_timeout: total,
        socket_timeout: socket,
        max_retries: retries,
        retry_pause: pause,
    }
}

fn replica(name: &str) -> PyResult<Replica> {
    Ok(match name {
        "master" => Replica::Master,
        "master_proles" => Replica::MasterProles,
        "sequence" => Replica::Sequence,
        "prefer_rack" => Replica::PreferRack,
        "random" => Replica::Random,
        other => {
            return Err(invalid_argument(format!(
                "replica must be 'master', 'master_proles', 'sequence', 'prefer_rack' or \
                 'random', not {other:?}"
            )))
        }
    })
}

fn read_mode_ap(name: &str) -> PyResult<ReadModeAp> {
    Ok(match name {
        "one" => ReadModeAp::One,
        "all" => ReadModeAp::All,
        other => {
            return Err(invalid_argument(format!(
                "read_mode_ap must be 'one' or 'all', not {other:?}"
            )))
        }
    })
}

fn read_mode_sc(name: &str) -> PyResult<ReadModeSc> {
    Ok(match name {
        "session" => ReadModeSc::Session,
        "linearize" => ReadModeSc::Linearize,
        "allow_replica" => ReadModeSc::AllowReplica,
        "allow_unavailable" => ReadModeSc::AllowUnavailable,
        other => {
            return Err(invalid_argument(format!(
                "read_mode_sc must be 'session', 'linearize', 'allow_replica' or \
                 'allow_unavailable', not {other:?}"
            )))
        }
    })
}

type FamilyArg = (u32, u32, usize, u32);

#[pymethods]
impl CallDefaults {
    /// Every field given: per family `(total ms, socket ms, retries, pause ms)`.
    #[new]
    #[pyo3(signature = (*, read, write, batch, query, udf, info_timeout_ms, retry_writes,
        send_key, ttl, durable_delete, compress, replica, read_mode_ap, read_mode_sc,
        bytes_keys = "blob"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        read: FamilyArg,
        write: FamilyArg,
        batch: FamilyArg,
        query: FamilyArg,
        udf: FamilyArg,
        info_timeout_ms: u32,
        retry_writes: bool,
        send_key: bool,
        ttl: i64,
        durable_delete: bool,
        compress: bool,
        replica: &str,
        read_mode_ap: &str,
        read_mode_sc: &str,
        bytes_keys: &str,
    ) -> PyResult<Self> {
        Ok(CallDefaults {
            read: family(read),
            write: family(write),
            batch: family(batch),
            query: family(query),
            udf: family(udf),
            info_timeout: info_timeout_ms,
            retry_writes,
            send_key,
            expiration: expiration(ttl)?,
            durable_delete,
            compress,
            replica: self::replica(replica)?,
            read_mode_ap: self::read_mode_ap(read_mode_ap)?,
            read_mode_sc: self::read_mode_sc(read_mode_sc)?,
            bytes_keys: BytesKeys::parse(bytes_keys)?,
        })
    }

    fn __eq__(&self, other: &Self) -> bool {
        self == other
    }

    fn __repr__(&self) -> String {
        format!("{self:?}")
    }
}

#[pymethods]
impl Policy {
    #[new]
    #[pyo3(signature = (*, ttl = None, generation = None, exists = 0, send_key = None,
        durable_delete = None, filter = None, total_timeout_ms = None, socket_timeout_ms = None,
        max_retries = None, retry_writes = None, respond_all_ops = true,
        records_per_second = 0, short_query = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ttl: Option<i64>,
        generation: Option<u32>,
        exists: u8,
        send_key: Option<bool>,
        durable_delete: Option<bool>,
        filter: Option<&Bound<'_, PyAny>>,
        total_timeout_ms: Option<i64>,
        socket_timeout_ms: Option<i64>,
        max_retries: Option<i64>,
        retry_writes: Option<bool>,
        respond_all_ops: bool,
        records_per_second: u32,
        short_query: bool,
    ) -> PyResult<Self> {
        let retries = max_retries
            .map(|r| usize::try_from(r).map_err(|_| invalid_argument("max_retries must be >= 0")))
            .transpose()?;
        let limits = Limits {
            total: millis("total_timeout_ms", total_timeout_ms)?,
            socket: millis("socket_timeout_ms", socket_timeout_ms)?,
            retries,
            retry_writes,
            records_per_second,
            short_query,
        };
        let write = WriteOptions {
            exists: exists_action(exists)?,
            generation,
            expiration: ttl.map(expiration).transpose()?,
            send_key,
            durable_delete,
            respond_all_ops,
        };
        Ok(Policy {
            limits,
            write,
            filter: filter.map(to_expression).transpose()?,
            built: Mutex::new(None),
        })
    }

    fn __repr__(&self) -> String {
        let w = &self.write;
        let exists = match w.exists {
            RecordExistsAction::Update => "update",
            RecordExistsAction::UpdateOnly => "update_only",
            RecordExistsAction::Replace => "replace",
            RecordExistsAction::ReplaceOnly => "replace_only",
            RecordExistsAction::CreateOnly => "create_only",
        };
        let generation = w
            .generation
            .map_or_else(|| "None".to_owned(), |g| g.to_string());
        let ttl = match w.expiration {
            None => "None".to_owned(),
            Some(Expiration::NamespaceDefault) => "0".to_owned(),
            Some(Expiration::Never) => "-1".to_owned(),
            Some(Expiration::DontUpdate) => "-2".to_owned(),
            Some(Expiration::Seconds(s)) => s.to_string(),
        };
        let filter = if self.filter.is_some() {
            "True"
        } else {
            "False"
        };
        format!("Policy(exists='{exists}', generation={generation}, ttl={ttl}, filter={filter})")
    }
}
