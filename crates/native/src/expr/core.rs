//! Core expression nodes; `lists.*`, `maps.*`, `bits.*` and `hlls.*` nodes go to their own
//! files.

use aerospike::expressions::{self as x, ExpType, Expression};
use aerospike::operations::cdt_context::CdtContext;
use aerospike::RegexFlags;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::MAX_DEPTH;
use crate::convert::args::Args;
use crate::errors::invalid_argument;

pub(super) fn exp_type(a: &Args<'_, '_>, i: usize) -> PyResult<ExpType> {
    Ok(match a.int(i)? {
        0 => ExpType::Nil,
        1 => ExpType::Bool,
        2 => ExpType::Int,
        3 => ExpType::String,
        4 => ExpType::List,
        5 => ExpType::Map,
        6 => ExpType::Blob,
        7 => ExpType::Float,
        8 => ExpType::Geo,
        9 => ExpType::Hll,
        t => return Err(a.err(format!("unknown expression type {t}"))),
    })
}

/// Argument `i` of a node at `depth`, as an expression.
pub(super) fn sub(a: &Args<'_, '_>, i: usize, depth: usize) -> PyResult<Expression> {
    node(&a.item(i)?, depth + 1)
}

/// Argument `i` of a node at `depth`, as an expression unless it is None.
pub(super) fn optional_sub(
    a: &Args<'_, '_>,
    i: usize,
    depth: usize,
) -> PyResult<Option<Expression>> {
    let v = a.item(i)?;
    if v.is_none() {
        return Ok(None);
    }
    node(&v, depth + 1).map(Some)
}

/// The CDT context of a list or map node: its last argument.
pub(super) fn trailing_ctx(a: &Args<'_, '_>) -> PyResult<Vec<CdtContext>> {
    a.ctx(a.len().saturating_sub(1).max(1))
}

