//! Stream-UDF aggregations: every node runs the stream function up to its first reduce and
//! sends its partial results (bin `SUCCESS`); the client runs the rest of the function over
//! them with the module's own Lua code, fetched from the cluster (`udf-get`).

use std::sync::Arc;

use aerospike::query::Statement;
use aerospike::{Bins, FloatValue, PartitionFilter, Value};
use base64::Engine as _;
use engine::value::{List, Map, Value as EValue};
use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::call_args::udf_args;
use crate::client::Inner;
use crate::completion::{Failure, IntoPy, OpResult};
use crate::errors::{error_for_code, join_error};
use crate::policy::Natives;
use crate::values::from_value;

/// Result code of a failed UDF.
const UDF_BAD_RESPONSE: i32 = 100;

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
            statement.set_filter(crate::indexes::query_filter(f)?);
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

/// Run the aggregation: partial results from every node, reduced here.
pub async fn run(i: Arc<Inner>, p: Arc<Natives>, mut spec: Spec) -> OpResult<Values> {
    let source = module_source(&i, &spec.module).await?;
    spec.statement
        .set_aggregate_function(&spec.module, &spec.function, &spec.args);
    let mut policy = p.query.clone();
    // A retried partition would feed the same partial results twice.
    policy.base_policy.max_retries = 0;
    let rs = i
        .client
        .query(&policy, PartitionFilter::all(), spec.statement)
        .await?;
    let mut partials = Vec::new();
    let mut stream = rs.into_stream();
    while let Some(item) = stream.next().await {
        let mut rec = item?;
        if let Some(v) = rec.bins.swap_remove("SUCCESS") {
            partials.push(to_engine(&v));
        } else if let Some(reason) = rec.bins.swap_remove("FAILURE") {
            return Err(udf_failure(&reason.to_string()));
        }
    }
    let args: Vec<EValue> = spec.args.iter().map(to_engine).collect();
    let (module, function) = (spec.module, spec.function);
    let reduced = tokio::task::spawn_blocking(move || {
        engine::udf::reduce_partials(&module, &source, &function, &args, partials)
    })
    .await
    .map_err(|e| Failure::Py(join_error(&e)))?
    .map_err(|f| udf_failure(&f.message))?;
    Ok(Values(reduced.iter().map(from_engine).collect()))
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
    Failure::Py(Python::attach(|py| {
        match error_for_code(py, UDF_BAD_RESPONSE, message, false, None) {
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
