//! `put_arrow`: chunks of rows from an Arrow stream written as records (the wire path for plain
//! puts, the crate's batch otherwise), reported as the rows written and each failed row with
//! its key and error.

use std::sync::Arc;
use std::time::Instant;

use aerospike::{BatchOperation, Key};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::client::routes::RuntimeClient;
use crate::convert::arrow::Put;
use crate::errors::OpResult;
use crate::exec::completion::IntoPy;
use crate::policy::Natives;
use crate::request::batch::{Answer, Ask, Job};
use crate::request::retry::{self, Next};

/// A row that failed: its key, result code, message and whether it may have been applied.
struct Failed {
    key: Key,
    code: i32,
    message: String,
    in_doubt: bool,
}

/// What writing some chunks did.
#[derive(Default)]
pub struct Report {
    written: u64,
    failed: Vec<Failed>,
}

impl IntoPy for Report {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let failed = PyList::empty(py);
        for f in self.failed {
            let key = crate::convert::values::from_key(py, &f.key)?;
            let error = crate::errors::error_for_code(
                py,
                f.code,
                &f.message,
                f.in_doubt,
                Some(key.clone().into_any()),
            )?;
            failed.append(PyTuple::new(py, [key.into_any(), error])?)?;
        }
        Ok(PyTuple::new(
            py,
            [
                self.written.into_pyobject(py)?.into_any(),
                failed.into_any(),
            ],
        )?
        .into_any()
        .unbind())
    }
}

/// Write `chunks`, `concurrency` of them at a time.
pub async fn put_chunks(
    c: RuntimeClient,
    p: Arc<Natives>,
    chunks: Vec<Vec<Put>>,
    concurrency: usize,
) -> OpResult<Report> {
    use futures::StreamExt;
    let mut runs = futures::stream::iter(chunks.into_iter().map(|rows| write(&c, &p, rows)))
        .buffer_unordered(concurrency.max(1));
    let mut report = Report::default();
    while let Some(part) = runs.next().await {
        report.written += part.written;
        report.failed.extend(part.failed);
    }
    Ok(report)
}

/// Write one chunk: plain puts on the wire path, the rest (and the rows it missed) through the
/// crate's batch.
async fn write(c: &RuntimeClient, p: &Natives, rows: Vec<Put>) -> Report {
    let mut report = Report::default();
    let mut rest: Vec<(Put, bool)> = Vec::new();
    let wire = c.wire.enabled()
        && p.wire_batch_put
        && rows
            .iter()
            .all(|r| crate::request::single::writable(&r.bins));
    if wire && !rows.is_empty() {
        let started = Instant::now();
        let (ttl, send_key) = (
            p.batch_write_row.expiration.into(),
            p.batch_write_row.send_key,
        );
        let asks: Vec<Ask> = rows
            .into_iter()
            .map(|r| Ask {
                key: r.key,
                job: Job::Put(r.bins),
                ttl,
                send_key,
            })
            .collect();
        let answers =
            crate::request::batch::read(&c.wire, &c.crate_client, &p.batch_write, &asks).await;
        for (ask, answer) in asks.into_iter().zip(answers) {
            let Job::Put(bins) = ask.job else { continue };
            let put = Put { key: ask.key, bins };
            match answer {
                Answer::Written(_)
                | Answer::Found(_)
                | Answer::Operated(_)
                | Answer::TooDeep(_) => {
                    report.written += 1;
                }
                Answer::NotFound => report.failed.push(refused(put.key, 2, "key not found")),
                Answer::Refused { code, node } | Answer::Stopped { code, node } => {
                    let message = format!("the server refused the write ({node})");
                    report
                        .failed
                        .push(refused(put.key, i32::from(code), &message));
                }
                Answer::NoResponse => rest.push((put, true)),
                Answer::Missed(miss) => match retry::after(
                    miss,
                    &p.batch_write,
                    started,
                    true,
                    retry::Made::first(&p.batch_write),
                ) {
                    Next::Crate { in_doubt, .. } => rest.push((put, in_doubt)),
                    Next::Fail(f) => report.failed.push(Failed {
                        key: put.key,
                        code: f.code,
                        message: f.message,
                        in_doubt: f.in_doubt,
                    }),
                },
            }
        }
    } else {
        rest = rows.into_iter().map(|r| (r, false)).collect();
    }
    if rest.is_empty() {
        return report;
    }
    let (ops, doubts): (Vec<BatchOperation>, Vec<bool>) = rest
        .into_iter()
        .map(|(r, d)| {
            let ops: Vec<_> = r.bins.iter().map(aerospike::operations::put).collect();
            (BatchOperation::write(&p.batch_write_row, r.key, ops), d)
        })
        .unzip();
    let (ops, err) = match crate::request::calls::crate_batch(c, &p.batch_write, ops).await {
        Ok(ran) => ran,
        Err(_) => (
            Vec::new(),
            Some(aerospike::Error::client_error(
                "the batch's task ended without a result",
            )),
        ),
    };
    for (op, earlier_doubt) in ops.into_iter().zip(doubts) {
        let code = op.result_code().map(|c| i32::from(u8::from(c)));
        let record = op.batch_record();
        match (code, record.error(), &err) {
            (Some(0), _, _) => report.written += 1,
            (_, Some(e), _) | (None, None, Some(e)) => report.failed.push(Failed {
                key: record.key.clone(),
                code: crate::errors::code_of(e),
                message: e.to_string(),
                in_doubt: earlier_doubt || crate::errors::in_doubt(e),
            }),
            (Some(code), None, _) => report.failed.push(Failed {
                key: record.key.clone(),
                code,
                message: "the server refused the write".into(),
                in_doubt: earlier_doubt,
            }),
            (None, None, None) => report.failed.push(Failed {
                key: record.key.clone(),
                code: -1,
                message: "no answer for this row".into(),
                in_doubt: true,
            }),
        }
    }
    report
}

fn refused(key: Key, code: i32, message: &str) -> Failed {
    Failed {
        key,
        code,
        message: message.to_owned(),
        in_doubt: false,
    }
}
