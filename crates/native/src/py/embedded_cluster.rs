//! `EmbeddedCluster`: several in-memory server nodes in this process, from the `server` crate.

use std::collections::HashMap;

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use server::{Cluster, ClusterConfig, ClusterNode, NodeStatus};

use crate::errors::ClientError;
use crate::py::embedded::server_config;

/// An in-memory cluster of Aerospike-compatible nodes on their own threads.
#[pyclass(frozen, weakref, module = "aerospike_fluent._native")]
pub struct EmbeddedCluster {
    cluster: Cluster,
    host: String,
}

fn io_error(what: &str) -> impl FnOnce(std::io::Error) -> PyErr + '_ {
    move |e| ClientError::new_err(format!("cannot {what}: {e}"))
}

impl EmbeddedCluster {
    fn node(&self, slot: usize) -> PyResult<std::sync::Arc<ClusterNode>> {
        self.cluster
            .server(slot)
            .ok_or_else(|| PyIndexError::new_err(format!("no node {slot}")))
    }
}

#[pymethods]
impl EmbeddedCluster {
    /// Start `nodes` nodes (consecutive ports from `port`; 0 = free ports) keeping
    /// `replication_factor` copies of every partition.
    #[new]
    #[pyo3(
        signature = (
            nodes = 3,
            replication_factor = 2,
            host = "127.0.0.1".to_owned(),
            port = 0,
            namespaces = vec!["test".to_owned(), "bar".to_owned()],
            *,
            tls_cert_file = None,
            tls_key_file = None,
            users = None,
            edition = "community",
            racks = 0,
            strong_consistency = Vec::new(),
            cluster_name = None,
        ),
        text_signature = "(nodes=3, replication_factor=2, host='127.0.0.1', port=0, \
            namespaces=('test', 'bar'), *, tls_cert_file=None, tls_key_file=None, users=None, \
            edition='community', racks=0, strong_consistency=(), cluster_name=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        nodes: usize,
        replication_factor: usize,
        host: String,
        port: u16,
        namespaces: Vec<String>,
        tls_cert_file: Option<String>,
        tls_key_file: Option<String>,
        users: Option<HashMap<String, String>>,
        edition: &str,
        racks: usize,
        strong_consistency: Vec<String>,
        cluster_name: Option<String>,
    ) -> PyResult<Self> {
        if racks > nodes {
            return Err(PyValueError::new_err(format!(
                "racks must be within 0..{nodes} (the node count), not {racks}"
            )));
        }
        if !(1..=32).contains(&nodes) {
            return Err(PyValueError::new_err(format!(
                "nodes must be within 1..32, not {nodes}"
            )));
        }
        if !(1..=nodes).contains(&replication_factor) {
            return Err(PyValueError::new_err(format!(
                "replication_factor must be within 1..{nodes} (the node count), not \
                 {replication_factor}"
            )));
        }
        let config = ClusterConfig {
            server: server_config(
                host.clone(),
                port,
                namespaces,
                tls_cert_file,
                tls_key_file,
                users,
                edition,
                strong_consistency,
                cluster_name,
            )?,
            nodes,
            replication_factor,
            racks,
        };
        let cluster = py
            .detach(|| Cluster::start(config))
            .map_err(io_error("start the embedded cluster"))?;
        Ok(EmbeddedCluster { cluster, host })
    }

    /// Listening host of every node.
    #[getter]
    fn host(&self) -> &str {
        &self.host
    }

    /// Node slots ever started, removed ones included.
    #[getter]
    fn size(&self) -> usize {
        self.cluster.len()
    }

    /// Rack id of node `slot` (0: none).
    fn rack_id(&self, slot: usize) -> PyResult<u32> {
        self.cluster
            .rack_id(slot)
            .ok_or_else(|| PyValueError::new_err(format!("no node {slot}")))
    }

    /// Port of node `slot`.
    fn port(&self, slot: usize) -> PyResult<u16> {
        Ok(self.node(slot)?.addr().port())
    }

    /// Node name of node `slot` (as the `node` info command gives it).
    fn node_name(&self, slot: usize) -> PyResult<String> {
        self.cluster
            .node_name(slot)
            .ok_or_else(|| PyIndexError::new_err(format!("no node {slot}")))
    }

    /// `up`, `paused`, `isolated`, `down` or `removed`.
    fn status(&self, slot: usize) -> PyResult<&'static str> {
        let status = self
            .cluster
            .status(slot)
            .ok_or_else(|| PyIndexError::new_err(format!("no node {slot}")))?;
        Ok(match status {
            NodeStatus::Up => "up",
            NodeStatus::Paused => "paused",
            NodeStatus::Isolated => "isolated",
            NodeStatus::Down => "down",
            NodeStatus::Removed => "removed",
        })
    }

    /// Partition generation of node `slot`.
    fn generation(&self, slot: usize) -> PyResult<u64> {
        self.cluster
            .generation(slot)
            .ok_or_else(|| PyIndexError::new_err(format!("no node {slot}")))
    }

    /// Kill node `slot`; with `keep_data` its records survive for a restart.
    #[pyo3(signature = (slot, keep_data = false))]
    fn kill(&self, py: Python<'_>, slot: usize, keep_data: bool) -> PyResult<()> {
        self.node(slot)?;
        py.detach(|| self.cluster.kill(slot, keep_data))
            .map_err(io_error("kill the node"))
    }

    /// Start a killed node again on its port.
    fn restart(&self, py: Python<'_>, slot: usize) -> PyResult<()> {
        self.node(slot)?;
        py.detach(|| self.cluster.restart(slot))
            .map_err(io_error("restart the node"))
    }

    /// Pause (answer nothing) or resume node `slot`.
    fn pause(&self, slot: usize, paused: bool) -> PyResult<()> {
        self.cluster
            .pause(slot, paused)
            .map_err(|e| PyIndexError::new_err(e.to_string()))
    }

    /// Cut node `slot` off from the others, or heal the split.
    fn isolate(&self, py: Python<'_>, slot: usize, isolated: bool) -> PyResult<()> {
        self.node(slot)?;
        py.detach(|| self.cluster.isolate(slot, isolated))
            .map_err(io_error("isolate the node"))
    }

    /// Start a new node on a free port; returns its slot.
    fn add_node(&self, py: Python<'_>) -> PyResult<usize> {
        py.detach(|| self.cluster.add_node())
            .map_err(io_error("add a node"))
    }

    /// Remove node `slot` gracefully (its partitions move to the others first).
    fn remove_node(&self, py: Python<'_>, slot: usize) -> PyResult<()> {
        self.node(slot)?;
        py.detach(|| self.cluster.remove_node(slot))
            .map_err(io_error("remove the node"))
    }

    /// Ports of every node ever started.
    #[getter]
    fn ports(&self) -> Vec<u16> {
        (0..self.cluster.len())
            .filter_map(|s| self.cluster.addr(s))
            .map(|a| a.port())
            .collect()
    }

    /// In a forked child (after closing the inherited sockets): the nodes run only in the
    /// parent; this copy never joins the parent's threads.
    fn _forget_after_fork(&self) {
        self.cluster.forget_after_fork();
    }

    /// Stop every node; idempotent.
    fn stop(&self, py: Python<'_>) {
        py.detach(|| self.cluster.stop());
    }

    /// Request and connection counters of node `slot`.
    fn stats<'py>(&self, py: Python<'py>, slot: usize) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.node(slot)?.stats() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Zero the request counters of node `slot`.
    fn reset_stats(&self, slot: usize) -> PyResult<()> {
        self.node(slot)?.reset_stats();
        Ok(())
    }

    /// Delay the next `count` replies of node `slot` (all while None) by `millis`.
    #[pyo3(signature = (slot, millis, count = None))]
    fn fault_delay(&self, slot: usize, millis: u64, count: Option<u64>) -> PyResult<()> {
        self.node(slot)?.faults().delay(millis, count);
        Ok(())
    }

    /// Answer the next `count` record requests of node `slot` with `result_code`.
    fn fault_fail(&self, slot: usize, result_code: u8, count: u64) -> PyResult<()> {
        self.node(slot)?.faults().fail(result_code, count);
        Ok(())
    }

    /// Remove every fault of node `slot` (a pause included).
    fn clear_faults(&self, slot: usize) -> PyResult<()> {
        self.node(slot)?.faults().clear();
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<EmbeddedCluster {} nodes on {}>",
            self.cluster.len(),
            self.host
        )
    }
}
