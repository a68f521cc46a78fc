//! `Transaction`: a multi-record transaction (the crate's `Txn`), its commit and abort, and
//! the policies of calls made inside it.

use std::sync::Arc;
use std::time::Duration;

use aerospike::{AbortStatus, CommitStatus, Txn, TxnState};
use pyo3::prelude::*;

use crate::client::routes::RuntimeClient;
use crate::errors::TransactionFinishedError;
use crate::exec::completion::{Failure, IntoPy, OpResult};
use crate::policy::Natives;

/// A multi-record transaction: its id, state and the keys it read and wrote so far.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Transaction {
    pub(crate) txn: Arc<Txn>,
}

#[pymethods]
impl Transaction {
    /// A new open transaction; `timeout` in whole seconds (0: the server's
    /// `transaction-duration`).
    #[new]
    #[pyo3(signature = (timeout = 0))]
    fn new(timeout: u32) -> Self {
        let txn = Txn::new().with_timeout(Duration::from_secs(u64::from(timeout)));
        Transaction { txn: Arc::new(txn) }
    }

    /// The transaction's id (random, never 0).
    #[getter]
    fn id(&self) -> i64 {
        self.txn.id()
    }

    /// `open`, `verified`, `committed`, `aborted` or `commit_failed` (a commit in doubt).
    #[getter]
    fn state(&self) -> &'static str {
        state_name(self.txn.state())
    }

    /// The namespace of its first command (None before any).
    #[getter]
    fn namespace(&self) -> Option<String> {
        self.txn.namespace()
    }

    /// Its timeout in seconds (0: the server's default).
    #[getter]
    fn timeout(&self) -> u64 {
        self.txn.timeout().as_secs()
    }

    /// Whether a write of it may or may not have reached the server.
    #[getter]
    fn in_doubt(&self) -> bool {
        self.txn.in_doubt() || self.txn.write_in_doubt()
    }

    /// Keys read (with the version the server reported) and written so far: counts.
    #[getter]
    fn reads(&self) -> usize {
        self.txn.get_reads().len()
    }

    #[getter]
    fn writes(&self) -> usize {
        self.txn.get_writes().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Transaction id={} state={} namespace={:?}>",
            self.txn.id(),
            state_name(self.txn.state()),
            self.txn.namespace()
        )
    }
}

fn state_name(s: TxnState) -> &'static str {
    match s {
        TxnState::Open => "open",
        TxnState::Verified => "verified",
        TxnState::Committed => "committed",
        TxnState::Aborted => "aborted",
        TxnState::CommitFailed => "commit_failed",
    }
}

/// The policies of a call inside `txn`: `p` with the transaction set on every record and batch
/// policy (scans and queries read committed data, outside it) and deletes durable. Refused
/// once it is finished.
pub(crate) fn natives_in(txn: &Arc<Txn>, p: &Natives) -> PyResult<Arc<Natives>> {
    let state = txn.state();
    if state != TxnState::Open {
        return Err(TransactionFinishedError::new_err(format!(
            "transaction {} is {}: calls on it are refused (start a new transaction)",
            txn.id(),
            finished_how(state)
        )));
    }
    let mut n = p.clone();
    for base in [
        &mut n.read.base_policy,
        &mut n.write.base_policy,
        &mut n.udf.base_policy,
        &mut n.batch.base_policy,
        &mut n.batch_write.base_policy,
    ] {
        base.txn = Some(txn.clone());
    }
    // Transactions run on strong-consistency namespaces, which take durable deletes only.
    n.write.durable_delete = true;
    n.udf.durable_delete = true;
    n.batch_delete_row.durable_delete = true;
    n.batch_udf_row.durable_delete = true;
    n.batch_write_row.durable_delete = true;
    n.wire_read = false;
    n.wire_write = false;
    n.wire_operate = false;
    n.wire_batch = false;
    n.wire_batch_put = false;
    Ok(Arc::new(n))
}

fn finished_how(s: TxnState) -> &'static str {
    match s {
        TxnState::Committed => "committed",
        TxnState::Aborted => "aborted",
        TxnState::CommitFailed => "in doubt after a failed commit (retry commit())",
        TxnState::Verified => "being committed",
        TxnState::Open => "open",
    }
}

/// A commit's outcome, as its Python name.
pub struct Committed(CommitStatus);

impl IntoPy for Committed {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let name = match self.0 {
            CommitStatus::Ok => "committed",
            CommitStatus::AlreadyCommitted => "already_committed",
            CommitStatus::RollForwardAbandoned => "roll_forward_abandoned",
            CommitStatus::CloseAbandoned => "close_abandoned",
        };
        Ok(pyo3::types::PyString::new(py, name).into_any().unbind())
    }
}

/// An abort's outcome, as its Python name.
pub struct Aborted(AbortStatus);

impl IntoPy for Aborted {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let name = match self.0 {
            AbortStatus::Ok => "aborted",
            AbortStatus::AlreadyAborted => "already_aborted",
            AbortStatus::RollBackAbandoned => "roll_back_abandoned",
            AbortStatus::CloseAbandoned => "close_abandoned",
            AbortStatus::CommitFailed => "commit_failed",
        };
        Ok(pyo3::types::PyString::new(py, name).into_any().unbind())
    }
}

/// Verify the transaction's reads, then roll its writes forward and close it. Once it is
/// marked for roll-forward it is committed: a roll-forward the client could not finish is a
/// status (the server finishes it), as the other clients report it.
pub async fn commit(c: RuntimeClient, txn: Arc<Txn>) -> OpResult<Committed> {
    let cl = c.crate_client.clone();
    match c.on_crate(async move { cl.commit(&txn).await }).await? {
        Ok(s) => Ok(Committed(s)),
        Err(e)
            if matches!(
                e.kind(),
                aerospike::ErrorKind::Commit {
                    error_type: aerospike::CommitErrorType::RollForwardAbandoned,
                    ..
                }
            ) =>
        {
            Ok(Committed(CommitStatus::RollForwardAbandoned))
        }
        Err(e) => Err(Failure::Native(e, None)),
    }
}

/// Roll the transaction's writes back and close it.
pub async fn abort(c: RuntimeClient, txn: Arc<Txn>) -> OpResult<Aborted> {
    let cl = c.crate_client.clone();
    match c.on_crate(async move { cl.abort(&txn).await }).await? {
        Ok(s) => Ok(Aborted(s)),
        Err(e) => Err(Failure::Native(e, None)),
    }
}
