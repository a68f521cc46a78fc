//! `EmbeddedServer`: the in-memory Aerospike-compatible server from the `server` crate.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use server::{Edition, Server, ServerConfig};

use crate::errors::ClientError;

/// The settings of one node: TLS needs both files; users sorted by name.
#[allow(clippy::too_many_arguments)]
pub(crate) fn server_config(
    host: String,
    port: u16,
    namespaces: Vec<String>,
    tls_cert_file: Option<String>,
    tls_key_file: Option<String>,
    users: Option<HashMap<String, String>>,
    edition: &str,
    strong_consistency: Vec<String>,
    cluster_name: Option<String>,
) -> PyResult<ServerConfig> {
    let edition = match edition {
        "community" => Edition::Community,
        "enterprise" => Edition::Enterprise,
        other => {
            return Err(PyValueError::new_err(format!(
                "edition must be 'community' or 'enterprise', not {other:?}"
            )))
        }
    };
    if tls_cert_file.is_some() != tls_key_file.is_some() {
        return Err(PyValueError::new_err(
            "tls_cert_file and tls_key_file go together",
        ));
    }
    if let Some(name) = cluster_name.as_deref() {
        if !server::cluster_name_is_valid(name) {
            return Err(PyValueError::new_err(format!(
                "cluster_name must be 1 to 63 bytes without ';' or whitespace, not {name:?}"
            )));
        }
    }
    let mut users: Vec<(String, String)> = users.unwrap_or_default().into_iter().collect();
    users.sort();
    Ok(ServerConfig {
        host,
        port,
        namespaces,
        tls_cert_file,
        tls_key_file,
        users,
        edition,
        rack_id: 0,
        strong_consistency,
        cluster_name,
    })
}

/// An in-memory Aerospike-compatible server on its own threads.
#[pyclass(frozen, weakref, module = "aerospike_fluent._native")]
pub struct EmbeddedServer {
    /// Always set; taken only when dropped.
    server: Option<Server>,
    /// The fork generation it was started in: in a forked child its threads do not exist.
    generation: u64,
    host: String,
    tls: bool,
    user_count: usize,
}

impl EmbeddedServer {
    fn server(&self) -> &Server {
        self.server.as_ref().expect("set until dropped")
    }

    /// Whether this is a forked child's copy of a server started in the parent.
    fn inherited(&self) -> bool {
        self.generation != crate::exec::runtime::generation()
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            if self.inherited() {
                // Stopping would join threads that exist only in the parent.
                std::mem::forget(server);
            }
        }
    }
}

#[pymethods]
impl EmbeddedServer {
    /// Start it (port 0 = a free port); TLS when both PEM files are given; with `users`
    /// (name -> password), data commands need a login.
    #[new]
    #[pyo3(
        signature = (
            host = "127.0.0.1".to_owned(),
            port = 0,
            namespaces = vec!["test".to_owned(), "bar".to_owned()],
            *,
            tls_cert_file = None,
            tls_key_file = None,
            users = None,
            edition = "community",
            strong_consistency = Vec::new(),
            cluster_name = None,
        ),
        text_signature = "(host='127.0.0.1', port=0, namespaces=('test', 'bar'), *, \
            tls_cert_file=None, tls_key_file=None, users=None, edition='community', \
            strong_consistency=(), cluster_name=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        host: String,
        port: u16,
        namespaces: Vec<String>,
        tls_cert_file: Option<String>,
        tls_key_file: Option<String>,
        users: Option<HashMap<String, String>>,
        edition: &str,
        strong_consistency: Vec<String>,
        cluster_name: Option<String>,
    ) -> PyResult<Self> {
        let tls = tls_cert_file.is_some();
        let cfg = server_config(
            host.clone(),
            port,
            namespaces,
            tls_cert_file,
            tls_key_file,
            users,
            edition,
            strong_consistency,
            cluster_name,
        )?;
        let user_count = cfg.users.len();
        let server = py
            .detach(|| Server::start(cfg))
            .map_err(|e| ClientError::new_err(format!("cannot start the embedded server: {e}")))?;
        Ok(EmbeddedServer {
            server: Some(server),
            generation: crate::exec::runtime::generation(),
            host,
            tls,
            user_count,
        })
    }

    /// In a forked child (after closing the inherited sockets): the server runs only in the
    /// parent; this copy reports itself stopped and never joins the parent's threads.
    fn _forget_after_fork(&self) {
        self.server().forget_after_fork();
    }

    /// Whether connections use TLS.
    #[getter]
    fn tls(&self) -> bool {
        self.tls
    }

    /// Whether data commands need a login.
    #[getter]
    fn security(&self) -> bool {
        self.user_count > 0
    }

    /// Listening host.
    #[getter]
    fn host(&self) -> &str {
        &self.host
    }

    /// Listening port.
    #[getter]
    fn port(&self) -> u16 {
        self.server().addr().port()
    }

    /// Whether it accepts connections.
    #[getter]
    fn running(&self) -> bool {
        !self.inherited() && self.server().is_running()
    }

    /// Stop listening and close every connection; idempotent.
    fn stop(&self, py: Python<'_>) {
        if self.inherited() {
            return self.server().forget_after_fork();
        }
        py.detach(|| self.server().stop());
    }

    /// Stop and start again on the same port, keeping the data.
    fn restart(&self, py: Python<'_>) -> PyResult<()> {
        if self.inherited() {
            return Err(ClientError::new_err(
                "this server was started before fork() and runs in the parent; \
                 start a new one in the child",
            ));
        }
        py.detach(|| self.server().restart())
            .map_err(|e| ClientError::new_err(format!("cannot restart the embedded server: {e}")))
    }

    /// Request and connection counters.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.server().stats() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Zero the request counters.
    fn reset_stats(&self) {
        self.server().reset_stats();
    }

    /// Delay the next `count` replies (all while None) by `millis`.
    #[pyo3(signature = (millis, count = None))]
    fn fault_delay(&self, millis: u64, count: Option<u64>) {
        self.server().faults().delay(millis, count);
    }

    /// Drop the connection of the next request once `after` more requests have been served.
    fn fault_drop(&self, after: u64) {
        self.server().faults().drop_after(after);
    }

    /// Answer the next `count` record requests with `result_code`.
    fn fault_fail(&self, result_code: u8, count: u64) {
        self.server().faults().fail(result_code, count);
    }

    /// Stop or resume accepting connections.
    fn fault_pause_accept(&self, paused: bool) {
        self.server().faults().pause_accept(paused);
    }

    /// Remove every fault.
    fn clear_faults(&self) {
        self.server().faults().clear();
    }

    fn __repr__(&self) -> String {
        format!(
            "<EmbeddedServer {}:{} running={} tls={} users={}>",
            self.host,
            self.port(),
            self.running(),
            self.tls,
            self.user_count
        )
    }
}
