//! What the bit and HLL families share: their op payload `[code, args...]`, their outcome, and
//! how a wire op or an expression call runs one on a bin.

use bytes::Bytes;
use rmpv::Value as Mp;

use crate::cdt::{BinChange, CdtResult};
use crate::pack::{from_mp, read_mp, to_particle};
use crate::result::PARAMETER_ERROR;
use crate::value::Value;
use crate::{Particle, ResultCode};

/// What one op produced: the value it returns and the new bin bytes (None leaves the bin).
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    pub value: Option<Value>,
    pub blob: Option<Vec<u8>>,
}

/// A bin as the families see it: (particle type, bytes).
pub type Bin<'a> = Option<(u8, &'a [u8])>;

/// Splits an op payload `[code, args...]` into the code and the decoded arguments.
pub fn split(payload: &[u8]) -> Result<(i64, Vec<Value>), ResultCode> {
    let mut buf = payload;
    let Mp::Array(items) = read_mp(&mut buf)? else {
        return Err(PARAMETER_ERROR);
    };
    let mut it = items.into_iter();
    let c = it.next().and_then(|m| m.as_i64()).ok_or(PARAMETER_ERROR)?;
    Ok((c, it.map(from_mp).collect::<Result<_, _>>()?))
}

/// Runs a wire op: a read of a missing bin answers nothing (whatever its arguments); a change
/// stores the new bytes with particle type `ptype`.
pub fn on_wire(
    modify: bool,
    bin: Option<&Particle>,
    payload: &[u8],
    ptype: u8,
    run: impl FnOnce(i64, &[Value], Bin<'_>) -> Result<Outcome, ResultCode>,
) -> Result<CdtResult, ResultCode> {
    if !modify && bin.is_none() {
        return Ok(CdtResult {
            bin: BinChange::Unchanged,
            value: None,
        });
    }
    let (c, args) = split(payload)?;
    let out = run(c, &args, bin.map(|p| (p.ptype, &p.data[..])))?;
    Ok(CdtResult {
        bin: match out.blob {
            Some(b) => BinChange::Set(Particle {
                ptype,
                data: Bytes::from(b),
            }),
            None => BinChange::Unchanged,
        },
        value: out.value.as_ref().and_then(to_particle),
    })
}

/// Runs an op inside an expression on the value `bin`: a modify answers the new bytes (as
/// `ptype`), a read its value; errors and non-byte bins are unknown (None).
pub fn in_expression(
    modify: bool,
    bin: &Value,
    ptype: u8,
    run: impl FnOnce(Bin<'_>) -> Result<Outcome, ResultCode>,
) -> Option<Value> {
    let Value::Bytes(t, data) = bin else {
        return None;
    };
    let out = run(Some((*t, data))).ok()?;
    if modify {
        Some(Value::Bytes(
            ptype,
            out.blob.unwrap_or_else(|| data.clone()),
        ))
    } else {
        out.value
    }
}
