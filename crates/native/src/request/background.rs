//! Background queries over the SDK's own connections: every node of the cluster is sent one
//! request (namespace, set, task id, the index condition, the filter expression, and the ops
//! `ops::wire` encoded or a record UDF) under the header a write of its policy carries, and
//! answers once it has taken the job on. The task is then followed with `query-show`
//! (`crate_calls::background`).

use std::sync::Arc;

use aerospike::{Value, WritePolicy};
use tokio::time::Instant;

use super::operate::head;
use super::single::{begin, field, finish, limits};
use crate::cluster::partitions::Node;
use crate::conn::breaker::MAX_ERROR_RATE;
use crate::conn::pool::{NoLease, Pool};
use crate::convert::message;
use crate::exec::completion::Failure;
use crate::ops::wire::{pack, WireOps};
use crate::request::index::IndexQuery;
use crate::request::scan_request::{AS_MSG, FIELD_NAMESPACE, FIELD_SET};

const FIELD_QUERY_ID: u8 = 7;
const FIELD_SOCKET_TIMEOUT: u8 = 9;
const FIELD_RECORDS_PER_SECOND: u8 = 10;
const FIELD_UDF_PACKAGE: u8 = 30;
const FIELD_UDF_FUNCTION: u8 = 31;
const FIELD_UDF_ARGS: u8 = 32;
const FIELD_UDF_OP: u8 = 33;
const FIELD_FILTER_EXP: u8 = 43;
/// The UDF op of a background job (1 is a stream aggregation).
const UDF_BACKGROUND: u8 = 2;
const INFO3_LAST: u8 = 1;

const OK: u8 = 0;
/// A node without the set answers this: nothing to do there, not a failure.
const KEY_NOT_FOUND: u8 = 2;
const PARAMETER_ERROR: u8 = 4;
const NAMESPACE_NOT_FOUND: u8 = 20;
const UDF_FAILED: u8 = 100;
const INDEX_NOT_FOUND: u8 = 201;

/// What the server applies to each selected record.
pub enum Work {
    /// Write ops, as `ops::wire` encoded them.
    Ops(WireOps),
    /// A record UDF and its arguments.
    Udf {
        module: String,
        function: String,
        args: Vec<Value>,
    },
}

/// A background query: the records it selects and what is done to them.
pub struct Job {
    pub namespace: String,
    pub set_name: String,
    /// The secondary-index condition (none: every record of the set).
    pub index: Option<IndexQuery>,
    pub work: Work,
}

impl Job {
    /// The request every node is sent: `filter` is the packed filter expression, `timeout`
    /// the milliseconds the header tells the server.
    pub fn encode(
        &self,
        p: &WritePolicy,
        filter: Option<&[u8]>,
        timeout: u32,
        task_id: u64,
    ) -> Result<Vec<u8>, String> {
        let mut fields: Vec<(u8, Vec<u8>)> = Vec::with_capacity(12);
        if !self.namespace.is_empty() {
            fields.push((FIELD_NAMESPACE, self.namespace.as_bytes().to_vec()));
        }
        if !self.set_name.is_empty() {
            fields.push((FIELD_SET, self.set_name.as_bytes().to_vec()));
        }
        if p.records_per_second > 0 {
            let rps = p.records_per_second.to_be_bytes().to_vec();
            fields.push((FIELD_RECORDS_PER_SECOND, rps));
        }
        let socket_timeout = p.base_policy.socket_timeout.to_be_bytes().to_vec();
        fields.push((FIELD_SOCKET_TIMEOUT, socket_timeout));
        fields.push((FIELD_QUERY_ID, task_id.to_be_bytes().to_vec()));
        if let Some(index) = &self.index {
            fields.extend(index.fields().map(|(kind, data)| (kind, data.to_vec())));
        }
        let mut ops: &[u8] = &[];
        let count = match &self.work {
            Work::Ops(o) => {
                ops = &o.bytes;
                o.count
            }
            Work::Udf {
                module,
                function,
                args,
            } => {
                let mut packed = Vec::new();
                pack::list(&mut packed, args)?;
                fields.push((FIELD_UDF_OP, vec![UDF_BACKGROUND]));
                fields.push((FIELD_UDF_PACKAGE, module.as_bytes().to_vec()));
                fields.push((FIELD_UDF_FUNCTION, function.as_bytes().to_vec()));
                fields.push((FIELD_UDF_ARGS, packed));
                0
            }
        };
        if let Some(exp) = filter {
            fields.push((FIELD_FILTER_EXP, exp.to_vec()));
        }
        let mut h = head(p, &WireOps::background(count));
        h.timeout = timeout;
        h.fields = u16::try_from(fields.len()).map_err(|_| "too many fields".to_owned())?;
        let mut out = Vec::with_capacity(64 + ops.len());
        begin(&mut out, &h);
        for (kind, data) in &fields {
            field(&mut out, *kind, &[data.as_slice()]);
        }
        out.extend_from_slice(ops);
        finish(&mut out);
        Ok(out)
    }

