//! Bit and HLL calls inside an expression: `[127, return type, module, [code, arg exps...],
//! bin exp]` with module 1 (bits) or 2 (HLL), plus 0x40 for a modify. Each argument is an
//! expression, evaluated before the op runs on the bin's value.

use rmpv::Value as Mp;

use super::eval::{arg, eval, Ctx};
use crate::result::PARAMETER_ERROR;
use crate::value::Value;
use crate::ResultCode;

const BITS: i64 = 1;
const HLL: i64 = 2;
const MODIFY: i64 = 0x40;

/// Evaluates a bits or HLL call (None = unknown).
pub fn call(c: &mut Ctx, module: i64, args: &[Mp]) -> Result<Option<Value>, ResultCode> {
    let Some(Mp::Array(op)) = args.get(2) else {
        return Err(PARAMETER_ERROR);
    };
    let code = op.first().and_then(Mp::as_i64).ok_or(PARAMETER_ERROR)?;
    let mut values = Vec::with_capacity(op.len().saturating_sub(1));
    for e in &op[1..] {
        match eval(c, e)? {
            Some(v) => values.push(v),
            None => return Ok(None),
        }
    }
    let Some(bin) = arg(c, args, 3)? else {
        return Ok(None);
    };
    let modify = module & MODIFY != 0;
    Ok(match module & 0x3f {
        BITS => crate::bits::eval_call(code, &values, modify, &bin),
        HLL => crate::hll::eval_call(code, &values, modify, &bin),
        _ => return Err(crate::result::UNSUPPORTED_FEATURE),
    })
}
