//! Expression trees (`(node_name, *args)` tuples) → `aerospike::expressions::Expression`, one
//! file per family: `core` (values, bins, metadata, comparison, logic, arithmetic, control),
//! `list` (`lists.<fn>` reads and modifies), `map` (`maps.<fn>` reads and modifies), `bit`
//! (`bits.<fn>`) and `hll` (`hlls.<fn>`). The names each accepts are the ones `aerospike_fluent/_plan.py` declares
//! (checked by a test).

mod bit;
mod core;
mod hll;
mod list;
mod map;

use aerospike::expressions::Expression;
use pyo3::prelude::*;

/// Maximum nesting depth accepted (guards the Rust stack).
const MAX_DEPTH: usize = 256;

/// Convert a whole expression tree; errors name the offending node.
pub fn to_expression(obj: &Bound<'_, PyAny>) -> PyResult<Expression> {
    crate::safety::guard::sync("expression conversion", || core::node(obj, 0))
}
