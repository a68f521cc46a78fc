//! Batches of plain read rows, or of plain put rows, go over the wire path (`request::batch`),
//! one request per node; the crate's batch runs the rows it could not finish, as `retry`
//! decides for a single record:
//!
//! - a row whose partition has no known master, or whose node could not be asked (nothing
//!   sent, or a reply this path cannot read): the crate runs it with what is left of the total
//!   timeout;
//! - a node that did not answer (connection lost, socket timeout): the crate runs its rows with
//!   one retry less, when a retry and time are left; else each row fails as the crate's do
//!   when their retries run out (result code 9, the error of the last attempt);
//! - all of a node's connections busy until the deadline: its rows fail with the exhausted
//!   pool named.
//!
//! A row the server refused keeps its own code, as on the crate's path; so does a row of a
//! node whose reply ended without it ("no response for this row"). Reads are never in doubt;
//! a put is when it was sent without an answer, also when the crate's retry of it fails.

use std::sync::Arc;
use std::time::Instant;

use aerospike::policy::BatchPolicy;
use aerospike::{BatchOperation, Key, ResultCode};
use pyo3::prelude::*;

use crate::client::routes::RuntimeClient;
use crate::convert::batch_row::BatchRow;
use crate::convert::depth::TooDeep;
use crate::convert::record::Record;
use crate::convert::values::{key_tuple, Names};
use crate::errors;
use crate::exec::completion::OpResult;
use crate::ops::Answers;
use crate::policy::Natives;
use crate::request::batch::{self, Answer, Ask, Job};
use crate::request::batch_rows::Row;
use crate::request::calls::{self, BatchOut};
use crate::request::retry::{self, Next, Refusal};
use crate::request::single::Miss;

/// CLIENT_ERROR "no response for this row": the crate's code for a row its node's reply
/// ended without.
const NO_RESPONSE: i32 = -15;
/// TIMEOUT: a row's code once its node's retries ran out, whatever the last attempt met.
const RETRIES_SPENT: i32 = 9;

/// A finished row.
pub enum Done {
    /// A row the crate's batch ran.
    Crate(Box<BatchOperation>),
    /// A row the wire path answered.
    Wire(Key, Answer),
    /// A row that failed without an answer of its own: with its node (no retry or time
    /// left: `true`), or because no node could be found for it (`false`).
    Failed(Key, Refusal, bool),
    /// A put the crate's batch ran again after an attempt that may have been applied.
    Retried(Box<BatchOperation>),
}

impl Done {
    /// Whether the row has an outcome of its own (a batch where none has fails as a whole).
    pub fn answered(&self) -> bool {
        match self {
            Done::Crate(op) => op.result_code().is_some(),
            Done::Wire(_, a) => !matches!(a, Answer::NoResponse | Answer::Missed(_)),
            Done::Failed(..) => true,
            Done::Retried(op) => op.result_code().is_some(),
        }
    }

    /// A wire or failed row for Python (`None`: a crate row); `orig` is the key tuple it was
    /// asked with.
    pub fn into_row<'py>(
        self,
        py: Python<'py>,
        orig: &Bound<'py, PyAny>,
        now: u64,
        (shape, names): (Option<&Answers>, &mut Names<'py>),
    ) -> PyResult<Result<BatchRow, Box<BatchOperation>>> {
        let (key, failure) = match self {
            Done::Crate(op) => return Ok(Err(op)),
            Done::Retried(op) => match op.error() {
                None => return Ok(Err(op)),
                Some(e) => {
                    let code = op
                        .result_code()
                        .map_or(e.result_code(), |c| i32::from(u8::from(c)));
                    let r = Refusal {
                        code,
                        message: crate::errors::describe(e),
                        in_doubt: true,
                    };
                    let key = op.batch_record().key.clone();
                    let whole = failed_with_node(&op, None);
                    return Done::Failed(key, r, whole).into_row(py, orig, now, (shape, names));
                }
            },
            Done::Wire(key, answer) => (key, answer),
            Done::Failed(key, r, whole) => {
                let key = key_tuple(py, Some(orig), &key)?;
                let k = Some(key.clone().into_any());
                let e = errors::keyed(py, r.code, &r.message, r.in_doubt, k);
                let code = if r.code < 0 { RETRIES_SPENT } else { r.code };
                let e = Some(e.into_value(py).into_any());
                let row = row(key, None, code, e).in_doubt_if(r.in_doubt);
                return Ok(Ok(row.node_failed_if(whole)));
            }
        };
        let key = key_tuple(py, Some(orig), &key)?;
        let key_any = || Some(key.clone().into_any());
        let whole = match &failure {
            Answer::Stopped { code, .. } => !row_outcome(*code),
            Answer::NoResponse | Answer::Missed(_) => true,
            _ => false,
        };
        let (code, error) = match failure {
            Answer::Found(rec) => {
                let rec = Record::from_wire_keyed(py, rec, now, key.clone().unbind());
                return Ok(Ok(row(key, Some(Py::new(py, rec)?), 0, None)));
            }
            Answer::Written(rec) => {
                let rec = Record::written_keyed(py, rec, now, key.clone().unbind());
                return Ok(Ok(row(key, Some(Py::new(py, rec)?), 0, None)));
            }
            Answer::Operated(rec) => {
                let rec = match shape {
                    Some(answers) => Record::from_answers(py, &rec, key.clone(), answers, names)?,
                    None => Record::convert(py, &rec, Some(key.clone()), names)?,
                };
                return Ok(Ok(row(key, Some(Py::new(py, rec)?), 0, None)));
            }
            Answer::NotFound => return Ok(Ok(row(key, None, 2, None))),
            Answer::TooDeep(bin) => {
                let e = errors::too_deep(py, &TooDeep { bin: Some(bin) }, key_any());
                (-2, e)
            }
            Answer::Refused { code, .. } | Answer::Stopped { code, .. } => {
                let message = ResultCode::from(code).to_string();
                let code = i32::from(code);
                (code, errors::keyed(py, code, &message, false, key_any()))
            }
            Answer::NoResponse | Answer::Missed(_) => {
                let class = errors::class_for_code(py, NO_RESPONSE);
                let message = "no response for this row";
                let e =
                    errors::error_instance(class, Some(NO_RESPONSE), message, false, key_any())?;
                (NO_RESPONSE, PyErr::from_value(e))
            }
        };
        let error = Some(error.into_value(py).into_any());
        Ok(Ok(row(key, None, code, error).node_failed_if(whole)))
    }
}

