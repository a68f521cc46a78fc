//! Scans and secondary-index queries read straight from the wire: our own requests and reply
//! parsing, with records kept as the server's bytes until the consumer converts them (to
//! Python objects or to Arrow). Plain gets and puts also go over our own connections
//! (`pool`, `single`): one `send` and usually one `recv` each.
//!
//! The crate's query path builds a `Record` (a map of owned bin names and `Value`s, a `Key`
//! with owned strings) per record and hands records through its own channel; for whole-set
//! reads that was most of the client's CPU. Here the crate still provides the cluster (its
//! nodes and their addresses, and info commands for the partition map); the scan itself runs
//! over a connection per node and round, leased from the worker runtime's pool.
//!
//! - `request`: the request message.
//! - `index`: an index query's condition as request fields.
//! - `message`: locating a reply message's header, key and bins.
//! - `particle`: bin bytes to `Value` (lists, maps and the rarer types).
//! - `chunk`: `WireChunk`, the records handed to the consumer.
//! - `route`: partition → master and replica nodes, from the nodes' `replicas` answers.
//! - `view`: the client's one table of those per namespace, shared by every runtime and path.
//! - `scan`: the rounds, per-node reads, retries and backpressure.
//! - `conn`: one connection: TCP, TLS and the login session.
//! - `pool`: the connections every wire call leases, per runtime, within one budget per node
//!   for the whole client; and where calls go.
//! - `info`: info requests over those connections (the partition table).
//! - `single`: single-record gets and puts (the plain cases; the crate serves the rest).
//! - `batch`: batch reads of plain rows, one request per node over those connections.
//!
//! An index query reads each record's bval (where it stands in the index) and resumes a
//! partition after (bval, digest), which the crate's path cannot: its records carry no bval.
//! Used with or without login and TLS; compression, strong-consistency read modes and filter
//! expressions the crate cannot hand over go to the crate's path (see [`plan`]).

pub mod batch;
pub mod chunk;
mod conn;
pub mod index;
mod info;
pub mod message;
pub mod particle;
pub mod pool;
mod request;
mod route;
pub mod scan;
pub mod single;
mod view;

use std::collections::BTreeMap;
use std::time::Duration;

use aerospike::policy::{QueryDuration, ReadModeAp, ReadModeSc, Replica};
use aerospike::QueryPolicy;
use base64::Engine;

use crate::redelivery::Mode;
use crate::token::Cursor;

pub use chunk::WireChunk;
pub use index::IndexQuery;
pub use pool::{Links, Pool, Reservation};
pub use request::Request;
pub use scan::Plan;

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
