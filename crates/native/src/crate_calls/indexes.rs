//! Secondary indexes: definitions (on a bin, a CDT context inside it, or an expression) and
//! the index condition of a query (equality, ranges, collection elements, geo; by bin, by
//! index name or by expression).

use std::sync::Arc;

use aerospike::expressions::Expression;
use aerospike::operations::cdt_context::{self, CdtContext};
use aerospike::query::Filter;
use aerospike::{CollectionIndexType, IndexType, Task, Value};
use base64::Engine;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::client::Inner;
use crate::convert::args::{to_ctx, Args};
use crate::errors::invalid_argument;
use crate::exec::completion::{Failure, OpResult};
use crate::expr::to_expression;
use crate::request::calls::TASK_WAIT;
use crate::request::index::{Bounds, IndexQuery, Source};

/// A validated secondary-index definition.
pub struct IndexSpec {
    ns: String,
    set: String,
    bin: String,
    name: String,
    kind: IndexType,
    collection: CollectionIndexType,
    context: Vec<CdtContext>,
    expression: Option<Expression>,
}

fn index_type(kind: &str) -> PyResult<IndexType> {
    Ok(match kind.to_ascii_lowercase().as_str() {
        "numeric" | "integer" | "int" => IndexType::Numeric,
        "string" | "str" => IndexType::String,
        "geo2dsphere" | "geo" => IndexType::Geo2DSphere,
        "blob" | "bytes" => IndexType::Blob,
        other => {
            return Err(invalid_argument(format!(
                "index type {other:?}: use numeric, string, geo2dsphere or blob"
            )))
        }
    })
}

fn collection_type(name: &str) -> PyResult<CollectionIndexType> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "default" => CollectionIndexType::Default,
        "list" => CollectionIndexType::List,
        "mapkeys" => CollectionIndexType::MapKeys,
        "mapvalues" => CollectionIndexType::MapValues,
        other => {
            return Err(invalid_argument(format!(
                "collection {other:?}: use list, mapkeys or mapvalues"
            )))
        }
    })
}

impl IndexSpec {
    /// Validate names, types, context and expression before anything is sent: an index is on
    /// a bin (with an optional context inside it) or on an expression (empty `bin`).
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        ns: String,
        set: String,
        bin: String,
        name: String,
        kind: &str,
        collection: Option<&str>,
        context: Option<&Bound<'_, PyAny>>,
        expression: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let context = match context {
            Some(c) => to_ctx(c)?,
            None => Vec::new(),
        };
        let expression = expression
            .filter(|e| !e.is_none())
            .map(to_expression)
            .transpose()?;
        match (&expression, bin.is_empty()) {
            (Some(_), false) => {
                return Err(invalid_argument("an expression index takes no bin name"))
            }
            (None, true) => return Err(invalid_argument("an index needs a bin or an expression")),
            _ => {}
        }
        if expression.is_some() && !context.is_empty() {
            return Err(invalid_argument(
                "an expression index takes no context: put the path in the expression",
            ));
        }
        Ok(IndexSpec {
            ns,
            set,
            bin,
            name,
            kind: index_type(kind)?,
            collection: collection.map_or(Ok(CollectionIndexType::Default), collection_type)?,
            context,
            expression,
        })
    }
}

/// Create a secondary index and wait until it is ready.
pub async fn create_index(i: Arc<Inner>, s: IndexSpec) -> OpResult<()> {
    let task = match &s.expression {
        Some(exp) => {
            i.client
                .create_index_using_expression(
                    &i.admin,
                    &s.ns,
                    &s.set,
                    &s.name,
                    s.kind,
                    s.collection,
                    exp,
                )
                .await?
        }
        None => {
            let ctx = (!s.context.is_empty()).then_some(&s.context[..]);
            i.client
                .create_index_on_bin(
                    &i.admin,
                    &s.ns,
                    &s.set,
                    &s.bin,
                    &s.name,
                    s.kind,
                    s.collection,
                    ctx,
                )
                .await?
        }
    };
    task.wait_till_complete(Some(TASK_WAIT))
        .await
        .map_err(|e| refusal(&e.to_string()).unwrap_or(Failure::Native(e, None)))?;
    Ok(())
}

/// A server's refusal quoted in the crate's error about the index's progress
/// (`... sindex-stat failed: ERROR:20:namespace not found on node`): a server takes a
/// definition for a namespace it does not have, then answers for it so.
fn refusal(text: &str) -> Option<Failure> {
    let at = text.find("ERROR:").or_else(|| text.find("FAIL:"))?;
    let mut parts = text[at..].splitn(3, ':');
    parts.next();
    let code = parts.next()?.parse().ok()?;
    Some(Failure::Coded(
        code,
        parts.next().unwrap_or("").trim().to_string(),
    ))
}

/// Drop a secondary index.
pub async fn drop_index(i: Arc<Inner>, ns: String, set: String, name: String) -> OpResult<()> {
    let task = i.client.drop_index(&i.admin, &ns, &set, &name).await?;
    task.wait_till_complete(Some(TASK_WAIT)).await?;
    Ok(())
}

/// A query's index condition from its plan tuple:
/// `(kind, target, args..., collection, context)` where `kind` is `equal`, `range`,
/// `geo_within`, `geo_radius` or `geo_contains`, and `target` is `("bin", name)`,
/// `("index", name)` or `("exp", plan)` (a bare string is a bin name).
pub fn query_filter(f: &Bound<'_, PyAny>) -> PyResult<Filter> {
    query_index(f).map(|(filter, _)| filter)
}

