//! Arithmetic and integer bitwise expression ops (codes 20..=41, 50, 51).

use crate::value::Value;
use crate::ResultCode;

enum Nums {
    I(Vec<i64>),
    F(Vec<f64>),
}

fn nums(vs: &[Option<Value>]) -> Option<Nums> {
    match vs.first()? {
        Some(Value::Int(_)) => vs
            .iter()
            .map(|v| v.as_ref()?.as_int())
            .collect::<Option<_>>()
            .map(Nums::I),
        Some(Value::Float(_)) => vs
            .iter()
            .map(|v| match v {
                Some(Value::Float(f)) => Some(*f),
                _ => None,
            })
            .collect::<Option<_>>()
            .map(Nums::F),
        _ => None,
    }
}

fn fold_i(v: &[i64], f: impl Fn(i64, i64) -> Option<i64>) -> Option<Value> {
    let (first, rest) = v.split_first()?;
    rest.iter()
        .try_fold(*first, |a, b| f(a, *b))
        .map(Value::Int)
}

fn fold_f(v: &[f64], f: impl Fn(f64, f64) -> f64) -> Option<Value> {
    let (first, rest) = v.split_first()?;
    Some(Value::Float(rest.iter().fold(*first, |a, b| f(a, *b))))
}

/// Evaluates op `op` over already evaluated operands (None = unknown result).
pub fn eval(op: i64, vs: &[Option<Value>]) -> Result<Option<Value>, ResultCode> {
    let Some(n) = nums(vs) else { return Ok(None) };
    Ok(match (op, n) {
        (20, Nums::I(v)) => fold_i(&v, |a, b| Some(a.wrapping_add(b))),
        (20, Nums::F(v)) => fold_f(&v, |a, b| a + b),
        (21, Nums::I(v)) if v.len() == 1 => Some(Value::Int(v[0].wrapping_neg())),
        (21, Nums::F(v)) if v.len() == 1 => Some(Value::Float(-v[0])),
        (21, Nums::I(v)) => fold_i(&v, |a, b| Some(a.wrapping_sub(b))),
        (21, Nums::F(v)) => fold_f(&v, |a, b| a - b),
        (22, Nums::I(v)) => fold_i(&v, |a, b| Some(a.wrapping_mul(b))),
        (22, Nums::F(v)) => fold_f(&v, |a, b| a * b),
        (23, Nums::I(v)) => divide_i(&v),
        (23, Nums::F(v)) => divide_f(&v),
        (24, Nums::F(v)) if v.len() == 2 => Some(Value::Float(v[0].powf(v[1]))),
        (25, Nums::F(v)) if v.len() == 2 => Some(Value::Float(v[0].log(v[1]))),
        (26, Nums::I(v)) if v.len() == 2 => {
            (v[1] != 0).then(|| Value::Int(v[0].wrapping_rem(v[1])))
        }
        (27, Nums::I(v)) if v.len() == 1 => Some(Value::Int(v[0].wrapping_abs())),
        (27, Nums::F(v)) if v.len() == 1 => Some(Value::Float(v[0].abs())),
        (28, Nums::F(v)) if v.len() == 1 => Some(Value::Float(v[0].floor())),
        (29, Nums::F(v)) if v.len() == 1 => Some(Value::Float(v[0].ceil())),
        (30, Nums::F(v)) if v.len() == 1 => Some(Value::Int(truncate(v[0]))),
        (30, Nums::I(v)) if v.len() == 1 => Some(Value::Int(v[0])),
        (31, Nums::I(v)) if v.len() == 1 => Some(Value::Float(v[0] as f64)),
        (31, Nums::F(v)) if v.len() == 1 => Some(Value::Float(v[0])),
        (32, Nums::I(v)) => fold_i(&v, |a, b| Some(a & b)),
        (33, Nums::I(v)) => fold_i(&v, |a, b| Some(a | b)),
        (34, Nums::I(v)) => fold_i(&v, |a, b| Some(a ^ b)),
        (35, Nums::I(v)) if v.len() == 1 => Some(Value::Int(!v[0])),
        (36, Nums::I(v)) if v.len() == 2 => Some(Value::Int(v[0].wrapping_shl(v[1] as u32))),
        (37, Nums::I(v)) if v.len() == 2 => {
            Some(Value::Int(((v[0] as u64).wrapping_shr(v[1] as u32)) as i64))
        }
        (38, Nums::I(v)) if v.len() == 2 => Some(Value::Int(v[0].wrapping_shr(v[1] as u32))),
        (39, Nums::I(v)) if v.len() == 1 => Some(Value::Int(i64::from(v[0].count_ones()))),
        (50, Nums::I(v)) => v.iter().min().copied().map(Value::Int),
        (51, Nums::I(v)) => v.iter().max().copied().map(Value::Int),
        // A NaN first operand stays; a NaN later one is skipped (plain `<` / `>` comparisons).
        (50, Nums::F(v)) => fold_f(&v, |a, b| if a > b { b } else { a }),
        (51, Nums::F(v)) => fold_f(&v, |a, b| if a < b { b } else { a }),
        _ => None,
    })
}

/// `a / b / c ...` the way a server computes it: `a` divided by the product of the rest (`1 / a`
/// alone); an integer division by zero is unknown.
fn divide_i(v: &[i64]) -> Option<Value> {
    let (num, den) = match v {
        [only] => (1, *only),
        [first, rest @ ..] => (*first, rest.iter().fold(1i64, |p, x| p.wrapping_mul(*x))),
        [] => return None,
    };
    (den != 0).then(|| Value::Int(num.wrapping_div(den)))
}

fn divide_f(v: &[f64]) -> Option<Value> {
    Some(Value::Float(match v {
        [only] => 1.0 / only,
        [first, rest @ ..] => first / rest.iter().product::<f64>(),
        [] => return None,
    }))
}

/// A float to an int as x86-64 truncates it: out of range and NaN give `i64::MIN`.
fn truncate(f: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if !(-LIMIT..LIMIT).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// `int_lscan` / `int_rscan`: bit index (0 = most significant) of the first / last bit equal to
/// `search`, or -1.
pub fn scan(op: i64, value: i64, search: bool) -> i64 {
    let bits = if search {
        value as u64
    } else {
        !(value as u64)
    };
    if bits == 0 {
        return -1;
    }
    if op == 40 {
        i64::from(bits.leading_zeros())
    } else {
        63 - i64::from(bits.trailing_zeros())
    }
}
