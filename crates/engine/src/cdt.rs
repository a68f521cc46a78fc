//! CDT (list/map) operations: the value bytes of a `CDT_READ`/`CDT_MODIFY` wire op applied to a bin.

use crate::{Particle, ResultCode};

/// What an operation does to its bin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinChange {
    /// The bin is left as it was.
    Unchanged,
    /// The bin takes this new value.
    Set(Particle),
    /// The bin is removed.
    Remove,
}

/// Outcome of one CDT operation: the bin change and the value returned to the client (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdtResult {
    pub bin: BinChange,
    pub value: Option<Particle>,
}

/// Applies one CDT op. `op_type` is the wire op (3 = CDT_READ, 4 = CDT_MODIFY), `bin` the current
/// bin (None when absent), `payload` the op's value bytes exactly as the client sent them.
pub fn apply(op_type: u8, bin: Option<&Particle>, payload: &[u8]) -> Result<CdtResult, ResultCode> {
    let _ = (op_type, bin, payload);
    Err(crate::result::PARAMETER_ERROR)
}
