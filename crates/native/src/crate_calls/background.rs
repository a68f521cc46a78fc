//! Background queries: the server applies operations or a record UDF to every record a query
//! selects, on every node, and reports progress through a task. The job is sent by
//! `request::background` (here only the crate's road for a client without wire connections);
//! its task reads `query-show` from every node through the crate's info calls.

use std::sync::Arc;

use aerospike::query::Statement;
use aerospike::{AdminPolicy, Bins, Client};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tokio::runtime::Handle;

use crate::client::Inner;
use crate::convert::call_args::udf_args;
use crate::errors::invalid_argument;
use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{self, Failure, IntoPy, OpResult, Pending};
use crate::ops::wire::expression_bytes;
use crate::ops::{to_ops, to_wire_ops};
use crate::policy::Natives;
use crate::request::background::{Job, Work};

/// A background query validated before anything is sent, and the road it takes: the SDK's
/// own connections, or the crate's when the client has none (`max_conns_per_node` under 8,
/// or `AEROSPIKE_FLUENT_CRATE_RECORDS` set).
pub struct Spec {
    job: Job,
    /// The index condition as the crate's filter, for its road.
    filter: Option<aerospike::query::Filter>,
    /// The SDK's road serves it; else the crate's, with the ops as its operations.
    wire: bool,
    crate_ops: Vec<aerospike::operations::Operation>,
}

/// Check a background query's arguments: exactly one of `ops` (operation tuples, all of them
/// writes) and `udf` (`(module, function, args)`); `wire`: the SDK's road serves it.
pub fn parse(
    namespace: String,
    set_name: String,
    index_filter: Option<&Bound<'_, PyAny>>,
    ops: Option<&Bound<'_, PyAny>>,
    udf: Option<&Bound<'_, PyAny>>,
    wire: bool,
) -> PyResult<Spec> {
    let (filter, index) = match index_filter.filter(|f| !f.is_none()) {
        Some(f) => {
            let (filter, index) = crate::crate_calls::indexes::query_index(f)?;
            (Some(filter), Some(index))
        }
        None => (None, None),
    };
    let mut crate_ops = Vec::new();
    let work = match (ops.filter(|o| !o.is_none()), udf.filter(|u| !u.is_none())) {
        (Some(ops), None) => {
            if ops.len().is_ok_and(|n| n == 0) {
                return Err(invalid_argument("a background query needs operations"));
            }
            let encoded = to_wire_ops(ops)?.wire.unwrap_or_default();
            if encoded.read_attr != 0 {
                return Err(invalid_argument(
                    "a background query's operations must all write (it returns no records): \
                     drop the read operations, or read with a query",
                ));
            }
            if !wire {
                crate_ops = to_ops(ops)?.ops;
            }
            Work::Ops(encoded)
        }
        (None, Some(udf)) => {
            let (module, function, args): (String, String, Bound<'_, PyAny>) = udf
                .extract()
                .map_err(|_| invalid_argument("udf must be (module, function, args)"))?;
            let args = udf_args(&args)?;
            Work::Udf {
                module,
                function,
                args,
            }
        }
        _ => {
            return Err(invalid_argument(
                "a background query takes ops or a udf, not both",
            ))
        }
    };
    let job = Job {
        namespace,
        set_name,
        index,
        work,
    };
    Ok(Spec {
        job,
        filter,
        wire,
        crate_ops,
    })
}

/// Start the background query; the task is returned once every node accepted it.
pub async fn start(
    i: Arc<Inner>,
    handle: Handle,
    p: Arc<Natives>,
    spec: Spec,
) -> OpResult<TaskOut> {
    let scan = spec.job.index.is_none();
    let task_id = if spec.wire {
        let filter = match &p.write.base_policy.filter_expression {
            Some(e) => Some(expression_bytes(e).map_err(|why| {
                Failure::Coded(4, format!("the filter expression cannot be sent: {why}"))
            })?),
            None => None,
        };
        let (client, pool) = (&i.client, &i.worker_wire);
        crate::request::background::start(client, pool, &p.write, filter.as_deref(), &spec.job)
            .await?
    } else {
        on_crate(&i.client, &p, spec.job, spec.filter, spec.crate_ops).await?
    };
    Ok(TaskOut(BackgroundTask {
        task_id,
        scan,
        inner: i,
        handle,
    }))
}

/// The crate's road: its background query (ops) or background UDF.
async fn on_crate(
    client: &Client,
    p: &Natives,
    job: Job,
    filter: Option<aerospike::query::Filter>,
    ops: Vec<aerospike::operations::Operation>,
) -> OpResult<u64> {
    let mut statement = Statement::new(job.namespace, job.set_name, Bins::All);
    if let Some(f) = filter {
        statement.set_filter(f);
    }
    let task = match job.work {
        Work::Ops(_) => {
            statement.set_operations(ops);
            client.query_operate(&p.write, statement).await?
        }
        Work::Udf {
            module,
            function,
            args,
        } => {
            client
                .query_execute_udf(&p.write, statement, &module, &function, &args)
                .await?
        }
    };
    Ok(task.task_id())
}

/// The started task, handed to Python.
pub struct TaskOut(BackgroundTask);

impl IntoPy for TaskOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self.0)?.into_any())
    }
}

