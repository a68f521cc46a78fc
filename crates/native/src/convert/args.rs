//! Positional access to plan tuples (`(name, *args)`) with errors naming the node,
//! plus the shared CDT pieces (contexts, list/map policies).

use aerospike::operations::cdt_context::{
    ctx_list_index, ctx_list_index_create, ctx_list_rank, ctx_list_value, ctx_map_index,
    ctx_map_key, ctx_map_key_create, ctx_map_rank, ctx_map_value, CdtContext,
};
use aerospike::operations::MapOrder;
use aerospike::{ListOrderType, ListPolicy, ListWriteFlags, MapPolicy, MapWriteFlags, Value};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::convert::values::{to_value, Ctx};
use crate::errors::invalid_argument;

/// A plan tuple being decoded: `what()` names it in errors (e.g. `expression node 'gt'`).
pub struct Args<'a, 'py> {
    /// The tuple.
    pub t: &'a Bound<'py, PyTuple>,
    kind: &'static str,
    /// Item 0, checked to be text when wrapped.
    name: Bound<'py, PyString>,
    /// `kind name`, formatted on first use (errors, CDT values): most rows never need it.
    what: std::cell::OnceCell<String>,
}

impl<'a, 'py> Args<'a, 'py> {
    /// Wrap a tuple whose item 0 is its name.
    pub fn new(t: &'a Bound<'py, PyTuple>, kind: &'static str) -> PyResult<Self> {
        let name = t
            .get_item(0)
            .ok()
            .and_then(|n| n.cast_into::<PyString>().ok())
            .filter(|s| s.to_str().is_ok())
            .ok_or_else(|| invalid_argument(format!("{kind}: first item must be a name")))?;
        Ok(Args {
            t,
            kind,
            name,
            what: std::cell::OnceCell::new(),
        })
    }

    /// The tuple's name (item 0), borrowed from the Python string.
    pub fn name(&self) -> &str {
        // checked in `new`; the UTF-8 form is cached on the string
        self.name.to_str().unwrap_or_default()
    }

    /// Description for errors: the kind and name of the tuple.
    pub fn what(&self) -> &str {
        self.what
            .get_or_init(|| format!("{} {:?}", self.kind, self.name()))
    }

    /// Number of items including the name.
    pub fn len(&self) -> usize {
        self.t.len()
    }

    /// An error naming this node.
    pub fn err(&self, msg: impl std::fmt::Display) -> PyErr {
        invalid_argument(format!("{}: {msg}", self.what()))
    }

    /// Require exactly `n` arguments after the name.
    pub fn arity(&self, n: usize) -> PyResult<()> {
        if self.t.len() == n + 1 {
            Ok(())
        } else {
            Err(self.err(format!(
                "expected {n} argument(s), got {}",
                self.t.len().saturating_sub(1)
            )))
        }
    }

