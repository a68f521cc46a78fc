//! Stream-UDF aggregations: every node runs the stream function up to its first reduce and
//! sends its partial results (bin `SUCCESS`); the client runs the rest of the function over
//! them with the module's own Lua code, fetched from the cluster (`udf-get`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use aerospike::query::{Recordset, Statement};
use aerospike::{Bins, ErrorKind, FloatValue, PartitionFilter, QueryPolicy, Value};
use base64::Engine as _;
use engine::value::{List, Map, Value as EValue};
use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::client::Inner;
use crate::convert::call_args::udf_args;
use crate::convert::values::from_value;
use crate::errors::{error_for_code, join_error};
use crate::exec::completion::{Failure, IntoPy, OpResult};
use crate::policy::Natives;

/// Result code of a failed UDF.
const UDF_BAD_RESPONSE: i32 = 100;
/// Result code of a timeout.
const TIMEOUT: i32 = 9;
/// Client result code of a node lost.
const SERVER_NOT_AVAILABLE: i32 = -8;
/// Total timeout of an aggregation whose query sets none (`Query.timeout(total)` sets one).
pub const DEFAULT_TIMEOUT_MS: u32 = 60_000;
/// How long past the client's deadline the query may run on (and the server is told to stop).
const SERVER_GRACE_MS: u32 = 1_000;

/// A validated aggregation request.
pub struct Spec {
    statement: Statement,
    module: String,
    function: String,
    args: Vec<Value>,
}

impl Spec {
    /// Validate the aggregation arguments.
    pub fn parse(
        namespace: String,
        set_name: String,
        index_filter: Option<&Bound<'_, PyAny>>,
        module: String,
        function: String,
        args: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut statement = Statement::new(namespace, set_name, Bins::All);
        if let Some(f) = index_filter.filter(|f| !f.is_none()) {
            statement.set_filter(crate::crate_calls::indexes::query_filter(f)?);
        }
        let module = module.trim_end_matches(".lua").to_string();
        Ok(Spec {
            statement,
            module,
            function,
            args: udf_args(args)?,
        })
    }
}

/// The aggregation's final values.
pub struct Values(Vec<Value>);

impl IntoPy for Values {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let out = PyList::empty(py);
        for v in &self.0 {
            out.append(from_value(py, v)?)?;
        }
        Ok(out.into_any().unbind())
    }
}

/// The crate's policy for an aggregation due to end by `total_ms`: one attempt, left to run
/// a little past the client's own deadline.
///
/// Nothing is sent twice: a resent aggregation would count records twice. The crate starts
/// another round after a failed one (a node's timeout or lost connection) unless the pause
/// before it would pass the crate's deadline, so the pause is the whole timeout. The
/// timeout is also the query's timeout field: past the client's deadline, so that the client
/// reports its own timeout, and the embedded server stops the orphaned aggregation soon after
/// (a real server does not bound aggregations).
fn one_attempt(query: &QueryPolicy, total_ms: u32) -> QueryPolicy {
    let mut policy = query.clone();
    let base = &mut policy.base_policy;
    base.total_timeout = total_ms.saturating_add(SERVER_GRACE_MS);
    base.socket_timeout = 0;
    base.sleep_between_retries = base.total_timeout;
    policy
}

/// Run the aggregation: partial results from every node, reduced here, by the total timeout.
pub async fn run(i: Arc<Inner>, p: Arc<Natives>, mut spec: Spec) -> OpResult<Values> {
    let total_ms = match p.query.base_policy.total_timeout {
        0 => DEFAULT_TIMEOUT_MS,
        t => t,
    };
    let deadline = Instant::now() + Duration::from_millis(u64::from(total_ms));
    let source = module_source(&i, &spec.module).await?;
    spec.statement
        .set_aggregate_function(&spec.module, &spec.function, &spec.args);
    let rs = i
        .client
        .query(
            &one_attempt(&p.query, total_ms),
            PartitionFilter::all(),
            spec.statement,
        )
        .await?;
    let gathered = tokio::time::timeout_at(deadline.into(), gather(rs.clone(), deadline)).await;
    let Ok(partials) = gathered else {
        rs.close();
        return Err(timed_out(total_ms));
    };
    let partials = partials?;
    let args: Vec<EValue> = spec.args.iter().map(to_engine).collect();
    let (module, function) = (spec.module, spec.function);
    let reduced = tokio::task::spawn_blocking(move || {
        engine::udf::reduce_partials(&module, &source, &function, &args, partials, deadline)
    })
    .await
    .map_err(|e| Failure::Py(join_error(&e)))?
    .map_err(|f| match f.message.as_str() {
        engine::udf::TIMEOUT_MESSAGE => timed_out(total_ms),
        message => udf_failure(message),
    })?;
    Ok(Values(reduced.iter().map(from_engine).collect()))
}

