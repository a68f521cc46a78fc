//! Background queries: the server applies operations or a record UDF to every record a query
//! selects, on every node, and reports progress through a task.

use std::sync::Arc;

use aerospike::operations::Operation;
use aerospike::query::Statement;
use aerospike::task::{ExecuteTask, Status, Task};
use aerospike::{Bins, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tokio::runtime::Handle;

use crate::client::Inner;
use crate::convert::call_args::udf_args;
use crate::errors::invalid_argument;
use crate::exec::blocking::{self, Driver};
use crate::exec::completion::{self, IntoPy, OpResult, Pending};
use crate::ops::to_ops;
use crate::policy::Natives;

/// What the server applies to each selected record.
pub enum Work {
    Ops(Vec<Operation>),
    Udf {
        module: String,
        function: String,
        args: Vec<Value>,
    },
}

/// The statement and work of a background query, validated before anything is sent: exactly
/// one of `ops` (operation tuples) and `udf` (`(module, function, args)`).
pub fn parse(
    namespace: String,
    set_name: String,
    index_filter: Option<&Bound<'_, PyAny>>,
    ops: Option<&Bound<'_, PyAny>>,
    udf: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Statement, Work)> {
    let mut statement = Statement::new(namespace, set_name, Bins::All);
    if let Some(f) = index_filter.filter(|f| !f.is_none()) {
        statement.set_filter(crate::crate_calls::indexes::query_filter(f)?);
    }
    let work = match (ops.filter(|o| !o.is_none()), udf.filter(|u| !u.is_none())) {
        (Some(ops), None) => {
            let ops = to_ops(ops)?.ops;
            if ops.is_empty() {
                return Err(invalid_argument("a background query needs operations"));
            }
            Work::Ops(ops)
        }
        (None, Some(udf)) => {
            let (module, function, args): (String, String, Bound<'_, PyAny>) = udf
                .extract()
                .map_err(|_| invalid_argument("udf must be (module, function, args)"))?;
            Work::Udf {
                module,
                function,
                args: udf_args(&args)?,
            }
        }
        _ => {
            return Err(invalid_argument(
                "a background query takes ops or a udf, not both",
            ))
        }
    };
    Ok((statement, work))
}

/// Start the background query; the task is returned once every node accepted it.
pub async fn start(
    i: Arc<Inner>,
    handle: Handle,
    p: Arc<Natives>,
    mut statement: Statement,
    work: Work,
) -> OpResult<TaskOut> {
    let task = match work {
        Work::Ops(ops) => {
            statement.set_operations(ops);
            i.client.query_operate(&p.write, statement).await?
        }
        Work::Udf {
            module,
            function,
            args,
        } => {
            i.client
                .query_execute_udf(&p.write, statement, &module, &function, &args)
                .await?
        }
    };
    Ok(TaskOut(BackgroundTask {
        task,
        inner: i,
        handle,
    }))
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
    task: ExecuteTask,
    inner: Arc<Inner>,
    handle: Handle,
}

/// Progress summed over the nodes.
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
struct StatusOut(Status);

impl IntoPy for StatusOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let name = match self.0 {
            Status::InProgress => "in_progress",
            Status::Complete | Status::NotFound => "complete",
        };
        Ok(name.into_pyobject(py)?.into_any().unbind())
    }
}

async fn progress(task: ExecuteTask) -> OpResult<ProgressOut> {
    let p = task.progress().await?;
    Ok(ProgressOut {
        complete: p.complete,
        succeeded: p.succeeded,
        failed: p.failed,
        percent: p.percent,
    })
}

async fn status(task: ExecuteTask) -> OpResult<StatusOut> {
    Ok(StatusOut(task.query_status().await?))
}

/// Poll every `interval` until complete or `timeout` (seconds; None = no limit) passes.
async fn wait(task: ExecuteTask, timeout: Option<f64>) -> OpResult<StatusOut> {
    let interval = std::time::Duration::from_millis(100);
    let deadline =
        timeout.map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s));
    loop {
        let now = task.query_status().await?;
        if now != Status::InProgress {
            return Ok(StatusOut(now));
        }
        if deadline.is_some_and(|d| std::time::Instant::now() + interval > d) {
            return Ok(StatusOut(now));
        }
        tokio::time::sleep(interval).await;
    }
}

#[pymethods]
impl BackgroundTask {
    /// The task id the server knows the job by.
    #[getter]
    fn task_id(&self) -> u64 {
        self.task.task_id()
    }

    /// `done` receives `"in_progress"` or `"complete"`.
    fn status(&self, done: Py<PyAny>) -> Pending {
        let fut = self
            .inner
            .until_closed(false.into(), status(self.task.clone()));
        completion::start(&self.handle, done, fut)
    }

    fn status_blocking(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = self
            .inner
            .until_closed(false.into(), status(self.task.clone()));
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    /// `done` receives `{complete, succeeded, failed, percent}` summed over the nodes.
    fn progress(&self, done: Py<PyAny>) -> Pending {
        let fut = self
            .inner
            .until_closed(false.into(), progress(self.task.clone()));
        completion::start(&self.handle, done, fut)
    }

    fn progress_blocking(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = self
            .inner
            .until_closed(false.into(), progress(self.task.clone()));
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    /// `done` receives the status once complete or after `timeout` seconds.
    #[pyo3(signature = (done, timeout = None))]
    fn wait(&self, done: Py<PyAny>, timeout: Option<f64>) -> Pending {
        let fut = self
            .inner
            .until_closed(false.into(), wait(self.task.clone(), timeout));
        completion::start(&self.handle, done, fut)
    }

    #[pyo3(signature = (timeout = None))]
    fn wait_blocking(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyAny>> {
        let fut = self
            .inner
            .until_closed(false.into(), wait(self.task.clone(), timeout));
        blocking::block(py, Driver::Worker(&self.handle), fut)
    }

    fn __repr__(&self) -> String {
        format!("<BackgroundTask {}>", self.task.task_id())
    }
}
