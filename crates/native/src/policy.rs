//! `Policy` (per-call options, native policies precomputed) and `ClientConfig`.

use std::sync::Arc;

use aerospike::expressions::Expression;
use aerospike::policy::BasePolicy;
use aerospike::policy::QueryDuration;
use aerospike::{
    BatchDeletePolicy, BatchPolicy, BatchReadPolicy, BatchUdfPolicy, BatchWritePolicy, Expiration,
    GenerationPolicy, QueryPolicy, ReadPolicy, RecordExistsAction, WritePolicy,
};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::expr::to_expression;

/// Client-wide defaults for timeouts, retries and waiting (from `ClientConfig`).
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    /// Total timeout in ms (0 = none).
    pub total_timeout: u32,
    /// Socket idle timeout in ms (0 = none).
    pub socket_timeout: u32,
    /// Retries for reads (writes retry only when the policy says so).
    pub max_retries: usize,
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
    /// Single-record writes, operate, UDF apply.
    pub write: WritePolicy,
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
    /// Whether gets and puts under these policies can take the wire path (`wire::single`).
    pub wire_read: bool,
    pub wire_write: bool,
    /// Whether read-only batches (and read rows) under these policies can (`wire::batch`).
    pub wire_batch: bool,
    /// Whether batches of put rows (and put rows) under these policies can (`wire::batch`).
    pub wire_batch_put: bool,
}

/// Default per-read socket timeout of scans and queries.
const QUERY_SOCKET_TIMEOUT_MS: u32 = 30_000;

#[derive(Clone, Copy, Debug, Default)]
struct Limits {
    total: Option<u32>,
    socket: Option<u32>,
    retries: Option<usize>,
    retry_writes: bool,
    /// Query pacing per node (0 = unlimited), foreground and background.
    records_per_second: u32,
    /// A query expected to return few records (the server answers it on one thread).
    short_query: bool,
}

impl Limits {
    fn apply(&self, base: &mut BasePolicy, d: &Defaults, write: bool) {
        base.total_timeout = self.total.unwrap_or(d.total_timeout);
        base.socket_timeout = self.socket.unwrap_or(d.socket_timeout);
        base.max_retries = if write && !self.retry_writes {
            0
        } else {
            self.retries.unwrap_or(d.max_retries)
        };
    }
}

impl Natives {
    fn build(
        limits: &Limits,
        d: &Defaults,
        write: WritePolicy,
        filter: Option<&Expression>,
    ) -> Self {
        let mut write = write;
        limits.apply(&mut write.base_policy, d, true);
        write.records_per_second = limits.records_per_second;
        write.base_policy.filter_expression = filter.cloned();
        let mut read = ReadPolicy::default();
        limits.apply(&mut read.base_policy, d, false);
        read.base_policy.filter_expression = filter.cloned();
        let mut batch = BatchPolicy::default();
        limits.apply(&mut batch.base_policy, d, false);
        batch.base_policy.filter_expression = filter.cloned();
        let mut batch_write = BatchPolicy::write_default();
        limits.apply(&mut batch_write.base_policy, d, true);
        batch_write.base_policy.filter_expression = filter.cloned();
        let mut query = QueryPolicy::default();
        limits.apply(&mut query.base_policy, d, false);
        // A stream lives as long as its consumer: like the official clients, no total deadline
        // by default, only a per-read socket timeout.
        query.base_policy.total_timeout = limits.total.unwrap_or(0);
        query.base_policy.socket_timeout = limits.socket.unwrap_or(QUERY_SOCKET_TIMEOUT_MS);
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
            wire_read: crate::wire::single::plain_read(&read),
            wire_write: crate::wire::single::plain_write(&write),
            wire_batch: crate::wire::batch::plain(&batch, &batch_read_row),
            wire_batch_put: crate::wire::batch::plain_put(&batch_write, &batch_write_row),
            read,
            write,
            batch,
            batch_write,
            batch_read_row,
            batch_write_row,
            batch_delete_row,
            batch_udf_row,
            query,
        }
    }

    /// The client's default policies.
    pub fn defaults(d: &Defaults) -> Self {
        Natives::build(&Limits::default(), d, WritePolicy::default(), None)
    }
}

