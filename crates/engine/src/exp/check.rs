//! The static checks a server runs when it receives an expression, before any record is read.
//!
//! Every node has a result type known from the wire alone (bins and calls declare theirs,
//! literals have their own, operators derive theirs). Operands of the wrong type (an int added
//! to a float, a float bin in `%`, a string in `abs`, comparing an int with a float, a
//! non-boolean in `and`), wrong argument counts, unknown or ill-named variables are a
//! `PARAMETER_ERROR` for the whole request, not an unknown result: a real server answers
//! that way even when no record would match.

use rmpv::Value as Mp;

use crate::cdt::path;
use crate::result::PARAMETER_ERROR;
use crate::ResultCode;

/// Static result type of an expression node (the wire's expression type numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Nil,
    Bool,
    Int,
    Str,
    List,
    Map,
    Blob,
    Float,
    Geo,
    Hll,
    /// Not known statically (wildcard and infinity literals).
    Any,
    /// The marker a path modify expression gives to remove its element.
    Remove,
}

impl Ty {
    /// The type of a wire type number (bin reads, calls, `let` variables).
    fn of(t: i64) -> Result<Ty, ResultCode> {
        Ok(match t {
            0 => Ty::Nil,
            1 => Ty::Bool,
            2 => Ty::Int,
            3 => Ty::Str,
            4 => Ty::List,
            5 => Ty::Map,
            6 => Ty::Blob,
            7 => Ty::Float,
            8 => Ty::Geo,
            9 => Ty::Hll,
            _ => return Err(PARAMETER_ERROR),
        })
    }
}

/// What a filter or an expression operation evaluates to, checked; `Err(PARAMETER_ERROR)` when
/// a server would refuse it.
pub fn check(e: &Mp) -> Result<Ty, ResultCode> {
    Checker::default().node(e).map(|(t, _)| t)
}

/// [`check`] for the expression of an index, which may read bins and the digest but no other
/// record metadata (a real server refuses `ttl`, `set_name`, `key` and the like there).
pub fn check_index(e: &Mp) -> Result<Ty, ResultCode> {
    let mut checker = Checker::default();
    let (ty, _) = checker.node(e)?;
    if checker.reads_metadata {
        return fail();
    }
    Ok(ty)
}

#[derive(Default)]
struct Checker<'a> {
    /// `let` variables in scope, innermost last; `None` while the variable is being defined.
    scopes: Vec<(&'a [u8], Option<Ty>)>,
    /// A record's metadata other than its digest is read (its key, set, sizes or times).
    reads_metadata: bool,
}

fn fail<T>() -> Result<T, ResultCode> {
    Err(PARAMETER_ERROR)
}

fn literal(m: &Mp) -> Result<Ty, ResultCode> {
    Ok(match m {
        Mp::Nil => Ty::Nil,
        Mp::Boolean(_) => Ty::Bool,
        Mp::Integer(_) => Ty::Int,
        Mp::F32(_) | Mp::F64(_) => Ty::Float,
        Mp::String(s) => bytes_type(s.as_bytes())?,
        Mp::Binary(b) => bytes_type(b)?,
        Mp::Map(_) => Ty::Map,
        Mp::Ext(..) => Ty::Any,
        Mp::Array(_) => return fail(),
    })
}

/// Strings, blobs, HLLs and GeoJSON travel as bytes behind a particle type byte.
fn bytes_type(b: &[u8]) -> Result<Ty, ResultCode> {
    Ok(match b.first() {
        Some(3) => Ty::Str,
        Some(4) => Ty::Blob,
        Some(18) => Ty::Hll,
        Some(23) => Ty::Geo,
        _ => return fail(),
    })
}

fn raw_name(m: Option<&Mp>) -> Result<&[u8], ResultCode> {
    match m {
        Some(Mp::String(s)) => Ok(s.as_bytes()),
        Some(Mp::Binary(b)) => Ok(b),
        _ => fail(),
    }
}