/// The nodes' partial results (bin `SUCCESS`), or the first failure.
async fn gather(rs: Arc<Recordset>, deadline: Instant) -> OpResult<Vec<EValue>> {
    let mut partials = Vec::new();
    let mut stream = rs.into_stream();
    while let Some(item) = stream.next().await {
        let mut rec = item.map_err(|e| ended(e, deadline))?;
        if let Some(v) = rec.bins.swap_remove("SUCCESS") {
            partials.push(to_engine(&v));
        } else if let Some(reason) = rec.bins.swap_remove("FAILURE") {
            return Err(udf_failure(&reason.to_string()));
        }
    }
    Ok(partials)
}

/// The failure of a query that ended with `e` before the client's deadline. The crate
/// reports a failed round (a node's connection lost) as a timeout when it will not retry it.
fn ended(e: aerospike::Error, deadline: Instant) -> Failure {
    if matches!(e.kind(), ErrorKind::Timeout) && Instant::now() < deadline {
        failure(
            SERVER_NOT_AVAILABLE,
            "a node failed during the aggregation, which is not sent again (that would count \
             records twice)",
        )
    } else {
        e.into()
    }
}

fn timed_out(total_ms: u32) -> Failure {
    failure(
        TIMEOUT,
        &format!("aggregation timed out (total timeout {total_ms} ms)"),
    )
}

/// The module's Lua source, as registered on the cluster.
async fn module_source(i: &Inner, module: &str) -> OpResult<Vec<u8>> {
    let command = format!("udf-get:filename={module}.lua");
    let answers = i.client.info(&i.admin, &[command.as_str()]).await?;
    let content = answers
        .get(&command)
        .and_then(|a| a.split(';').find_map(|kv| kv.strip_prefix("content=")))
        .ok_or_else(|| udf_failure(&format!("UDF module not found: {module}")))?;
    base64::engine::general_purpose::STANDARD
        .decode(content.trim())
        .map_err(|_| udf_failure(&format!("UDF module {module}: malformed source")))
}

fn udf_failure(message: &str) -> Failure {
    failure(UDF_BAD_RESPONSE, message)
}

fn failure(code: i32, message: &str) -> Failure {
    Failure::Py(Python::attach(|py| {
        match error_for_code(py, code, message, false, None) {
            Ok(exc) => PyErr::from_value(exc),
            Err(e) => e,
        }
    }))
}

fn to_engine(v: &Value) -> EValue {
    match v {
        Value::Nil => EValue::Nil,
        Value::Bool(b) => EValue::Bool(*b),
        Value::Int(i) => EValue::Int(*i),
        Value::Float(f) => EValue::Float(f64::from(f)),
        Value::String(s) => EValue::Str(s.clone()),
        Value::GeoJson(s) => EValue::GeoJson(s.clone()),
        Value::Blob(b) => EValue::Bytes(engine::particle_type::BLOB, b.clone()),
        Value::List(l) | Value::MultiResult(l) => {
            EValue::List(List::new(0, l.iter().map(to_engine).collect()))
        }
        Value::HashMap(m) => map_to_engine(m.iter()),
        Value::OrderedMap(m) => map_to_engine(m.iter()),
        _ => EValue::Nil,
    }
}

fn map_to_engine<'a>(entries: impl Iterator<Item = (&'a Value, &'a Value)>) -> EValue {
    EValue::Map(Map::new(
        0,
        entries.map(|(k, v)| (to_engine(k), to_engine(v))).collect(),
    ))
}

fn from_engine(v: &EValue) -> Value {
    match v {
        EValue::Bool(b) => Value::Bool(*b),
        EValue::Int(i) => Value::Int(*i),
        EValue::Float(f) => Value::Float(FloatValue::from(*f)),
        EValue::Str(s) => Value::String(s.clone()),
        EValue::GeoJson(s) => Value::GeoJson(s.clone()),
        EValue::Bytes(_, b) => Value::Blob(b.clone()),
        EValue::List(l) => Value::List(l.items.iter().map(from_engine).collect()),
        EValue::Map(m) => Value::HashMap(
            m.entries
                .iter()
                .map(|(k, v)| (from_engine(k), from_engine(v)))
                .collect(),
        ),
        _ => Value::Nil,
    }
}
