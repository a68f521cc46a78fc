//! Positional arguments of a CDT op (`[op, arg1, arg2, ...]`).

use rmpv::Value as Mp;

use crate::pack::from_mp;
use crate::result::PARAMETER_ERROR;
use crate::value::{List, Value};
use crate::ResultCode;

/// The op's arguments after the op code.
pub struct Args(pub Vec<Mp>);

impl Args {
    /// Integer argument `i` (required).
    pub fn int(&self, i: usize) -> Result<i64, ResultCode> {
        self.opt_int(i)?.ok_or(PARAMETER_ERROR)
    }
    /// Integer argument `i`, None when absent.
    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, ResultCode> {
        match self.0.get(i) {
            None => Ok(None),
            Some(Mp::Integer(n)) => n
                .as_i64()
                .or_else(|| n.as_u64().map(|u| u as i64))
                .map(Some)
                .ok_or(PARAMETER_ERROR),
            Some(_) => Err(PARAMETER_ERROR),
        }
    }
    /// Value argument `i` (required).
    pub fn val(&self, i: usize) -> Result<Value, ResultCode> {
        self.opt_val(i)?.ok_or(PARAMETER_ERROR)
    }
    /// Value argument `i`, None when absent.
    pub fn opt_val(&self, i: usize) -> Result<Option<Value>, ResultCode> {
        self.0.get(i).cloned().map(from_mp).transpose()
    }
    /// List argument `i` (required).
    pub fn list(&self, i: usize) -> Result<List, ResultCode> {
        match self.val(i)? {
            Value::List(l) => Ok(l),
            _ => Err(PARAMETER_ERROR),
        }
    }
}