/// Whether a row the crate's batch ran failed with its node's part of the batch: no answer
/// of its own, a client-side failure (timeout, connection, node), or the error `batch` (what
/// the crate's batch returned) when that is the server's and the row's too.
pub fn failed_with_node(op: &BatchOperation, batch: Option<&aerospike::Error>) -> bool {
    use aerospike::ErrorKind as K;
    if op.record().is_some() {
        return false;
    }
    let Some(e) = op.error() else {
        return op.result_code().is_none();
    };
    match e.kind() {
        K::Timeout
        | K::Connection
        | K::ConnectionPoolEmpty
        | K::NoMoreConnections
        | K::MaxErrorRate
        | K::InvalidNode
        | K::BadResponse => true,
        K::Server { rc, .. } => batch.is_some_and(|b| b.server_result_code() == Some(*rc)),
        _ => false,
    }
}

fn row(
    key: Bound<'_, pyo3::types::PyTuple>,
    record: Option<Py<Record>>,
    code: i32,
    error: Option<Py<PyAny>>,
) -> BatchRow {
    BatchRow::of_read(key.unbind(), record, code, error)
}

/// Rows the crate's batch runs again under `policy`: their places and keys, operations, and
/// whether an earlier attempt at them may have been applied.
type Rerun = (BatchPolicy, Vec<(usize, Key)>, Vec<BatchOperation>, bool);

/// `ask` as the crate's batch runs it, under the row's policy set `p`.
fn crate_op(p: &Natives, ask: &Ask) -> BatchOperation {
    let key = ask.key.clone();
    match &ask.job {
        Job::Read(read) => BatchOperation::read(&p.batch_read_row, key, read.bins()),
        Job::Put(bins) => {
            let ops: Vec<_> = bins.iter().map(aerospike::operations::put).collect();
            BatchOperation::write(&p.batch_write_row, key, ops)
        }
        Job::Ops(ops) if ops.wire.writes() => {
            BatchOperation::write(&p.batch_write_row, key, ops.crate_ops.clone())
        }
        Job::Ops(ops) => BatchOperation::read_ops(&p.batch_read_row, key, ops.crate_ops.clone()),
    }
}

/// Whether the wire path runs `rows` (all plain read rows or all plain put rows, on a
/// cluster it serves).
pub fn takes(c: &RuntimeClient, p: &Natives, rows: &[Row]) -> bool {
    c.wire.enabled() && (plain_rows(p, rows) || put_rows(p, rows))
}

/// Whether `rows` are all plain read rows under `p`.
pub fn plain_rows(p: &Natives, rows: &[Row]) -> bool {
    p.wire_batch && !rows.is_empty() && rows.iter().all(|r| r.wire_read(p))
}

/// Whether `rows` are all plain put rows under `p`.
pub fn put_rows(p: &Natives, rows: &[Row]) -> bool {
    p.wire_batch_put && !rows.is_empty() && rows.iter().all(|r| r.wire_put(p))
}