    /// What the job is, for errors: `background operations on namespace "test" set "s"`.
    fn about(&self) -> String {
        let what = match &self.work {
            Work::Ops(_) => "background operations".to_owned(),
            Work::Udf {
                module, function, ..
            } => format!("background UDF {module}.{function}"),
        };
        format!(
            "{what} on namespace {:?} set {:?}",
            self.namespace, self.set_name
        )
    }
}

/// Send `job` to every node of the cluster; its task id once every node took it on.
pub async fn start(
    client: &aerospike::Client,
    pool: &Arc<Pool>,
    p: &WritePolicy,
    filter: Option<&[u8]>,
    job: &Job,
) -> Result<u64, Failure> {
    // The table the client has, if any: fetching one would cost more than the job's start.
    if pool.lacks_namespace(&job.namespace) {
        let message = format!(
            "{}: namespace {:?} is not served by any node of the cluster",
            job.about(),
            job.namespace
        );
        return Err(Failure::Coded(NAMESPACE_NOT_FOUND.into(), message));
    }
    let nodes: Vec<Arc<Node>> = client.nodes().iter().map(|n| Node::of(n)).collect();
    if nodes.is_empty() {
        let message = format!("{}: no node of the cluster is connected", job.about());
        return Err(Failure::Coded(-8, message));
    }
    let task_id = super::scan::task_id();
    let (until, timeout) = limits(&p.base_policy);
    let request = job
        .encode(p, filter, timeout, task_id)
        .map_err(|why| Failure::Coded(PARAMETER_ERROR.into(), format!("{}: {why}", job.about())))?;
    let sent = nodes
        .iter()
        .map(|node| on_node(pool, node, &request, until, job));
    // Every node is asked even when one refuses: those that took the job on run it.
    let answers = futures::future::join_all(sent).await;
    let took: Vec<&str> = nodes
        .iter()
        .zip(&answers)
        .filter(|(_, a)| a.is_ok())
        .map(|(node, _)| node.name())
        .collect();
    match answers.into_iter().find_map(Result::err) {
        Some(Failure::Coded(code, message)) if !took.is_empty() => {
            let took = took.join(", ");
            let message = format!("{message} (task {task_id} runs on node(s) {took})");
            Err(Failure::Coded(code, message))
        }
        Some(f) => Err(f),
        None => Ok(task_id),
    }
}

/// Send the request to `node` and read its answer.
async fn on_node(
    pool: &Arc<Pool>,
    node: &Node,
    request: &[u8],
    until: Option<Instant>,
    job: &Job,
) -> Result<(), Failure> {
    let unreachable = |why: String| {
        let message = format!(
            "{}: node {} could not be reached: {why}",
            job.about(),
            node.name()
        );
        Failure::Coded(-8, message)
    };
    let conns = pool.conns_of(node);
    let mut lease = match pool.lease(&conns, until).await {
        Ok(lease) => lease,
        Err(NoLease::Busy(n)) => {
            let message = format!(
                "Timeout: {}: every connection to node {} stayed busy until the deadline \
                 (max_conns_per_node={n})",
                job.about(),
                node.name()
            );
            return Err(Failure::Coded(9, message));
        }
        Err(NoLease::Unreachable(e)) => return Err(unreachable(e.to_string())),
        Err(NoLease::Tripped(tripped)) => {
            let message = format!("{}: {}", job.about(), tripped.message());
            return Err(Failure::Coded(MAX_ERROR_RATE, message));
        }
    };
    let conn = lease.conn();
    conn.out.clear();
    conn.out.extend_from_slice(request);
    let answered = async {
        let (mut start, mut size) = (0, conn.exchange(AS_MSG).await?);
        loop {
            let end = start + 8 + size;
            if let Some(outcome) = last_answer(&conn.buf[start + 8..end]) {
                return Some((outcome, end == conn.buf.len()));
            }
            (start, size) = conn.next_frame(end, AS_MSG).await?;
        }
    };
    let answer = match until {
        Some(at) => tokio::time::timeout_at(at, answered).await.map_err(|_| {
            pool.failed(&conns);
            let message = format!(
                "{}: node {} did not answer before the deadline; it may have taken the job on",
                job.about(),
                node.name()
            );
            Failure::Coded(9, message)
        })?,
        None => answered.await,
    };
    let Some((outcome, whole)) = answer else {
        pool.failed(&conns);
        return Err(unreachable(
            "the connection was lost before it answered; it may have taken the job on".into(),
        ));
    };
    if whole {
        lease.release(pool);
    }
    outcome.map_err(|code| refused(job, node, code))
}

