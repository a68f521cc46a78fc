//! HyperLogLog ops (`hll_<fn>` tuples): `(name, bin, *args)`, index and MinHash bit counts as
//! ints (-1 = unset), the write flags last.

use aerospike::operations::hll::{self as h, HllPolicy, HllWriteFlags};
use aerospike::operations::Operation;
use aerospike::Value;
use pyo3::prelude::*;

use super::{reads, writes};
use crate::convert::args::Args;

fn policy(a: &Args<'_, '_>, i: usize) -> PyResult<HllPolicy> {
    let flags = u8::try_from(a.int(i)?).map_err(|_| a.err("HLL write flags out of range"))?;
    Ok(HllPolicy::new(HllWriteFlags::from_bits(flags)))
}

/// Argument `i` as a list of sketches (bytes), sent as HLL values.
fn sketches(a: &Args<'_, '_>, i: usize) -> PyResult<Vec<Value>> {
    a.values(i)?
        .into_iter()
        .map(|v| match v {
            Value::Blob(b) | Value::Hll(b) => Ok(Value::Hll(b)),
            _ => Err(a.err("HLL sketches must be bytes")),
        })
        .collect()
}

/// `hll_<fn>`: args start at tuple index 2.
pub(super) fn op(f: &str, a: &Args<'_, '_>, bin: String) -> PyResult<(Operation, bool)> {
    let need = |k: usize| a.arity(k + 1);
    match f {
        "init" => {
            need(3)?;
            let p = policy(a, 4)?;
            writes(h::init_with_min_hash(&p, bin, a.int(2)?, a.int(3)?))
        }
        "add" => {
            need(4)?;
            let p = policy(a, 5)?;
            let items = a.values(2)?;
            writes(h::add_with_index_and_min_hash(
                &p,
                bin,
                items,
                a.int(3)?,
                a.int(4)?,
            ))
        }
        "set_union" => {
            need(2)?;
            writes(h::set_union(&policy(a, 3)?, bin, sketches(a, 2)?))
        }
        "refresh_count" => {
            need(0)?;
            writes(h::refresh_count(bin))
        }
        "fold" => {
            need(1)?;
            writes(h::fold(bin, a.int(2)?))
        }
        "get_count" => {
            need(0)?;
            reads(h::get_count(bin))
        }
        "describe" => {
            need(0)?;
            reads(h::describe(bin))
        }
        "get_union" | "get_union_count" | "get_intersect_count" | "get_similarity" => {
            need(1)?;
            let build = match f {
                "get_union" => h::get_union,
                "get_union_count" => h::get_union_count,
                "get_intersect_count" => h::get_intersect_count,
                _ => h::get_similarity,
            };
            reads(build(bin, sketches(a, 2)?))
        }
        _ => Err(a.err("unknown op")),
    }
}