/// Run `rows` (all [`Row::wire_read`], or all [`Row::wire_put`]).
pub async fn run(c: RuntimeClient, p: Arc<Natives>, rows: Vec<Row>) -> OpResult<BatchOut> {
    let started = Instant::now();
    let writes = rows.iter().any(Row::writes);
    let top = if writes { &p.batch_write } else { &p.batch };
    let mut asks = Vec::with_capacity(rows.len());
    let mut policies = Vec::with_capacity(rows.len());
    let mut keys = Vec::with_capacity(rows.len());
    for row in rows {
        let (outcome, shape) = (row.outcome(), row.shape.clone());
        let (ask, policy, key) = row.into_ask(&p)?;
        asks.push(ask);
        policies.push(policy);
        keys.push((key, outcome, shape));
    }
    let answers = batch::read(&c.wire, &c.crate_client, top, &asks).await;
    let mut missed: Vec<(Miss, Vec<(usize, Ask)>)> = Vec::new();
    let mut done: Vec<Option<Done>> = Vec::with_capacity(answers.len());
    for (i, (ask, answer)) in asks.into_iter().zip(answers).enumerate() {
        let Answer::Missed(miss) = answer else {
            done.push(Some(Done::Wire(ask.key, answer)));
            continue;
        };
        done.push(None);
        match missed.iter_mut().find(|(m, _)| *m == miss) {
            Some((_, rows)) => rows.push((i, ask)),
            None => missed.push((miss, vec![(i, ask)])),
        }
    }
    let mut reruns: Vec<Rerun> = Vec::new();
    for (miss, rows) in missed {
        let node_level = !matches!(&miss, Miss::Refused { code, .. } if row_outcome(*code));
        let sent = matches!(&miss, Miss::Lost { .. } | Miss::Refused { .. });
        match retry::after(miss, top, started, writes, retry::Made::first(top)) {
            Next::Crate {
                policy, in_doubt, ..
            } => {
                if sent {
                    crate::metrics::retried(); // these rows go again, on the crate's path
                }
                let (at, ops) = rows
                    .into_iter()
                    .map(|(i, ask)| {
                        let op = crate_op(policies[i].as_deref().unwrap_or(&p), &ask);
                        ((i, ask.key), op)
                    })
                    .unzip();
                reruns.push((policy.into_owned(), at, ops, in_doubt));
            }
            Next::Fail(r) => {
                for (i, ask) in rows {
                    done[i] = Some(Done::Failed(ask.key, r.clone(), node_level));
                }
            }
        }
    }
    let runs = reruns
        .iter_mut()
        .map(|(policy, _, ops, _)| calls::crate_batch(&c, policy, std::mem::take(ops)));
    let ran = futures::future::join_all(runs)
        .await
        .into_iter()
        .collect::<OpResult<Vec<_>>>()?;
    let mut first_err = None;
    let total = done.len();
    for ((_, rows, _, in_doubt), (ops, err)) in reruns.into_iter().zip(ran) {
        // The crate's batch fails before running any row when it can route none: the whole
        // batch when that is every row, else those rows, as in a batch with others.
        if let Some(e) = err.as_ref().filter(|_| ops.iter().all(untouched)) {
            if rows.len() == total && !in_doubt {
                return Err(e.clone().into());
            }
            let refusal = Refusal {
                in_doubt,
                ..unroutable(e)
            };
            for (i, key) in rows {
                done[i] = Some(Done::Failed(key, refusal.clone(), false));
            }
            continue;
        }
        for ((i, _), op) in rows.into_iter().zip(ops) {
            done[i] = Some(if in_doubt {
                Done::Retried(Box::new(op))
            } else {
                Done::Crate(Box::new(op))
            });
        }
        first_err = first_err.or(err);
    }
    let done: Vec<Done> = done.into_iter().flatten().collect();
    if let Some(e) = first_err
        .as_ref()
        .filter(|_| !done.iter().any(Done::answered))
    {
        return Err(e.clone().into());
    }
    Ok(BatchOut::bounded(done, keys).failing(first_err))
}

/// Whether the crate's batch left `op` as it took it: no outcome, not even a failure.
fn untouched(op: &BatchOperation) -> bool {
    op.error().is_none() && op.record().is_none()
}

/// Whether `code` is about the record a row names (its own outcome, even when it ended the
/// node's reply), not about the node's part of the batch: not found, generation, exists, bin
/// type, record too big, bin not found, not applicable, filtered out.
fn row_outcome(code: u8) -> bool {
    matches!(code, 2 | 3 | 5 | 12 | 13 | 17 | 26 | 27)
}

/// A row the crate could not route: the server's code for why (an unknown namespace, or no
/// node for its partition), in the words a server's refusal of it reads in.
fn unroutable(e: &aerospike::Error) -> Refusal {
    let code = e.server_result_code().unwrap_or(match e.kind() {
        aerospike::ErrorKind::InvalidNamespace => ResultCode::InvalidNamespace,
        _ => ResultCode::PartitionUnavailable,
    });
    Refusal {
        code: i32::from(u8::from(code)),
        message: code.to_string(),
        in_doubt: false,
    }
}