    /// Item `i` (1 = first argument).
    pub fn item(&self, i: usize) -> PyResult<Bound<'py, PyAny>> {
        self.t
            .get_item(i)
            .map_err(|_| self.err(format!("missing argument {i}")))
    }

    /// Item `i` as i64.
    pub fn int(&self, i: usize) -> PyResult<i64> {
        let v = self.item(i)?;
        if v.is_instance_of::<pyo3::types::PyBool>() {
            return Err(self.err(format!("argument {i} must be an int")));
        }
        v.extract()
            .map_err(|_| self.err(format!("argument {i} must be an int")))
    }

    /// Item `i` as f64.
    pub fn float(&self, i: usize) -> PyResult<f64> {
        self.item(i)?
            .extract()
            .map_err(|_| self.err(format!("argument {i} must be a float")))
    }

    /// Item `i` as bool.
    pub fn bool(&self, i: usize) -> PyResult<bool> {
        self.item(i)?
            .extract()
            .map_err(|_| self.err(format!("argument {i} must be a bool")))
    }

    /// Item `i` as str.
    pub fn str(&self, i: usize) -> PyResult<String> {
        self.item(i)?
            .extract()
            .map_err(|_| self.err(format!("argument {i} must be a str")))
    }

    /// Item `i` as a value (CDT markers allowed).
    pub fn value(&self, i: usize) -> PyResult<Value> {
        to_value(&self.item(i)?, Ctx::cdt(self.what()))
    }

    /// Item `i` as a list of values.
    pub fn values(&self, i: usize) -> PyResult<Vec<Value>> {
        match self.value(i)? {
            Value::List(l) => Ok(l),
            _ => Err(self.err(format!("argument {i} must be a list"))),
        }
    }

    /// Item `i` as a CDT context tuple.
    pub fn ctx(&self, i: usize) -> PyResult<Vec<CdtContext>> {
        to_ctx(&self.item(i)?)
    }

    /// Item `i` as a `ListPolicy` `(order, flags)`.
    pub fn list_policy(&self, i: usize) -> PyResult<ListPolicy> {
        let (order, flags): (i64, u8) = self
            .item(i)?
            .extract()
            .map_err(|_| self.err(format!("argument {i} must be a list policy (order, flags)")))?;
        Ok(ListPolicy::new(
            list_order(order).map_err(|m| self.err(m))?,
            ListWriteFlags::from_bits(flags),
        ))
    }

    /// Item `i` as a `MapPolicy` `(order, flags)`.
    pub fn map_policy(&self, i: usize) -> PyResult<MapPolicy> {
        let (order, flags): (i64, u8) = self
            .item(i)?
            .extract()
            .map_err(|_| self.err(format!("argument {i} must be a map policy (order, flags)")))?;
        Ok(MapPolicy::new(
            map_order(order).map_err(|m| self.err(m))?,
            MapWriteFlags::from_bits(flags),
        ))
    }
}

/// List order from its int.
pub fn list_order(order: i64) -> Result<ListOrderType, String> {
    match order {
        0 => Ok(ListOrderType::Unordered),
        1 => Ok(ListOrderType::Ordered),
        o => Err(format!("list order must be 0 or 1, got {o}")),
    }
}

/// Map order from its int.
pub fn map_order(order: i64) -> Result<MapOrder, String> {
    match order {
        0 => Ok(MapOrder::Unordered),
        1 => Ok(MapOrder::KeyOrdered),
        3 => Ok(MapOrder::KeyValueOrdered),
        o => Err(format!("map order must be 0, 1 or 3, got {o}")),
    }
}

/// Convert a ctx tuple `(("list_index", 1), ("map_key", "a"), ...)`.
pub fn to_ctx(obj: &Bound<'_, PyAny>) -> PyResult<Vec<CdtContext>> {
    if obj.is_none() {
        return Ok(Vec::new());
    }
    let steps = obj
        .cast::<PyTuple>()
        .map_err(|_| invalid_argument("ctx must be a tuple of steps"))?;
    let mut out = Vec::with_capacity(steps.len());
    for step in steps.iter() {
        let st = step
            .cast::<PyTuple>()
            .map_err(|_| invalid_argument("ctx step must be a tuple (kind, ...)"))?;
        let a = Args::new(st, "ctx step")?;
        out.push(match a.name() {
            "list_index" => {
                a.arity(1)?;
                ctx_list_index(a.int(1)?)
            }
            "list_index_create" => {
                a.arity(3)?;
                let order = list_order(a.int(2)?).map_err(|m| a.err(m))?;
                ctx_list_index_create(a.int(1)?, order, a.bool(3)?)
            }
            "list_rank" => {
                a.arity(1)?;
                ctx_list_rank(a.int(1)?)
            }
            "list_value" => {
                a.arity(1)?;
                ctx_list_value(a.value(1)?)
            }
            "map_key" => {
                a.arity(1)?;
                ctx_map_key(a.value(1)?)
            }
            "map_key_create" => {
                a.arity(2)?;
                let order = map_order(a.int(2)?).map_err(|m| a.err(m))?;
                ctx_map_key_create(a.value(1)?, order)
            }
            "map_index" => {
                a.arity(1)?;
                ctx_map_index(a.int(1)?)
            }
            "map_rank" => {
                a.arity(1)?;
                ctx_map_rank(a.int(1)?)
            }
            "map_value" => {
                a.arity(1)?;
                ctx_map_value(a.value(1)?)
            }
            _ => return Err(a.err("unknown ctx step")),
        });
    }
    Ok(out)
}
