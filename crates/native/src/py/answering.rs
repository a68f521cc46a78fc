//! Whether the cluster answers: a node that stopped stays listed until the tend gives up on
//! it (several failed tends in a row), but it stops answering at the first; `ping` asks the
//! nodes now.

use std::sync::Arc;
use std::time::Duration;

use aerospike::policy::AdminPolicy;
use pyo3::prelude::*;

use crate::client::Inner;
use crate::exec::completion::{OpResult, Pending};
use crate::metrics::Call;
use crate::py::client::Client;

/// Whether some node of `client`'s cluster answered its last tend.
#[pyfunction]
pub fn nodes_answering(client: PyRef<'_, Client>) -> bool {
    client
        .inner
        .client
        .nodes()
        .iter()
        .any(|node| node.failures() == 0)
}

/// Ask every node of `client`'s cluster for its name at once: whether one answered within
/// `timeout_ms` (async: `done` receives it).
#[pyfunction]
pub fn ping(done: Py<PyAny>, client: PyRef<'_, Client>, timeout_ms: u64) -> PyResult<Pending> {
    let fut = answers(client.live()?.clone(), timeout_ms);
    Ok(client.go(Call::from(false), done, fut))
}

/// [`ping`], blocking.
#[pyfunction]
pub fn ping_blocking(py: Python<'_>, client: PyRef<'_, Client>, timeout_ms: u64) -> PyResult<bool> {
    let fut = answers(client.live()?.clone(), timeout_ms);
    client.wait(py, Call::from(false), fut)?.extract(py)
}

async fn answers(i: Arc<Inner>, timeout_ms: u64) -> OpResult<bool> {
    let limit = Duration::from_millis(timeout_ms);
    let admin = AdminPolicy {
        timeout: u32::try_from(timeout_ms).unwrap_or(u32::MAX),
    };
    let nodes = i.client.nodes();
    if nodes.is_empty() {
        return Ok(false);
    }
    let asks = nodes.iter().map(|node| {
        let ask = tokio::time::timeout(limit, node.info(&admin, &["node"]));
        Box::pin(async move { ask.await.ok().and_then(Result::ok).ok_or(()) })
    });
    let answered = futures::future::select_ok(asks).await.is_ok();
    Ok(answered)
}