/// A background query running on the cluster.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct BackgroundTask {
    task_id: u64,
    /// It selects every record of the set (no index condition).
    scan: bool,
    inner: Arc<Inner>,
    handle: Handle,
}

/// Progress summed over the nodes.
#[derive(Default)]
struct ProgressOut {
    complete: bool,
    succeeded: u64,
    failed: u64,
    percent: f64,
}

impl IntoPy for ProgressOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let p = self;
        let d = PyDict::new(py);
        d.set_item("complete", p.complete)?;
        d.set_item("succeeded", p.succeeded)?;
        d.set_item("failed", p.failed)?;
        d.set_item("percent", p.percent)?;
        Ok(d.into_any().unbind())
    }
}

/// `"in_progress"` or `"complete"` (a job a node no longer knows has finished).
struct StatusOut(bool);

impl IntoPy for StatusOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let name = if self.0 { "complete" } else { "in_progress" };
        Ok(name.into_pyobject(py)?.into_any().unbind())
    }
}

/// The info command that shows job `task_id` on a node of `version`.
fn show_command(version: &aerospike::Version, scan: bool, task_id: u64) -> String {
    let id = if version >= &aerospike::Version::new(8, 1, 0, 0) {
        "id"
    } else {
        "trid"
    };
    let module = if scan { "scan" } else { "query" };
    if version.supports_partition_query() {
        format!("query-show:{id}={task_id}")
    } else if version.supports_query_show() {
        format!("{module}-show:{id}={task_id}")
    } else {
        format!("jobs:module={module};cmd=get-job;{id}={task_id}")
    }
}

/// One node's figures from its `query-show` answer (`field=value:...`); a job the node no
/// longer knows (`ERROR:2`) has finished.
fn node_progress(task_id: u64, reply: &str) -> Result<ProgressOut, Failure> {
    if reply.contains("ERROR:2") {
        return Ok(ProgressOut {
            complete: true,
            ..ProgressOut::default()
        });
    }
    if reply.starts_with("ERROR") {
        let message = format!("the status of background task {task_id} was refused: {reply}");
        return Err(Failure::Coded(-1, message));
    }
    let field = |name: &str| {
        reply.split(':').find_map(|part| {
            part.split_once('=')
                .filter(|(key, _)| *key == name)
                .map(|(_, value)| value)
        })
    };
    let number = |name: &str| field(name).and_then(|v| v.parse().ok()).unwrap_or(0);
    Ok(ProgressOut {
        complete: field("status").is_some_and(|s| s.to_lowercase().starts_with("done")),
        succeeded: number("recs-succeeded"),
        failed: number("recs-failed"),
        percent: field("job-progress")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0),
    })
}