fn valid_var_name(name: &[u8]) -> bool {
    match name.split_first() {
        Some((first, rest)) => {
            (*first == b'_' || first.is_ascii_alphabetic())
                && rest.iter().all(|c| *c == b'_' || c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// Whether a node is the `unknown` op (allowed as any branch of a `cond`).
type Node = (Ty, bool);

impl<'a> Checker<'a> {
    fn node(&mut self, e: &'a Mp) -> Result<Node, ResultCode> {
        let Mp::Array(a) = e else {
            return Ok((literal(e)?, false));
        };
        let code = a.first().and_then(Mp::as_i64).ok_or(PARAMETER_ERROR)?;
        let args = &a[1..];
        let n = args.len();
        let arity = |want: usize| if n == want { Ok(()) } else { fail() };
        let t = match code {
            0 => {
                arity(0)?;
                return Ok((Ty::Bool, true));
            }
            1..=6 => {
                arity(2)?;
                let (l, r) = (self.ty(&args[0])?, self.ty(&args[1])?);
                if l != r || matches!(l, Ty::Geo | Ty::Hll) {
                    return fail();
                }
                Ty::Bool
            }
            7 => {
                arity(3)?;
                args[0].as_i64().ok_or(PARAMETER_ERROR)?;
                raw_name(args.get(1))?;
                self.want(&args[2], &[Ty::Str])?;
                Ty::Bool
            }
            8 => {
                arity(2)?;
                self.want(&args[0], &[Ty::Geo])?;
                self.want(&args[1], &[Ty::Geo])?;
                Ty::Bool
            }
            9 => {
                arity(2)?;
                self.ty(&args[0])?;
                self.want(&args[1], &[Ty::List])?;
                Ty::Bool
            }
            16 | 17 | 19 => {
                if n < 2 {
                    return fail();
                }
                self.all(args, &[Ty::Bool])?;
                Ty::Bool
            }
            18 => {
                arity(1)?;
                self.want(&args[0], &[Ty::Bool])?;
                Ty::Bool
            }
            20..=23 | 50 | 51 => {
                if n < 1 {
                    return fail();
                }
                let first = self.want(&args[0], &[Ty::Int, Ty::Float])?;
                self.all(&args[1..], &[first])?;
                first
            }
            24 | 25 => {
                arity(2)?;
                self.all(args, &[Ty::Float])?;
                Ty::Float
            }
            26 | 36..=38 => {
                arity(2)?;
                self.all(args, &[Ty::Int])?;
                Ty::Int
            }
            27 => {
                arity(1)?;
                self.want(&args[0], &[Ty::Int, Ty::Float])?
            }
            28 | 29 => {
                arity(1)?;
                self.want(&args[0], &[Ty::Float])?;
                Ty::Float
            }
            30 => {
                arity(1)?;
                self.want(&args[0], &[Ty::Float])?;
                Ty::Int
            }
            31 => {
                arity(1)?;
                self.want(&args[0], &[Ty::Int])?;
                Ty::Float
            }
            32..=34 => {
                if n < 1 {
                    return fail();
                }
                self.all(args, &[Ty::Int])?;
                Ty::Int
            }
            35 | 39 => {
                arity(1)?;
                self.want(&args[0], &[Ty::Int])?;
                Ty::Int
            }
            40 | 41 => {
                arity(2)?;
                self.want(&args[0], &[Ty::Int])?;
                self.want(&args[1], &[Ty::Bool])?;
                Ty::Int
            }
            64 => {
                arity(1)?;
                let m = args[0].as_i64().ok_or(PARAMETER_ERROR)?;
                if m as i32 == 0 {
                    return fail();
                }
                Ty::Int
            }
            65..=74 => {
                arity(0)?;
                self.reads_metadata = true;
                match code {
                    70 => Ty::Str,
                    71 | 72 => Ty::Bool,
                    _ => Ty::Int,
                }
            }
            80 => {
                arity(1)?;
                self.reads_metadata = true;
                match Ty::of(args[0].as_i64().ok_or(PARAMETER_ERROR)?)? {
                    t @ (Ty::Int | Ty::Str | Ty::Blob) => t,
                    _ => return fail(),
                }
            }
            81 => {
                arity(2)?;
                let t = Ty::of(args[0].as_i64().ok_or(PARAMETER_ERROR)?)?;
                bin_name(args.get(1))?;
                t
            }
            82 => {
                arity(1)?;
                bin_name(args.first())?;
                Ty::Int
            }
            100 => {
                arity(0)?;
                Ty::Remove
            }
            101 | 102 => {
                arity(1)?;
                self.ty(&args[0])?;
                Ty::List
            }
            122 => {
                arity(2)?;
                let t = Ty::of(args[0].as_u64().ok_or(PARAMETER_ERROR)? as i64)?;
                // Loop variables: 0 key, 1 value, 2 index (an integer).
                match args[1].as_u64() {
                    Some(0 | 1) => {}
                    Some(2) if t == Ty::Int => {}
                    _ => return fail(),
                }
                t
            }
            123 => self.cond(args)?,
            124 => {
                arity(1)?;
                let name = raw_name(args.first())?;
                let found = self.scopes.iter().rev().find(|(n, _)| *n == name);
                match found {
                    Some((_, Some(t))) => *t,
                    _ => return fail(),
                }
            }
            125 => self.let_(args)?,
            126 => {
                arity(1)?;
                if !matches!(args[0], Mp::Array(_)) {
                    return fail();
                }
                Ty::List
            }
            127 => self.call(args)?,
            _ => return fail(),
        };
        Ok((t, false))
    }

    fn ty(&mut self, e: &'a Mp) -> Result<Ty, ResultCode> {
        self.node(e).map(|(t, _)| t)
    }

    /// Checks `e` and that its type is one of `allowed`; returns it.
    fn want(&mut self, e: &'a Mp, allowed: &[Ty]) -> Result<Ty, ResultCode> {
        let t = self.ty(e)?;
        if allowed.contains(&t) {
            Ok(t)
        } else {
            fail()
        }
    }

    fn all(&mut self, es: &'a [Mp], allowed: &[Ty]) -> Result<(), ResultCode> {
        for e in es {
            self.want(e, allowed)?;
        }
        Ok(())
    }

    /// `[123, cond, value, ..., default]`: every value the same type (`unknown` fits any).
    fn cond(&mut self, args: &'a [Mp]) -> Result<Ty, ResultCode> {
        if args.len() < 3 || args.len().is_multiple_of(2) {
            return fail();
        }
        let mut out: Option<Ty> = None;
        for (i, e) in args.iter().enumerate() {
            let is_value = i % 2 == 1 || i == args.len() - 1;
            if !is_value {
                self.want(e, &[Ty::Bool])?;
                continue;
            }
            let (t, unknown) = self.node(e)?;
            let last = i == args.len() - 1;
            match out {
                None if !unknown || last => out = Some(t),
                Some(prev) if !unknown && prev != t => return fail(),
                _ => {}
            }
        }
        out.ok_or(PARAMETER_ERROR)
    }

    /// `[125, name, value, ..., body]`: names are identifiers, none defined twice in scope.
    fn let_(&mut self, args: &'a [Mp]) -> Result<Ty, ResultCode> {
        if args.len() < 3 || args.len().is_multiple_of(2) {
            return fail();
        }
        let depth = self.scopes.len();
        let result = (|| {
            for pair in args[..args.len() - 1].chunks(2) {
                let name = raw_name(pair.first())?;
                if !valid_var_name(name) || self.scopes.iter().any(|(n, _)| *n == name) {
                    return fail();
                }
                self.scopes.push((name, None));
                let t = self.ty(&pair[1])?;
                if let Some(last) = self.scopes.last_mut() {
                    last.1 = Some(t);
                }
            }
            self.ty(&args[args.len() - 1])
        })();
        self.scopes.truncate(depth);
        result
    }

    /// `[127, return type, module, op, target]`: the op's expression arguments are checked, the
    /// target must suit the module (nil always does).
    fn call(&mut self, args: &'a [Mp]) -> Result<Ty, ResultCode> {
        if args.len() != 4 {
            return fail();
        }
        let t = Ty::of(args[0].as_i64().ok_or(PARAMETER_ERROR)?)?;
        let module = args[1].as_i64().ok_or(PARAMETER_ERROR)?;
        let Mp::Array(op) = &args[2] else {
            return fail();
        };
        for e in call_args(op)? {
            if matches!(e, Mp::Array(_)) {
                self.ty(e)?;
            }
        }
        let target = self.ty(&args[3])?;
        let fits = match module & !0x40 {
            0 => matches!(target, Ty::List | Ty::Map),
            1 => target == Ty::Blob,
            2 => target == Ty::Hll,
            _ => return fail(),
        };
        if fits || target == Ty::Nil {
            Ok(t)
        } else {
            fail()
        }
    }
}

/// The arguments of a call's op, past its code (and past the context of `[0xff, ctx, op]`).
/// A path op (`[0xfe, ctx, flags, modify exp?]`) has none: its context and expression are
/// checked only when it runs.
pub(super) fn call_args(op: &[Mp]) -> Result<&[Mp], ResultCode> {
    match op.first().and_then(Mp::as_i64) {
        Some(path::SELECT) => match op {
            [_, Mp::Array(_), flags] | [_, Mp::Array(_), flags, _] if flags.as_u64().is_some() => {
                Ok(&[])
            }
            _ => fail(),
        },
        Some(0xff) => match op.get(2) {
            Some(Mp::Array(inner)) if op.len() == 3 && !inner.is_empty() => Ok(&inner[1..]),
            _ => fail(),
        },
        Some(_) => Ok(&op[1..]),
        None => fail(),
    }
}

fn bin_name(m: Option<&Mp>) -> Result<(), ResultCode> {
    let name = raw_name(m)?;
    if name.is_empty() || name.len() > 15 {
        return fail();
    }
    Ok(())
}
