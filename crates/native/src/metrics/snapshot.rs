//! A client's metrics read at one moment, as the plain Python values `Client.metrics()` returns.

use std::sync::atomic::Ordering;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::histogram::Read;
use super::{Kind, Metrics};

/// Latency bucket bounds reported, in seconds (the last bucket, `+Inf`, is the count).
const BOUNDS_S: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// One node's connections, as the wire path's budget counts them.
pub struct NodeRow {
    pub name: String,
    pub address: String,
    /// In the cluster now (a node that left keeps its counts).
    pub active: bool,
    pub open: usize,
    pub idle: usize,
    pub waiting: usize,
    pub traffic: Option<std::sync::Arc<super::NodeTraffic>>,
    /// Errors the crate's road counted in its own breaker window.
    pub crate_errors: usize,
}

/// The client's calls against its `max_in_flight` at one moment.
pub struct Load {
    pub limit: Option<usize>,
    /// Calls started and not answered yet (with or without a limit).
    pub in_flight: usize,
    /// The most calls that held a slot at once (with a limit).
    pub peak: Option<usize>,
    /// Calls waiting for a slot now, and those that had to wait since the client connected.
    pub waiting: usize,
    pub waited: u64,
    /// Calls that gave up waiting (`queue_timeout`), since the client connected.
    pub queue_timeouts: u64,
}

pub struct Snapshot<'a> {
    pub metrics: &'a Metrics,
    pub nodes: Vec<NodeRow>,
    pub load: Load,
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn latency<'py>(py: Python<'py>, r: &Read) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let count = r.count();
    let mean = r.sum_ns.checked_div(count).unwrap_or(0);
    d.set_item("mean", seconds(mean))?;
    d.set_item("p50", seconds(r.quantile(0.50)))?;
    d.set_item("p90", seconds(r.quantile(0.90)))?;
    d.set_item("p99", seconds(r.quantile(0.99)))?;
    d.set_item("max", seconds(r.max_ns))?;
    d.set_item("sum", seconds(r.sum_ns))?;
    let bounds: Vec<u64> = BOUNDS_S.iter().map(|s| (s * 1e9) as u64).collect();
    let buckets: Vec<(f64, u64)> = BOUNDS_S
        .iter()
        .copied()
        .zip(r.cumulative(&bounds))
        .chain([(f64::INFINITY, count)])
        .collect();
    d.set_item("buckets", buckets)?;
    Ok(d)
}

impl Snapshot<'_> {
    pub fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let out = PyDict::new(py);
        out.set_item("enabled", self.metrics.enabled)?;
        out.set_item("uptime", self.metrics.since.elapsed().as_secs_f64())?;
        out.set_item("commands", self.commands(py)?)?;
        out.set_item("nodes", self.nodes(py)?)?;
        let e = &self.metrics.events;
        let cluster = PyDict::new(py);
        for (name, n) in [
            ("tends", &e.tends),
            ("nodes_joined", &e.nodes_joined),
            ("nodes_left", &e.nodes_left),
            ("partition_map_changes", &e.partition_map_changes),
        ] {
            cluster.set_item(name, n.load(Ordering::Relaxed))?;
        }
        out.set_item("cluster", cluster)?;
        let calls = PyDict::new(py);
        calls.set_item("max_in_flight", self.load.limit)?;
        calls.set_item("in_flight", self.load.in_flight)?;
        calls.set_item("peak_in_flight", self.load.peak)?;
        calls.set_item("waiting", self.load.waiting)?;
        calls.set_item("waited", self.load.waited)?;
        calls.set_item("queue_timeouts", self.load.queue_timeouts)?;
        out.set_item("calls", calls)?;
        Ok(out.unbind())
    }

    fn commands<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = PyList::empty(py);
        let calls = self.metrics.calls.read();
        let mut namespaces: Vec<_> = calls.iter().collect();
        namespaces.sort_by(|a, b| a.0.cmp(b.0));
        for (ns, nodes) in namespaces {
            let mut nodes: Vec<_> = nodes.iter().collect();
            nodes.sort_by(|a, b| a.0.cmp(b.0));
            for (node, cells) in nodes {
                for (kind, cell) in Kind::ALL.iter().zip(cells.iter()) {
                    let count = cell.count.load(Ordering::Relaxed);
                    if count == 0 {
                        continue;
                    }
                    let row = PyDict::new(py);
                    row.set_item("namespace", ns)?;
                    row.set_item("node", node)?;
                    row.set_item("command", kind.name())?;
                    row.set_item("count", count)?;
                    row.set_item("retries", cell.retries.load(Ordering::Relaxed))?;
                    row.set_item("errors", cell.errors.load(Ordering::Relaxed))?;
                    row.set_item("timeouts", cell.timeouts.load(Ordering::Relaxed))?;
                    row.set_item("in_doubt", cell.in_doubt.load(Ordering::Relaxed))?;
                    let codes = PyDict::new(py);
                    for (code, n) in cell.codes.lock().iter() {
                        codes.set_item(code, n)?;
                    }
                    row.set_item("result_codes", codes)?;
                    row.set_item("latency", latency(py, &cell.latency.read())?)?;
                    rows.append(row)?;
                }
            }
        }
        Ok(rows)
    }

    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = PyList::empty(py);
        for n in &self.nodes {
            let row = PyDict::new(py);
            row.set_item("name", &n.name)?;
            row.set_item("address", &n.address)?;
            row.set_item("active", n.active)?;
            let conns = PyDict::new(py);
            conns.set_item("open", n.open)?;
            conns.set_item("in_use", n.open.saturating_sub(n.idle))?;
            conns.set_item("idle", n.idle)?;
            conns.set_item("waiting", n.waiting)?;
            let count = |f: fn(&super::NodeTraffic) -> &std::sync::atomic::AtomicU64| {
                n.traffic
                    .as_ref()
                    .map_or(0, |t| f(t).load(Ordering::Relaxed))
            };
            conns.set_item("opened", count(|t| &t.opened))?;
            conns.set_item("closed", count(|t| &t.closed))?;
            conns.set_item("open_failures", count(|t| &t.open_failures))?;
            row.set_item("connections", conns)?;
            row.set_item("bytes_sent", count(|t| &t.bytes_sent))?;
            row.set_item("bytes_received", count(|t| &t.bytes_received))?;
            row.set_item(
                "error_rate",
                count(|t| &t.error_rate) + n.crate_errors as u64,
            )?;
            row.set_item("breaker_refusals", count(|t| &t.breaker_refusals))?;
            rows.append(row)?;
        }
        Ok(rows)
    }
}