pub(super) fn node(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Expression> {
    let t = obj.cast::<PyTuple>().map_err(|_| {
        invalid_argument(format!(
            "expression node must be a tuple (name, *args), got {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    if depth > MAX_DEPTH {
        return Err(invalid_argument("expression nested too deeply"));
    }
    let a = Args::new(t, "expression node")?;
    let name = a.name();
    let sub = |i: usize| -> PyResult<Expression> { node(&a.item(i)?, depth + 1) };
    let subs_from = |i: usize| -> PyResult<Vec<Expression>> {
        (i..a.len()).map(|j| node(&a.item(j)?, depth + 1)).collect()
    };
    let two = |f: fn(Expression, Expression) -> Expression| -> PyResult<Expression> {
        a.arity(2)?;
        Ok(f(sub(1)?, sub(2)?))
    };
    let one = |f: fn(Expression) -> Expression| -> PyResult<Expression> {
        a.arity(1)?;
        Ok(f(sub(1)?))
    };
    let many = |f: fn(Vec<Expression>) -> Expression, min: usize| -> PyResult<Expression> {
        let v = subs_from(1)?;
        if v.len() < min {
            return Err(a.err(format!("expected at least {min} operand(s)")));
        }
        Ok(f(v))
    };
    let meta = |f: fn() -> Expression| -> PyResult<Expression> {
        a.arity(0)?;
        Ok(f())
    };
    let bin = |f: fn(String) -> Expression| -> PyResult<Expression> {
        a.arity(1)?;
        Ok(f(a.str(1)?))
    };
    if let Some(rest) = name.strip_prefix("lists.") {
        return super::list::node(rest, &a, depth);
    }
    if let Some(rest) = name.strip_prefix("maps.") {
        return super::map::node(rest, &a, depth);
    }
    if let Some(rest) = name.strip_prefix("bits.") {
        return super::bit::node(rest, &a, depth);
    }
    if let Some(rest) = name.strip_prefix("hlls.") {
        return super::hll::node(rest, &a, depth);
    }
    match name {
        "int_bin" => bin(x::int_bin),
        "float_bin" => bin(x::float_bin),
        "string_bin" => bin(x::string_bin),
        "bool_bin" => bin(x::bool_bin),
        "blob_bin" => bin(x::blob_bin),
        "geo_bin" => bin(x::geo_bin),
        "list_bin" => bin(x::list_bin),
        "map_bin" => bin(x::map_bin),
        "hll_bin" => bin(x::hll_bin),
        "bin_exists" => bin(x::bin_exists),
        "bin_type" => bin(x::bin_type),
        "var" => bin(x::var),
        "bin" => {
            a.arity(2)?;
            Ok(x::bin(a.str(1)?, exp_type(&a, 2)?))
        }
        "key" => {
            a.arity(1)?;
            Ok(x::key(exp_type(&a, 1)?))
        }
        "int_val" => {
            a.arity(1)?;
            Ok(x::int_val(a.int(1)?))
        }
        "float_val" => {
            a.arity(1)?;
            Ok(x::float_val(a.float(1)?))
        }
        "bool_val" => {
            a.arity(1)?;
            Ok(x::bool_val(a.bool(1)?))
        }
        "string_val" => {
            a.arity(1)?;
            Ok(x::string_val(a.str(1)?))
        }
        "geo_val" => {
            a.arity(1)?;
            Ok(x::geo_val(a.str(1)?))
        }
        "blob_val" => {
            a.arity(1)?;
            let b: Vec<u8> = a
                .item(1)?
                .extract()
                .map_err(|_| a.err("argument 1 must be bytes"))?;
            Ok(x::blob_val(b))
        }
        "list_val" => {
            a.arity(1)?;
            Ok(x::list_val(a.values(1)?))
        }
        "map_val" => {
            a.arity(1)?;
            match a.value(1)? {
                aerospike::Value::OrderedMap(m) => Ok(x::map_val(m)),
                aerospike::Value::HashMap(m) => Ok(x::map_val(m)),
                _ => Err(a.err("argument 1 must be a dict")),
            }
        }
        "nil" => meta(x::nil),
        "infinity" => meta(x::infinity),
        "wildcard" => meta(x::wildcard),
        "key_exists" => meta(x::key_exists),
        "set_name" => meta(x::set_name),
        "record_size" => meta(x::record_size),
        "last_update" => meta(x::last_update),
        "since_update" => meta(x::since_update),
        "void_time" => meta(x::void_time),
        "ttl" => meta(x::ttl),
        "is_tombstone" => meta(x::is_tombstone),
        "digest_modulo" => {
            a.arity(1)?;
            Ok(x::digest_modulo(a.int(1)?))
        }
        "regex_compare" => {
            a.arity(3)?;
            Ok(x::regex_compare(
                a.str(1)?,
                RegexFlags::from_bits(a.int(2)?),
                sub(3)?,
            ))
        }
        "geo_compare" => two(x::geo_compare),
        "not" => one(x::not),
        "and" => many(x::and, 1),
        "or" => many(x::or, 1),
        "xor" => many(x::xor, 2),
        "exclusive" => many(x::exclusive, 2),
        "eq" => two(x::eq),
        "ne" => two(x::ne),
        "gt" => two(x::gt),
        "ge" => two(x::ge),
        "lt" => two(x::lt),
        "le" => two(x::le),
        "num_add" => many(x::num_add, 1),
        "num_sub" => many(x::num_sub, 1),
        "num_mul" => many(x::num_mul, 1),
        "num_div" => many(x::num_div, 1),
        "num_pow" => two(x::num_pow),
        "num_log" => two(x::num_log),
        "num_mod" => two(x::num_mod),
        "num_abs" => one(x::num_abs),
        "num_floor" => one(x::num_floor),
        "num_ceil" => one(x::num_ceil),
        "to_int" => one(x::to_int),
        "to_float" => one(x::to_float),
        "int_and" => many(x::int_and, 1),
        "int_or" => many(x::int_or, 1),
        "int_xor" => many(x::int_xor, 1),
        "int_not" => one(x::int_not),
        "int_lshift" => two(x::int_lshift),
        "int_rshift" => two(x::int_rshift),
        "int_arshift" => two(x::int_arshift),
        "int_count" => one(x::int_count),
        "int_lscan" => two(x::int_lscan),
        "int_rscan" => two(x::int_rscan),
        "min" => many(x::min, 1),
        "max" => many(x::max, 1),
        "cond" => many(x::cond, 3),
        "exp_let" | "let" => many(x::exp_let, 2),
        "def" => {
            a.arity(2)?;
            Ok(x::def(a.str(1)?, sub(2)?))
        }
        "in_list" => two(x::in_list),
        "map_keys" => one(x::map_keys),
        "map_values" => one(x::map_values),
        "unknown" => meta(x::unknown),
        _ => Err(a.err("unknown expression node")),
    }
}
