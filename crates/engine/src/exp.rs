//! Filter expressions (wire format: msgpack) and expression read/write operations.

use crate::{Particle, RecordView, ResultCode};

/// Evaluates a filter expression (field type 43) against `rec`; `Ok(false)` = filtered out.
pub fn matches(exp: &[u8], rec: &dyn RecordView) -> Result<bool, ResultCode> {
    let _ = (exp, rec);
    Err(crate::result::PARAMETER_ERROR)
}

/// Evaluates a packed expression to a value (None = nil/unknown).
pub fn eval(exp: &[u8], rec: &dyn RecordView) -> Result<Option<Particle>, ResultCode> {
    let _ = (exp, rec);
    Err(crate::result::PARAMETER_ERROR)
}
