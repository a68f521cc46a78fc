//! Evaluator for the packed expression tree (`[op, args...]` arrays; anything else is a literal).
//!
//! `None` results mean *unknown* (missing bin, type mismatch): filters treat them as false.

use std::time::{SystemTime, UNIX_EPOCH};

use rmpv::Value as Mp;

use super::geo;
use crate::cdt::{apply_value, path, Op};
use crate::pack::{encode, from_mp, from_particle, read_mp};
use crate::result::PARAMETER_ERROR;
use crate::value::{List, Value};
use crate::{RecordView, ResultCode};

type R = Result<Option<Value>, ResultCode>;

/// The loop variables of a path expression's element: its map key, its value, its list index.
#[derive(Clone, Copy, Default)]
pub struct LoopVars<'a> {
    pub key: Option<&'a Value>,
    pub value: Option<&'a Value>,
    pub index: Option<i64>,
}

/// Evaluation state: the record (none for a path expression's element), the `let` variable
/// scope and the loop variables.
pub struct Ctx<'a> {
    pub rec: Option<&'a dyn RecordView>,
    vars: Vec<(String, Option<Value>)>,
    loop_vars: LoopVars<'a>,
}

impl<'a> Ctx<'a> {
    pub fn new(rec: &'a dyn RecordView) -> Self {
        Ctx {
            rec: Some(rec),
            vars: Vec::new(),
            loop_vars: LoopVars::default(),
        }
    }

    /// An element's context: no record (bins and metadata are unknown), its loop variables.
    pub fn element(loop_vars: LoopVars<'a>) -> Self {
        Ctx {
            rec: None,
            vars: Vec::new(),
            loop_vars,
        }
    }
}