/// The node's verdict once a reply holds it: `Ok` (the job runs, or the set is not there),
/// or the refusal's result code; `None` while more replies follow.
fn last_answer(body: &[u8]) -> Option<Result<(), u8>> {
    let mut at = 0;
    while at < body.len() {
        let Ok(m) = message::locate(body, at) else {
            return Some(Err(PARAMETER_ERROR));
        };
        at = m.span.end;
        match m.result_code {
            OK if m.info3 & INFO3_LAST != 0 => return Some(Ok(())),
            OK => {}
            KEY_NOT_FOUND => return Some(Ok(())),
            code => return Some(Err(code)),
        }
    }
    None
}

/// The failure of `node`'s refusal of `job` with `code`, in the SDK's words.
fn refused(job: &Job, node: &Node, code: u8) -> Failure {
    let about = job.about();
    let node = node.name();
    let message = match (code, &job.index, &job.work) {
        (INDEX_NOT_FOUND, Some(index), _) => format!(
            "{about}: no secondary index for {} (node {node} answered error {code}): create \
             one first",
            index.about
        ),
        (NAMESPACE_NOT_FOUND, _, _) => format!(
            "{about}: namespace {:?} is not served by node {node} (error {code})",
            job.namespace
        ),
        (UDF_FAILED, _, Work::Udf { module, .. }) => format!(
            "{about}: node {node} could not start the UDF (error {code}): is module {module:?} \
             registered and does it define the function?"
        ),
        _ => format!("{about}: node {node} refused the job (error {code})"),
    };
    Failure::Coded(i32::from(code), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(work: Work) -> Job {
        Job {
            namespace: "test".into(),
            set_name: "s".into(),
            index: None,
            work,
        }
    }

    #[test]
    fn a_udf_job_names_its_module_function_and_args() {
        let udf = Work::Udf {
            module: "m".into(),
            function: "f".into(),
            args: vec![Value::from(1)],
        };
        let b = job(udf)
            .encode(&WritePolicy::default(), None, 0, 7)
            .unwrap();
        // ns, set, socket timeout, task id, udf op, package, function, args
        assert_eq!(u16::from_be_bytes([b[26], b[27]]), 8);
        assert_eq!(u16::from_be_bytes([b[28], b[29]]), 0);
        assert!(b.ends_with(&[0, 0, 0, 3, FIELD_UDF_ARGS, 0x91, 1]));
        let op = [0, 0, 0, 2, FIELD_UDF_OP, UDF_BACKGROUND];
        assert!(b.windows(op.len()).any(|w| w == op));
        assert_eq!(b[10], 1, "a write");
    }

    #[test]
    fn a_refusal_ends_the_answer_and_a_missing_set_is_no_failure() {
        let message = |code: u8, info3: u8| {
            let mut m = vec![22, 0, 0, info3, 0, code];
            m.resize(22, 0);
            m
        };
        assert_eq!(last_answer(&message(0, 0)), None);
        assert_eq!(last_answer(&message(0, INFO3_LAST)), Some(Ok(())));
        assert_eq!(last_answer(&message(KEY_NOT_FOUND, 0)), Some(Ok(())));
        assert_eq!(
            last_answer(&message(UDF_FAILED, INFO3_LAST)),
            Some(Err(100))
        );
    }
}