/// [`query_filter`], and the same condition as the fields of a query request.
pub fn query_index(f: &Bound<'_, PyAny>) -> PyResult<(Filter, IndexQuery)> {
    let t = f
        .cast::<PyTuple>()
        .map_err(|_| invalid_argument("index_filter must be a tuple"))?;
    let a = Args::new(t, "index filter")?;
    let target = Target::parse(&a.item(1)?)?;
    let values = |lo: Value, hi: Value| {
        Bounds::values(&lo, &hi)
            .map(|b| (lo, hi, b))
            .map_err(invalid_argument)
    };
    let (filter, bounds, next) = match a.name() {
        "equal" => {
            let (v, _, b) = values(a.value(2)?, a.value(2)?)?;
            (target.equal(v), b, 3)
        }
        "range" => {
            let (lo, hi, b) = values(a.value(2)?, a.value(3)?)?;
            (target.range(lo, hi), b, 4)
        }
        "geo_within" => {
            let region = a.str(2)?;
            (target.geo_region(&region), Bounds::geo(&region), 3)
        }
        "geo_radius" => {
            let (lng, lat, meters) = (a.float(2)?, a.float(3)?, a.float(4)?);
            let circle = format!(
                "{{ \"type\": \"AeroCircle\", \"coordinates\": [[{lng:.8}, {lat:.8}], {meters}] }}"
            );
            (target.geo_radius(lng, lat, meters), Bounds::geo(&circle), 5)
        }
        "geo_contains" => {
            let point = a.str(2)?;
            (target.geo_point(&point), Bounds::geo(&point), 3)
        }
        _ => {
            return Err(a.err(
                "use \"equal\", \"range\", \"geo_within\", \"geo_radius\" or \"geo_contains\"",
            ))
        }
    };
    if a.len() > next + 2 {
        return Err(a.err("too many arguments"));
    }
    let mut filter = filter;
    let mut collection = CollectionIndexType::Default;
    if let Some(c) = (next < a.len()).then(|| a.item(next)).transpose()? {
        if !c.is_none() {
            collection = collection_type(&c.extract::<String>()?)?;
            filter = filter.collection_type(collection);
        }
    }
    let mut context = None;
    if let Some(ctx) = (next + 1 < a.len()).then(|| a.item(next + 1)).transpose()? {
        if !ctx.is_none() {
            let ctx = to_ctx(&ctx)?;
            if !ctx.is_empty() {
                context =
                    Some(cdt_context::to_bytes(&ctx).map_err(|e| invalid_argument(e.to_string()))?);
            }
            filter = filter.context(ctx);
        }
    }
    let source = Source {
        bin: target.bin(),
        index_name: target.index_name(),
        context,
        expression: target.packed_expression()?,
        collection: collection as u8,
    };
    let wire = IndexQuery::new(source, &bounds).map_err(invalid_argument)?;
    Ok((target.finish(filter), wire))
}

/// What an index condition names: a bin, an index, or an expression.
enum Target {
    Bin(String),
    Index(String),
    Exp(Expression),
}

impl Target {
    fn parse(obj: &Bound<'_, PyAny>) -> PyResult<Target> {
        if let Ok(bin) = obj.extract::<String>() {
            return Ok(Target::Bin(bin));
        }
        let (kind, what): (String, Bound<'_, PyAny>) = obj
            .extract()
            .map_err(|_| invalid_argument("index target must be a bin name or (kind, what)"))?;
        match kind.as_str() {
            "bin" => Ok(Target::Bin(what.extract()?)),
            "index" => Ok(Target::Index(what.extract()?)),
            "exp" => Ok(Target::Exp(to_expression(&what)?)),
            other => Err(invalid_argument(format!(
                "index target {other:?}: use bin, index or exp"
            ))),
        }
    }

    fn name(&self) -> &str {
        match self {
            Target::Bin(n) | Target::Index(n) => n,
            Target::Exp(_) => "",
        }
    }

    /// The bin a request names (none for a named or an expression index).
    fn bin(&self) -> &str {
        match self {
            Target::Bin(n) => n,
            _ => "",
        }
    }

    fn index_name(&self) -> Option<&str> {
        match self {
            Target::Index(n) => Some(n),
            _ => None,
        }
    }

    /// The expression of an expression index, packed.
    fn packed_expression(&self) -> PyResult<Option<Vec<u8>>> {
        let Target::Exp(e) = self else {
            return Ok(None);
        };
        let bad = |e: String| invalid_argument(format!("index expression: {e}"));
        let text = e.base64().map_err(|e| bad(e.to_string()))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| bad(e.to_string()))?;
        Ok(Some(bytes))
    }

    fn equal(&self, v: aerospike::Value) -> Filter {
        match self {
            Target::Index(n) => Filter::equal_by_index(n, v),
            _ => Filter::equal(self.name(), v),
        }
    }

    fn range(&self, lo: aerospike::Value, hi: aerospike::Value) -> Filter {
        match self {
            Target::Index(n) => Filter::range_by_index(n, lo, hi),
            _ => Filter::range(self.name(), lo, hi),
        }
    }

    fn geo_region(&self, region: &str) -> Filter {
        match self {
            Target::Index(n) => Filter::geo_within_region_by_index(n, region),
            _ => Filter::geo_within_region(self.name(), region),
        }
    }

    fn geo_radius(&self, lng: f64, lat: f64, meters: f64) -> Filter {
        match self {
            Target::Index(n) => Filter::geo_within_radius_by_index(n, lng, lat, meters),
            _ => Filter::geo_within_radius(self.name(), lng, lat, meters),
        }
    }

    fn geo_point(&self, point: &str) -> Filter {
        match self {
            Target::Index(n) => Filter::geo_contains_by_index(n, point),
            _ => Filter::geo_contains(self.name(), point),
        }
    }

    /// Attach the expression of an expression target.
    fn finish(self, filter: Filter) -> Filter {
        match self {
            Target::Exp(e) => filter.expression(e),
            _ => filter,
        }
    }
}
