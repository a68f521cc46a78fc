//! Result codes this crate returns (wire numbers).

use crate::ResultCode;

pub const OK: ResultCode = 0;
pub const SERVER_ERROR: ResultCode = 1;
pub const KEY_NOT_FOUND: ResultCode = 2;
pub const GENERATION_ERROR: ResultCode = 3;
pub const PARAMETER_ERROR: ResultCode = 4;
pub const KEY_EXISTS: ResultCode = 5;
pub const BIN_EXISTS: ResultCode = 6;
pub const BIN_TYPE_ERROR: ResultCode = 12;
pub const RECORD_TOO_BIG: ResultCode = 13;
pub const BIN_NOT_FOUND: ResultCode = 17;
pub const UNSUPPORTED_FEATURE: ResultCode = 16;
pub const ELEMENT_NOT_FOUND: ResultCode = 23;
pub const ELEMENT_EXISTS: ResultCode = 24;
pub const OP_NOT_APPLICABLE: ResultCode = 26;
pub const FILTERED_OUT: ResultCode = 27;
pub const UDF_BAD_RESPONSE: ResultCode = 100;