/// Per-call options, immutable; the native policies are precomputed.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Policy {
    limits: Limits,
    write: WritePolicy,
    filter: Option<Expression>,
    /// Precomputed natives for the default client limits (None-timeouts resolved per client).
    cached: Arc<Natives>,
    cached_for: Defaults,
}

impl Policy {
    /// The native policies under a client's defaults (precomputed when they match).
    pub fn natives(&self, d: &Defaults) -> Arc<Natives> {
        let same = self.cached_for.total_timeout == d.total_timeout
            && self.cached_for.socket_timeout == d.socket_timeout
            && self.cached_for.max_retries == d.max_retries;
        let explicit = self.limits.total.is_some()
            && self.limits.socket.is_some()
            && self.limits.retries.is_some();
        if same || explicit {
            self.cached.clone()
        } else {
            Arc::new(Natives::build(
                &self.limits,
                d,
                self.write.clone(),
                self.filter.as_ref(),
            ))
        }
    }
}

/// Default limits assumed when precomputing (the `ClientConfig` defaults).
pub const CONFIG_DEFAULTS: Defaults = Defaults {
    total_timeout: 1000,
    socket_timeout: 0,
    max_retries: 2,
    spin_wait_us: 200,
    metrics: true,
};

fn expiration(ttl: Option<i64>) -> PyResult<Expiration> {
    Ok(match ttl {
        None | Some(0) => Expiration::NamespaceDefault,
        Some(-1) => Expiration::Never,
        Some(-2) => Expiration::DontUpdate,
        Some(s) if s > 0 => Expiration::Seconds(
            u32::try_from(s).map_err(|_| invalid_argument(format!("ttl {s} is too large")))?,
        ),
        Some(s) => {
            return Err(invalid_argument(format!(
                "ttl {s}: use seconds > 0, -1 (never expire), -2 (do not change) or 0/None"
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

#[pymethods]
impl Policy {
    #[new]
    #[pyo3(signature = (*, ttl = None, generation = None, exists = 0, send_key = false,
        durable_delete = false, filter = None, total_timeout_ms = None, socket_timeout_ms = None,
        max_retries = None, retry_writes = false, respond_all_ops = true,
        records_per_second = 0, short_query = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ttl: Option<i64>,
        generation: Option<u32>,
        exists: u8,
        send_key: bool,
        durable_delete: bool,
        filter: Option<&Bound<'_, PyAny>>,
        total_timeout_ms: Option<i64>,
        socket_timeout_ms: Option<i64>,
        max_retries: Option<i64>,
        retry_writes: bool,
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
        let filter = filter.map(to_expression).transpose()?;
        let write = WritePolicy {
            record_exists_action: exists_action(exists)?,
            generation_policy: if generation.is_some() {
                GenerationPolicy::ExpectGenEqual
            } else {
                GenerationPolicy::None
            },
            generation: generation.unwrap_or(0),
            expiration: expiration(ttl)?,
            send_key,
            durable_delete,
            respond_per_each_op: respond_all_ops,
            ..WritePolicy::default()
        };
        let cached = Arc::new(Natives::build(
            &limits,
            &CONFIG_DEFAULTS,
            write.clone(),
            filter.as_ref(),
        ));
        Ok(Policy {
            limits,
            write,
            filter,
            cached,
            cached_for: CONFIG_DEFAULTS,
        })
    }

    fn __repr__(&self) -> String {
        let exists = match self.write.record_exists_action {
            RecordExistsAction::Update => "update",
            RecordExistsAction::UpdateOnly => "update_only",
            RecordExistsAction::Replace => "replace",
            RecordExistsAction::ReplaceOnly => "replace_only",
            RecordExistsAction::CreateOnly => "create_only",
        };
        let generation = match self.write.generation_policy {
            GenerationPolicy::None => "None".to_owned(),
            _ => self.write.generation.to_string(),
        };
        let ttl = match self.write.expiration {
            Expiration::NamespaceDefault => "None".to_owned(),
            Expiration::Never => "-1".to_owned(),
            Expiration::DontUpdate => "-2".to_owned(),
            Expiration::Seconds(s) => s.to_string(),
        };
        let filter = if self.filter.is_some() {
            "True"
        } else {
            "False"
        };
        format!("Policy(exists='{exists}', generation={generation}, ttl={ttl}, filter={filter})")
    }
}