/// The job's figures summed over the nodes (the percent is their mean); complete once every
/// node says so.
async fn progress(i: Arc<Inner>, task_id: u64, scan: bool) -> OpResult<ProgressOut> {
    let nodes = i.client.nodes();
    if nodes.is_empty() {
        let message = format!("background task {task_id}: no node of the cluster is connected");
        return Err(Failure::Coded(-8, message));
    }
    let policy = AdminPolicy { timeout: 3_000 };
    let mut total = ProgressOut {
        complete: true,
        ..ProgressOut::default()
    };
    let mut reporting = 0u32;
    for node in &nodes {
        let command = show_command(node.version(), scan, task_id);
        let answer = node.info(&policy, &[&command]).await?;
        let Some(reply) = answer.get(&command) else {
            // The job may not have reached this node yet: that is not completion.
            total.complete = false;
            continue;
        };
        let one = node_progress(task_id, reply)?;
        total.complete &= one.complete;
        total.succeeded += one.succeeded;
        total.failed += one.failed;
        total.percent += one.percent;
        reporting += 1;
    }
    if reporting > 0 {
        total.percent /= f64::from(reporting);
    }
    Ok(total)
}

async fn status(i: Arc<Inner>, task_id: u64, scan: bool) -> OpResult<StatusOut> {
    Ok(StatusOut(progress(i, task_id, scan).await?.complete))
}

/// Poll every `interval` until complete or `timeout` (seconds; None = no limit) passes.
async fn wait(
    i: Arc<Inner>,
    task_id: u64,
    scan: bool,
    timeout: Option<f64>,
) -> OpResult<StatusOut> {
    let interval = std::time::Duration::from_millis(100);
    let deadline =
        timeout.map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s));
    loop {
        let done = progress(i.clone(), task_id, scan).await?.complete;
        if done || deadline.is_some_and(|d| std::time::Instant::now() + interval > d) {
            return Ok(StatusOut(done));
        }
        tokio::time::sleep(interval).await;
    }
}

#[pymethods]
impl BackgroundTask {
    /// The task id the server knows the job by.
    #[getter]
    fn task_id(&self) -> u64 {
        self.task_id
    }

    /// `done` receives `"in_progress"` or `"complete"`.
    fn status(&self, done: Py<PyAny>) -> Pending {
        let fut = self.inner.until_closed(
            false.into(),
            status(self.inner.clone(), self.task_id, self.scan),
        );
        completion::start(&self.handle, done, fut)
    }

    fn status_blocking(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = self.inner.until_closed(
            false.into(),
            status(self.inner.clone(), self.task_id, self.scan),
        );
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    /// `done` receives `{complete, succeeded, failed, percent}` summed over the nodes.
    fn progress(&self, done: Py<PyAny>) -> Pending {
        let fut = self.inner.until_closed(
            false.into(),
            progress(self.inner.clone(), self.task_id, self.scan),
        );
        completion::start(&self.handle, done, fut)
    }

    fn progress_blocking(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = self.inner.until_closed(
            false.into(),
            progress(self.inner.clone(), self.task_id, self.scan),
        );
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    /// `done` receives the status once complete or after `timeout` seconds.
    #[pyo3(signature = (done, timeout = None))]
    fn wait(&self, done: Py<PyAny>, timeout: Option<f64>) -> Pending {
        let fut = self.inner.until_closed(
            false.into(),
            wait(self.inner.clone(), self.task_id, self.scan, timeout),
        );
        completion::start(&self.handle, done, fut)
    }

    #[pyo3(signature = (timeout = None))]
    fn wait_blocking(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyAny>> {
        let fut = self.inner.until_closed(
            false.into(),
            wait(self.inner.clone(), self.task_id, self.scan, timeout),
        );
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    fn __repr__(&self) -> String {
        format!("<BackgroundTask {}>", self.task_id)
    }
}
