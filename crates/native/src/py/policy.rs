//! The Python constructors and representations of `CallDefaults` and `Policy`.

use pyo3::prelude::*;

use aerospike::policy::{ReadModeAp, ReadModeSc, ReadTouchTtl, Replica};
use aerospike::{Expiration, RecordExistsAction};
use parking_lot::Mutex;

use crate::convert::bytes_keys::BytesKeys;
use crate::errors::invalid_argument;
use crate::expr::to_expression;
use crate::policy::{CallDefaults, Family, Limits, Policy, WriteOptions};

#[pymethods]
impl CallDefaults {
    /// Every field given: per family `(total ms, socket ms, retries, pause ms)`.
    #[new]
    #[pyo3(signature = (*, read, write, batch, query, udf, info_timeout_ms, retry_writes,
        send_key, ttl, durable_delete, compress, replica, read_mode_ap, read_mode_sc,
        bytes_keys = "blob", read_touch_ttl_percent = 0))]
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
        read_touch_ttl_percent: i32,
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
            read_touch_ttl: read_touch_ttl(read_touch_ttl_percent)?,
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
        records_per_second = 0, short_query = false, generation_gt = false))]
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
        generation_gt: bool,
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
            generation_gt,
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
        let generation = match (w.generation, w.generation_gt) {
            (None, _) => "None".to_owned(),
            (Some(g), false) => g.to_string(),
            (Some(g), true) => format!("GenerationBelow({g})"),
        };
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

fn read_touch_ttl(percent: i32) -> PyResult<ReadTouchTtl> {
    Ok(match percent {
        0 => ReadTouchTtl::ServerDefault,
        -1 => ReadTouchTtl::DontReset,
        p @ 1..=100 => ReadTouchTtl::Percent(p as u8),
        p => {
            return Err(invalid_argument(format!(
                "read_touch_ttl_percent must be 1..100, 0 (the namespace's) or -1 (never), \
                 not {p}"
            )))
        }
    })
}

type FamilyArg = (u32, u32, usize, u32);
