//! Whether the cluster answers: a node that stopped stays listed until the tend gives up on
//! it (several failed tends in a row), but it stops answering at the first.

use pyo3::prelude::*;

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
