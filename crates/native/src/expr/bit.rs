//! `bits.<fn>` read expressions on a blob: args in the crate's order, the blob expression last.

use aerospike::expressions::{bitwise as xb, Expression};
use pyo3::prelude::*;

use super::core::sub;
use crate::args::Args;

/// `bits.<fn>`: offset and size (and the scanned bit) are expressions, `signed` a bool.
pub(super) fn node(f: &str, a: &Args<'_, '_>, depth: usize) -> PyResult<Expression> {
    let s = |i: usize| sub(a, i, depth);
    match f {
        "get" | "count" => {
            a.arity(3)?;
            let build = if f == "get" { xb::get } else { xb::count };
            Ok(build(s(1)?, s(2)?, s(3)?))
        }
        "lscan" | "rscan" => {
            a.arity(4)?;
            let build = if f == "lscan" { xb::lscan } else { xb::rscan };
            Ok(build(s(1)?, s(2)?, s(3)?, s(4)?))
        }
        "get_int" => {
            a.arity(4)?;
            Ok(xb::get_int(s(1)?, s(2)?, a.bool(3)?, s(4)?))
        }
        _ => Err(a.err("unknown bit expression")),
    }
}
