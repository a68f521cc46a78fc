//! Calls about the cluster rather than a record: info commands, the nodes and partitions of
//! the client's view, truncate, and registering UDF modules. They run on the worker runtime.

use std::sync::Arc;

use aerospike::policy::AdminPolicy;
use aerospike::{Task, UdfLang};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict, PyList};

use crate::client::Inner;
use crate::exec::completion::{IntoPy, OpResult};
use crate::request::calls::TASK_WAIT;

/// Info reply as a dict.
pub struct InfoOut(Vec<(String, String)>);

impl IntoPy for InfoOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = PyDict::new(py);
        for (k, v) in self.0 {
            d.set_item(k, v)?;
        }
        Ok(d.into_any().unbind())
    }
}

/// Send an info command to one node (or any node).
pub async fn info(
    i: Arc<Inner>,
    admin: AdminPolicy,
    command: String,
    node: Option<String>,
) -> OpResult<InfoOut> {
    let cmds: Vec<&str> = command.split('\n').filter(|c| !c.is_empty()).collect();
    let map = match node {
        Some(n) => i.client.get_node(&n)?.info(&admin, &cmds).await?,
        None => i.client.info(&admin, &cmds).await?,
    };
    Ok(InfoOut(map.into_iter().collect()))
}

/// Per node name, the answers of one info command.
pub struct InfoAllOut(Vec<(String, InfoOut)>);

impl IntoPy for InfoAllOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = PyDict::new(py);
        for (node, answers) in self.0 {
            d.set_item(node, answers.into_py(py)?)?;
        }
        Ok(d.into_any().unbind())
    }
}

/// Send an info command to every node at once.
pub async fn info_all(i: Arc<Inner>, admin: AdminPolicy, command: String) -> OpResult<InfoAllOut> {
    let cmds: Vec<&str> = command.split('\n').filter(|c| !c.is_empty()).collect();
    let nodes = i.client.nodes();
    let asks = nodes.iter().map(|n| n.info(&admin, &cmds));
    let mut out = Vec::with_capacity(nodes.len());
    for (node, answer) in nodes.iter().zip(futures::future::join_all(asks).await) {
        out.push((
            node.name().to_owned(),
            InfoOut(answer?.into_iter().collect()),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(InfoAllOut(out))
}

/// Per node name, the partitions of a namespace it masters and the replicas it holds.
pub struct OwnersOut(Vec<(String, usize, usize)>);

impl IntoPy for OwnersOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = PyDict::new(py);
        for (node, masters, replicas) in self.0 {
            d.set_item(node, (masters, replicas))?;
        }
        Ok(d.into_any().unbind())
    }
}

/// Where `ns`'s partitions are in the client's view (the one every call routes by).
pub async fn partition_owners(i: Arc<Inner>, ns: String) -> OpResult<OwnersOut> {
    Ok(OwnersOut(i.worker_wire.owners(&i.client, &ns).await))
}

/// The cluster's nodes: name, address, whether active, per namespace the partitions each
/// masters and the replicas it holds, and per namespace its rack (Enterprise nodes say).
pub struct NodesOut(Vec<NodeView>);

/// Name, address, whether active, per namespace (masters, replicas), per namespace its rack.
type NodeView = (String, String, bool, Vec<(String, usize, usize)>, Racks);

/// A node's rack per namespace, from its `rack-ids` answer (`ns:rack;...`).
type Racks = Vec<(String, u32)>;

fn racks(answer: Option<&String>) -> Racks {
    let Some(text) = answer else {
        return Vec::new();
    };
    text.split(';')
        .filter_map(|entry| {
            let (ns, rack) = entry.split_once(':')?;
            Some((ns.to_owned(), rack.trim().parse().ok()?))
        })
        .collect()
}

impl IntoPy for NodesOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let out = PyList::empty(py);
        for (name, address, active, partitions, racks) in self.0 {
            let d = PyDict::new(py);
            d.set_item("name", name)?;
            d.set_item("address", address)?;
            d.set_item("active", active)?;
            let held = PyDict::new(py);
            for (ns, masters, replicas) in partitions {
                held.set_item(ns, (masters, replicas))?;
            }
            d.set_item("partitions", held)?;
            d.set_item("racks", racks.into_py_dict(py)?)?;
            out.append(d)?;
        }
        Ok(out.into_any().unbind())
    }
}

/// The cluster's nodes as the client's view has them (see [`NodesOut`]).
pub async fn nodes(i: Arc<Inner>) -> OpResult<NodesOut> {
    let nodes = i.client.nodes();
    let asks = nodes
        .iter()
        .map(|n| n.info(&i.admin, &["namespaces", "rack-ids"]));
    let mut namespaces = std::collections::BTreeSet::new();
    let mut node_racks = Vec::with_capacity(nodes.len());
    for answer in futures::future::join_all(asks).await {
        let answer = answer.unwrap_or_default();
        if let Some(list) = answer.get("namespaces") {
            namespaces.extend(list.split(';').filter(|n| !n.is_empty()).map(str::to_owned));
        }
        node_racks.push(racks(answer.get("rack-ids")));
    }
    let mut owners = Vec::with_capacity(namespaces.len());
    for ns in namespaces {
        let held = i.worker_wire.owners(&i.client, &ns).await;
        owners.push((ns, held));
    }
    let mut out: Vec<_> = nodes
        .iter()
        .zip(node_racks)
        .map(|(n, racks)| {
            let partitions = owners
                .iter()
                .filter_map(|(ns, held)| {
                    let (_, m, r) = held.iter().find(|(name, ..)| name == n.name())?;
                    Some((ns.clone(), *m, *r))
                })
                .collect();
            (
                n.name().to_owned(),
                n.address().to_owned(),
                n.is_active(),
                partitions,
                racks,
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(NodesOut(out))
}

/// Remove a set's (or namespace's) records.
pub async fn truncate(i: Arc<Inner>, ns: String, set: String, before_ns: i64) -> OpResult<()> {
    Ok(i.client.truncate(&i.admin, &ns, &set, before_ns).await?)
}

/// Register a Lua module.
pub async fn udf_register(i: Arc<Inner>, code: Vec<u8>, path: String) -> OpResult<()> {
    let task = i
        .client
        .register_udf(&i.admin, &code, &path, UdfLang::Lua)
        .await?;
    task.wait_till_complete(Some(TASK_WAIT)).await?;
    Ok(())
}

/// Remove a Lua module.
pub async fn udf_remove(i: Arc<Inner>, path: String) -> OpResult<()> {
    let task = i.client.remove_udf(&i.admin, &path).await?;
    task.wait_till_complete(Some(TASK_WAIT)).await?;
    Ok(())
}
