//! What a call sends and the one rule for what follows a failed attempt.
//!
//! Our own requests: single-record gets, puts, exists and deletes (`single`), batch reads and
//! puts of plain rows (`batch`, one request per node), scans and index queries (`scan`,
//! `scan_request`, `index`, with records kept as the server's bytes until the consumer
//! converts them), background queries (`background`, sent to every node). Every other
//! operation is a crate call (`calls`, `crate_calls`); `retry` decides, for both, whether a
//! missed attempt is tried again, handed to the crate with what is left of its budget, or
//! ends the call with which error, and whether a write is in doubt.
//!
//! - `calls`: one `async fn` per operation, each choosing its path.
//! - `batch_wire`: a batch call's rows over our path, the rest through the crate's batch.
//! - `query`: the `QueryStream` a scan or query is read through; `redelivery` drops records
//!   delivered twice; `token` is the resume token.
//!
//! An index query reads each record's bval (where it stands in the index) and resumes a
//! partition after (bval, digest), which the crate's path cannot: its records carry no bval.
//! Used with or without login and TLS; compression, strong-consistency read modes and filter
//! expressions the crate cannot hand over go to the crate's path (see [`plan`]).

pub mod arrow_batch;
pub mod arrow_stream;
pub mod background;
pub mod batch;
pub mod batch_rows;
pub mod batch_wire;
pub mod calls;
pub mod cluster_calls;
pub mod index;
pub mod operate;
pub mod put_arrow;
pub mod query;
pub mod redelivery;
pub mod retry;
pub mod scan;
pub mod scan_request;
pub mod single;

use std::collections::BTreeMap;
use std::time::Duration;

use aerospike::policy::{QueryDuration, ReadModeAp, ReadModeSc, Replica};
use aerospike::QueryPolicy;
use base64::Engine;

use crate::convert::token::Cursor;
use crate::request::redelivery::Mode;

pub use index::IndexQuery;
pub use scan::Plan;
pub use scan_request::Request;

/// Set to read every scan through the crate's query path instead (for comparisons).
const CRATE_SCANS_ENV: &str = "AEROSPIKE_FLUENT_CRATE_SCANS";

/// What a scan or query reads, as the query's arguments give it.
pub struct Target<'a> {
    pub namespace: &'a str,
    pub set_name: &'a str,
    pub bins: Option<&'a [String]>,
    /// The secondary-index condition (none: a scan).
    pub index: Option<&'a IndexQuery>,
    pub begin: usize,
    pub count: usize,
    pub resume: &'a BTreeMap<u16, Cursor>,
    pub max_records: u64,
    pub chunk_size: usize,
}

/// The plan for reading `t` from the wire, or `None` when the crate's path must serve it
/// (compression, strong-consistency read modes, a replica other than the master, or a filter expression it cannot hand over).
pub fn plan(policy: &QueryPolicy, t: &Target<'_>) -> Option<Plan> {
    let base = &policy.base_policy;
    let plain = !base.use_compression
        && matches!(base.read_mode_sc, ReadModeSc::Session)
        && matches!(base.replica, Replica::Master | Replica::Sequence)
        && std::env::var_os(CRATE_SCANS_ENV).is_none();
    if !plain {
        return None;
    }
    let filter = match &base.filter_expression {
        None => None,
        Some(exp) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(exp.base64().ok()?)
                .ok()?,
        ),
    };
    let bins = if policy.include_bin_data {
        t.bins.map(<[String]>::to_vec)
    } else {
        Some(Vec::new())
    };
    let ms = |v: u32| (v > 0).then(|| Duration::from_millis(u64::from(v)));
    Some(Plan {
        request: Request {
            namespace: t.namespace.to_owned(),
            set_name: t.set_name.to_owned(),
            bins,
            index: t.index.cloned(),
            filter,
            socket_timeout_ms: base.socket_timeout,
            total_timeout_ms: base.total_timeout,
            records_per_second: policy.records_per_second,
            short: matches!(policy.expected_duration, QueryDuration::Short),
            relax_ap: matches!(policy.expected_duration, QueryDuration::LongRelaxAp),
            read_all_replicas: matches!(base.read_mode_ap, ReadModeAp::All),
        },
        begin: t.begin,
        count: t.count,
        resume: t.resume.clone(),
        repeats: match t.index {
            None => Mode::Scan,
            Some(i) if i.repeats => Mode::Any,
            Some(_) => Mode::Index,
        },
        max_records: t.max_records,
        chunk_size: t.chunk_size,
        max_retries: base.max_retries,
        sleep_between_retries: Duration::from_millis(u64::from(base.sleep_between_retries).max(10)),
        socket_timeout: ms(base.socket_timeout),
        total_timeout: ms(base.total_timeout),
    })
}