fn raw_str(m: &Mp) -> Result<String, ResultCode> {
    match m {
        Mp::String(s) => Ok(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        _ => Err(PARAMETER_ERROR),
    }
}

pub(super) fn int_arg(m: Option<&Mp>) -> Result<i64, ResultCode> {
    m.and_then(Mp::as_i64).ok_or(PARAMETER_ERROR)
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Evaluates one expression node.
pub fn eval(c: &mut Ctx, e: &Mp) -> R {
    let Mp::Array(a) = e else {
        return from_mp(e.clone()).map(Some);
    };
    let Some(op) = a.first().and_then(Mp::as_i64) else {
        return Err(PARAMETER_ERROR);
    };
    let args = &a[1..];
    match op {
        0 => Ok(None),
        1..=6 => compare(c, op, args),
        7 => regex(c, args),
        8 => {
            let (l, r) = (arg(c, args, 0)?, arg(c, args, 1)?);
            Ok(match (l, r) {
                (Some(Value::GeoJson(l)), Some(Value::GeoJson(r))) => {
                    Some(Value::Bool(geo::compare(&l, &r)))
                }
                _ => None,
            })
        }
        9 => {
            let (v, l) = (arg(c, args, 0)?, arg(c, args, 1)?);
            Ok(match (v, l) {
                (Some(v), Some(Value::List(l))) => Some(Value::Bool(l.items.contains(&v))),
                _ => None,
            })
        }
        16 | 17 => logic(c, op == 16, args),
        18 => Ok(match arg(c, args, 0)? {
            Some(Value::Bool(b)) => Some(Value::Bool(!b)),
            _ => None,
        }),
        19 => {
            let mut acc = false;
            for i in 0..args.len() {
                match arg(c, args, i)? {
                    Some(Value::Bool(b)) => acc ^= b,
                    _ => return Ok(None),
                }
            }
            Ok(Some(Value::Bool(acc)))
        }
        40 | 41 => Ok(match (arg(c, args, 0)?, arg(c, args, 1)?) {
            (Some(Value::Int(v)), Some(Value::Bool(b))) => {
                Some(Value::Int(super::math::scan(op, v, b)))
            }
            _ => None,
        }),
        20..=39 | 50 | 51 => super::math::eval(op, &all(c, args)?),
        64..=82 => match c.rec {
            Some(rec) => record(rec, op, args),
            None => Ok(None),
        },
        // The remove marker: its static type (see `element`) tells it from a nil.
        100 => Ok(Some(Value::Nil)),
        122 => Ok(loop_var(&c.loop_vars, args)),
        123 => {
            let mut i = 0;
            while i + 1 < args.len() {
                // A condition that is unknown (a missing bin, a division by zero) makes the
                // whole `cond` unknown, as on a real node: it does not fall through.
                match arg(c, args, i)? {
                    Some(Value::Bool(true)) => return arg(c, args, i + 1),
                    Some(Value::Bool(false)) => {}
                    _ => return Ok(None),
                }
                i += 2;
            }
            if i < args.len() {
                arg(c, args, i)
            } else {
                Ok(None)
            }
        }
        124 => {
            let name = raw_str(args.first().ok_or(PARAMETER_ERROR)?)?;
            let v = c
                .vars
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .ok_or(PARAMETER_ERROR)?;
            Ok(v.1.clone())
        }
        125 => {
            let depth = c.vars.len();
            let mut i = 0;
            while i + 1 < args.len() {
                let name = raw_str(&args[i])?;
                let v = arg(c, args, i + 1)?;
                c.vars.push((name, v));
                i += 2;
            }
            let out = if i < args.len() {
                arg(c, args, i)
            } else {
                Err(PARAMETER_ERROR)
            };
            c.vars.truncate(depth);
            out
        }
        101 | 102 => Ok(match arg(c, args, 0)? {
            Some(Value::Map(m)) => Some(Value::List(List {
                flags: 0,
                items: m
                    .entries
                    .into_iter()
                    .map(|(k, v)| if op == 101 { k } else { v })
                    .collect(),
            })),
            _ => None,
        }),
        126 => args.first().cloned().map(from_mp).transpose(),
        127 => call(c, args),
        _ => Err(PARAMETER_ERROR),
    }
}

/// Record metadata and bin reads (ops 64..=82).
fn record(rec: &dyn RecordView, op: i64, args: &[Mp]) -> R {
    match op {
        64 => {
            // The digest's last four bytes, little-endian, modulo the request's int32.
            let m = i64::from(int_arg(args.first())? as i32);
            let d = rec.digest();
            let v = i64::from(u32::from_le_bytes([d[16], d[17], d[18], d[19]]));
            Ok((m != 0).then(|| Value::Int(v % m)))
        }
        65 | 73 | 74 => Ok(Some(Value::Int(rec.size_bytes() as i64))),
        66 => Ok(Some(Value::Int(rec.last_update_ns() as i64))),
        67 => Ok(Some(Value::Int(
            (now_ns().saturating_sub(rec.last_update_ns()) / 1_000_000) as i64,
        ))),
        68 => Ok(Some(Value::Int(match rec.void_time_ns() {
            0 => -1,
            v => v as i64,
        }))),
        69 => Ok(Some(Value::Int(match rec.void_time_ns() {
            0 => -1,
            v => (v.saturating_sub(now_ns()) / 1_000_000_000) as i64,
        }))),
        70 => Ok(Some(Value::Str(rec.set_name().to_string()))),
        71 => Ok(Some(Value::Bool(rec.user_key().is_some()))),
        72 => Ok(Some(Value::Bool(!rec.exists()))),
        80 => Ok(rec.user_key().map(from_particle).transpose()?),
        81 => {
            let name = raw_str(args.get(1).ok_or(PARAMETER_ERROR)?)?;
            let want = int_arg(args.first())?;
            let v = rec.bin(&name).map(from_particle).transpose()?;
            Ok(v.filter(|v| type_ok(v, want)))
        }
        82 => {
            let name = raw_str(args.first().ok_or(PARAMETER_ERROR)?)?;
            Ok(Some(Value::Int(
                rec.bin(&name).map_or(0, |p| i64::from(p.ptype)),
            )))
        }
        _ => Err(PARAMETER_ERROR),
    }
}

/// `[122, type, id]`: loop variable `id` (0 key, 1 value, 2 index) when it holds a value of
/// expression type `type`, else unknown. Blob and HLL are told apart by their bytes' type.
fn loop_var(vars: &LoopVars, args: &[Mp]) -> Option<Value> {
    let want = args.first().and_then(Mp::as_i64)?;
    let v = match args.get(1).and_then(Mp::as_i64)? {
        0 => vars.key.cloned(),
        1 => vars.value.cloned(),
        2 => vars.index.map(Value::Int),
        _ => None,
    }?;
    let bytes_ok = match &v {
        Value::Bytes(t, _) => matches!((want, *t), (6, 4) | (9, 18)),
        _ => true,
    };
    (bytes_ok && type_ok(&v, want)).then_some(v)
}

pub(super) fn arg(c: &mut Ctx, args: &[Mp], i: usize) -> R {
    eval(c, args.get(i).ok_or(PARAMETER_ERROR)?)
}

fn all(c: &mut Ctx, args: &[Mp]) -> Result<Vec<Option<Value>>, ResultCode> {
    (0..args.len()).map(|i| arg(c, args, i)).collect()
}

/// Whether `v` has expression type `t` (0 nil, 1 bool, 2 int, 3 string, 4 list, 5 map, 6 blob,
/// 7 float, 8 geo, 9 hll).
fn type_ok(v: &Value, t: i64) -> bool {
    matches!(
        (t, v),
        (0, Value::Nil)
            | (1, Value::Bool(_))
            | (2, Value::Int(_))
            | (3, Value::Str(_))
            | (4, Value::List(_))
            | (5, Value::Map(_))
            | (6, Value::Bytes(..))
            | (7, Value::Float(_))
            | (8, Value::GeoJson(_))
            | (9, Value::Bytes(18, _))
    )
}

fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn compare(c: &mut Ctx, op: i64, args: &[Mp]) -> R {
    let (Some(l), Some(r)) = (arg(c, args, 0)?, arg(c, args, 1)?) else {
        return Ok(None);
    };
    if !same_kind(&l, &r) && !matches!(r, Value::Wildcard | Value::Inf | Value::Nil) {
        return Ok(Some(Value::Bool(op == 2)));
    }
    let o = l.cmp(&r);
    use std::cmp::Ordering::*;
    Ok(Some(Value::Bool(match op {
        1 => o == Equal,
        2 => o != Equal,
        3 => o == Greater,
        4 => o != Less,
        5 => o == Less,
        _ => o != Greater,
    })))
}

fn logic(c: &mut Ctx, and: bool, args: &[Mp]) -> R {
    let mut unknown = false;
    for i in 0..args.len() {
        match arg(c, args, i)? {
            Some(Value::Bool(b)) if b != and => return Ok(Some(Value::Bool(b))),
            Some(Value::Bool(_)) => {}
            _ => unknown = true,
        }
    }
    Ok((!unknown).then_some(Value::Bool(and)))
}

/// `[7, flags, regex, exp]`; flags are POSIX: 1 extended, 2 icase, 4 nosub, 8 newline.
fn regex(c: &mut Ctx, args: &[Mp]) -> R {
    let flags = int_arg(args.first())?;
    let pat = raw_str(args.get(1).ok_or(PARAMETER_ERROR)?)?;
    let Some(Value::Str(s)) = arg(c, args, 2)? else {
        return Ok(None);
    };
    let re = regex::RegexBuilder::new(&pat)
        .case_insensitive(flags & 2 != 0)
        .multi_line(flags & 8 != 0)
        .ignore_whitespace(false)
        .build()
        .map_err(|_| PARAMETER_ERROR)?;
    Ok(Some(Value::Bool(re.is_match(&s))))
}

/// `[127, return type, module, op payload, bin exp]`: a CDT op inside an expression. Module 0 =
/// list and map, 1 = bits, 2 = HLL; the 0x40 bit marks a modify op (the result is the modified
/// container). A path select or apply answers unknown unless its result has the return type.
fn call(c: &mut Ctx, args: &[Mp]) -> R {
    let module = int_arg(args.get(1))?;
    if module & 0x3f != 0 {
        return super::module::call(c, module, args);
    }
    let modify = module & 0x40 != 0;
    let op = args.get(2).ok_or(PARAMETER_ERROR)?;
    if path::is_path(op) {
        let want = int_arg(args.first())?;
        let out = arg(c, args, 3)?.and_then(|target| path::eval_call(op, target, modify));
        return Ok(out.filter(|v| type_ok(v, want)));
    }
    let Some(op) = resolve(c, op)? else {
        return Ok(None);
    };
    let op = Op::from_mp(op)?;
    let Some(target) = arg(c, args, 3)? else {
        return Ok(None);
    };
    if !matches!(target, Value::List(_) | Value::Map(_)) {
        return Ok(None);
    }
    match apply_value(&op, Some(target), modify) {
        Ok((out, root)) => Ok(if modify {
            root
        } else {
            out.or(Some(Value::Nil))
        }),
        Err(_) => Ok(None),
    }
}

/// A CDT call's op with its expression arguments (the arrays past its code, and past the
/// context of `[0xff, ctx, op]`) replaced by their values; None when one is unknown.
fn resolve(c: &mut Ctx, op: &Mp) -> Result<Option<Mp>, ResultCode> {
    let Mp::Array(items) = op else {
        return Err(PARAMETER_ERROR);
    };
    if items.first().and_then(Mp::as_i64) == Some(0xff) {
        let (Some(ctx), Some(inner)) = (items.get(1), items.get(2)) else {
            return Err(PARAMETER_ERROR);
        };
        return Ok(resolve(c, inner)?.map(|i| Mp::Array(vec![items[0].clone(), ctx.clone(), i])));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, m) in items.iter().enumerate() {
        if i == 0 || !matches!(m, Mp::Array(_)) {
            out.push(m.clone());
            continue;
        }
        let Some(v) = eval(c, m)? else {
            return Ok(None);
        };
        out.push(read_mp(&mut &encode(&v)[..])?);
    }
    Ok(Some(Mp::Array(out)))
}
