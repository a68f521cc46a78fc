//! The Lua `bytes` type and module as the real server's UDFs have them: `bytes(n)`, the
//! `bytes.*` functions, and `b[i]`, `b[i] = v`, `#b`, `tostring(b)` on a value.
//!
//! Every function checks its argument count first and answers a wrong count with its failure
//! value (0, false or nothing), so `#b` (which Lua calls with two arguments) is always 0, as
//! on the server. Out-of-range positions and values give the same failure values; a wrong
//! argument type is an error, with Lua's "bad argument" wording.

use mlua::{AnyUserData, Function, Lua, MetaMethod, MultiValue, Table, UserData, Value as L};

use super::bytes::LuaBytes;

/// The values a function returns.
type Ret = mlua::Result<MultiValue>;
/// One `bytes` function: its arguments as Lua passed them.
type Api = fn(&Args) -> Ret;

/// A function's arguments, with Lua's checks and conversions.
struct Args<'a> {
    lua: &'a Lua,
    name: &'static str,
    values: Vec<L>,
}

fn type_name(v: Option<&L>) -> &'static str {
    match v {
        None => "no value",
        Some(L::Integer(_) | L::Number(_)) => "number",
        Some(L::LightUserData(_)) => "light userdata",
        Some(v) => v.type_name(),
    }
}

impl Args<'_> {
    fn count(&self) -> usize {
        self.values.len()
    }

    fn arg(&self, i: usize) -> Option<&L> {
        self.values.get(i - 1)
    }

    fn bad(&self, i: usize, what: &str) -> mlua::Error {
        mlua::Error::runtime(format!("bad argument #{i} to '{}' ({what})", self.name))
    }

    /// Argument `i` (1-based) as a `bytes` value.
    fn bytes(&self, i: usize) -> mlua::Result<AnyUserData> {
        match self.arg(i) {
            Some(L::UserData(ud)) if ud.is::<LuaBytes>() => Ok(ud.clone()),
            Some(L::UserData(_)) => Err(self.bad(i, "Bytes expected, got userdata")),
            other => Err(self.bad(i, &format!("userdata expected, got {}", type_name(other)))),
        }
    }

    /// Argument `i` as an integer (0 when absent or nil).
    fn int(&self, i: usize) -> mlua::Result<i64> {
        let v = match self.arg(i) {
            None | Some(L::Nil) => return Ok(0),
            Some(v) => v.clone(),
        };
        if let Some(n) = self.lua.coerce_integer(v.clone())? {
            return Ok(n);
        }
        if self.lua.coerce_number(v.clone())?.is_some() {
            return Err(self.bad(i, "number has no integer representation"));
        }
        Err(self.bad(i, &format!("number expected, got {}", type_name(Some(&v)))))
    }

    /// Argument `i` as a string's bytes (numbers converted; None when absent or nil).
    fn string(&self, i: usize) -> mlua::Result<Option<Vec<u8>>> {
        let v = match self.arg(i) {
            None | Some(L::Nil) => return Ok(None),
            Some(v) => v.clone(),
        };
        match self.lua.coerce_string(v.clone())? {
            Some(s) => Ok(Some(s.as_bytes().to_vec())),
            None => Err(self.bad(i, &format!("string expected, got {}", type_name(Some(&v))))),
        }
    }

    /// Argument `i` as a 1-based position in `1..=u32::MAX`, made 0-based.
    fn position(&self, i: usize) -> mlua::Result<Option<u64>> {
        let n = self.int(i)?;
        Ok((1..=i64::from(u32::MAX))
            .contains(&n)
            .then(|| (n - 1) as u64))
    }
}

fn ret(lua: &Lua, v: impl mlua::IntoLuaMulti) -> Ret {
    v.into_lua_multi(lua)
}

fn nothing() -> Ret {
    Ok(MultiValue::new())
}

fn in_range(v: i64, bits: u32) -> bool {
    bits == 64 || (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&v)
}

fn new(a: &Args) -> Ret {
    let capacity = match a.count() {
        1 => 0,
        2 => u64::from(a.int(2)? as u32),
        _ => return nothing(),
    };
    match LuaBytes::with_capacity(capacity) {
        Some(b) => ret(a.lua, a.lua.create_userdata(b)?),
        None => nothing(),
    }
}

fn size(a: &Args) -> Ret {
    if a.count() != 1 {
        return ret(a.lua, 0);
    }
    let n = a.bytes(1)?.borrow::<LuaBytes>()?.size();
    ret(a.lua, n)
}

/// `set_size(b, n)`: the server's `ensure` without resizing: true when `n` fits the capacity.
fn set_size(a: &Args) -> Ret {
    if a.count() != 2 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let n = a.int(2)?;
    let ok = (0..=i64::from(u32::MAX)).contains(&n)
        && b.borrow_mut::<LuaBytes>()?.ensure(n as u64, false);
    ret(a.lua, ok)
}

fn get_type(a: &Args) -> Ret {
    if a.count() < 1 {
        return nothing();
    }
    let ty = a.bytes(1)?.borrow::<LuaBytes>()?.ty;
    ret(a.lua, ty)
}

fn set_type(a: &Args) -> Ret {
    if a.count() != 2 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let t = a.int(2)?;
    if t == 0 {
        return ret(a.lua, false);
    }
    b.borrow_mut::<LuaBytes>()?.ty = t as i32;
    ret(a.lua, true)
}

/// `append_int*`: a `bits`-wide integer in range, encoded by `enc`, after the size.
fn append_int(a: &Args, bits: u32, enc: fn(i64) -> Vec<u8>) -> Ret {
    if a.count() != 2 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let v = a.int(2)?;
    let ok = in_range(v, bits) && b.borrow_mut::<LuaBytes>()?.append(&enc(v));
    ret(a.lua, ok)
}

/// `set_int*`: a `bits`-wide integer in range, encoded by `enc`, at a 1-based position.
fn set_int(a: &Args, bits: u32, enc: fn(i64) -> Vec<u8>) -> Ret {
    if a.count() != 3 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let pos = a.position(2)?;
    let v = a.int(3)?;
    let ok = match pos {
        Some(p) if in_range(v, bits) => b.borrow_mut::<LuaBytes>()?.put(p, &enc(v)),
        _ => false,
    };
    ret(a.lua, ok)
}

/// `get_*`: `N` bytes within the size at a 1-based position, decoded by `dec`.
fn get_int<const N: usize>(a: &Args, dec: fn([u8; N]) -> i64) -> Ret {
    if a.count() != 2 {
        return nothing();
    }
    let b = a.bytes(1)?;
    let Some(p) = a.position(2)? else {
        return nothing();
    };
    let got = b.borrow::<LuaBytes>()?.copy::<N>(p);
    match got {
        Some(raw) => ret(a.lua, dec(raw)),
        None => nothing(),
    }
}

fn append_byte(a: &Args) -> Ret {
    if a.count() != 2 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let v = a.int(2)?;
    let ok = (0..=255).contains(&v) && b.borrow_mut::<LuaBytes>()?.append(&[v as u8]);
    ret(a.lua, ok)
}

fn set_byte(a: &Args) -> Ret {
    if a.count() != 3 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let pos = a.position(2)?;
    let v = a.int(3)?;
    let ok = match pos {
        Some(p) if (0..=255).contains(&v) => b.borrow_mut::<LuaBytes>()?.put(p, &[v as u8]),
        _ => false,
    };
    ret(a.lua, ok)
}

/// A var-int write at `pos` (None = after the size): room for 5 bytes is made first, the size
/// is left as it is.
fn write_var_int(b: &AnyUserData, pos: Option<u64>, v: i64) -> mlua::Result<usize> {
    let mut b = b.borrow_mut::<LuaBytes>()?;
    let p = pos.unwrap_or(b.size() as u64);
    Ok(if b.ensure(p + 5, true) {
        b.write_var_int(p, v as u32)
    } else {
        0
    })
}

fn append_var_int(a: &Args) -> Ret {
    if a.count() != 2 {
        return ret(a.lua, 0);
    }
    let b = a.bytes(1)?;
    let v = a.int(2)?;
    let n = if in_range(v, 32) {
        write_var_int(&b, None, v)?
    } else {
        0
    };
    ret(a.lua, n)
}

fn set_var_int(a: &Args) -> Ret {
    if a.count() != 3 {
        return ret(a.lua, 0);
    }
    let b = a.bytes(1)?;
    let pos = a.position(2)?;
    let v = a.int(3)?;
    let n = match pos {
        Some(p) if in_range(v, 32) => write_var_int(&b, Some(p), v)?,
        _ => 0,
    };
    ret(a.lua, n)
}

fn get_var_int(a: &Args) -> Ret {
    if a.count() != 2 {
        return nothing();
    }
    let b = a.bytes(1)?;
    let Some(p) = a.position(2)? else {
        return nothing();
    };
    let (v, n) = b.borrow::<LuaBytes>()?.read_var_int(p);
    ret(a.lua, (v, n))
}

fn append_string(a: &Args) -> Ret {
    if a.count() != 2 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let ok = match a.string(2)? {
        Some(s) if !s.is_empty() => b.borrow_mut::<LuaBytes>()?.append(&s),
        _ => false,
    };
    ret(a.lua, ok)
}

fn set_string(a: &Args) -> Ret {
    if a.count() != 3 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let pos = a.position(2)?;
    let ok = match (pos, a.string(3)?) {
        (Some(p), Some(s)) => b.borrow_mut::<LuaBytes>()?.put(p, &s),
        _ => false,
    };
    ret(a.lua, ok)
}

/// `n` as a length in `0..=u32::MAX`.
fn length(n: i64) -> Option<u64> {
    u32::try_from(n).ok().map(u64::from)
}

fn append_bytes(a: &Args) -> Ret {
    if a.count() != 3 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let v = a.bytes(2)?;
    let Some(n) = length(a.int(3)?) else {
        return ret(a.lua, false);
    };
    let src = {
        let v = v.borrow::<LuaBytes>()?;
        v.data()[..v.size().min(n as usize)].to_vec()
    };
    let ok = b.borrow_mut::<LuaBytes>()?.append(&src);
    ret(a.lua, ok)
}

/// `set_bytes(b, i, v, n)`: room is made for the part of `n` that `v` holds, then all `n`
/// bytes of `v`'s buffer are written (so an `n` past `v`'s size fails unless `b` has room).
fn set_bytes(a: &Args) -> Ret {
    if a.count() != 4 {
        return ret(a.lua, false);
    }
    let b = a.bytes(1)?;
    let pos = a.position(2)?;
    let v = a.bytes(3)?;
    let (Some(p), Some(n)) = (pos, length(a.int(4)?)) else {
        return ret(a.lua, false);
    };
    let (room, src) = {
        let v = v.borrow::<LuaBytes>()?;
        ((v.size() as u64).min(n), v.raw(0, n))
    };
    let mut b = b.borrow_mut::<LuaBytes>()?;
    let ok = match src {
        Some(src) => b.ensure(p + room, true) && b.set(p, &src),
        None => false,
    };
    ret(a.lua, ok)
}

/// `get_string` / `get_bytes`: `n` bytes of the buffer from a 1-based position.
fn get_raw(a: &Args) -> mlua::Result<Option<Vec<u8>>> {
    if a.count() != 3 {
        return Ok(None);
    }
    let b = a.bytes(1)?;
    let pos = a.position(2)?;
    let n = length(a.int(3)?);
    Ok(match (pos, n) {
        (Some(p), Some(n)) => b.borrow::<LuaBytes>()?.raw(p, n),
        _ => None,
    })
}

fn get_string(a: &Args) -> Ret {
    match get_raw(a)? {
        Some(raw) => ret(a.lua, a.lua.create_string(raw)?),
        None => nothing(),
    }
}

fn get_bytes(a: &Args) -> Ret {
    match get_raw(a)? {
        Some(raw) => ret(
            a.lua,
            a.lua
                .create_userdata(LuaBytes::wrap(raw, i32::from(crate::particle_type::BLOB)))?,
        ),
        None => nothing(),
    }
}

fn tostring(a: &Args) -> Ret {
    if a.count() != 1 {
        return ret(a.lua, 0);
    }
    let s = a.bytes(1)?.borrow::<LuaBytes>()?.to_hex();
    ret(a.lua, s)
}

fn be16(v: i64) -> Vec<u8> {
    (v as i16).to_be_bytes().to_vec()
}
fn le16(v: i64) -> Vec<u8> {
    (v as i16).to_le_bytes().to_vec()
}
fn be32(v: i64) -> Vec<u8> {
    (v as i32).to_be_bytes().to_vec()
}
fn le32(v: i64) -> Vec<u8> {
    (v as i32).to_le_bytes().to_vec()
}
fn be64(v: i64) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}
fn le64(v: i64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

/// The `bytes.*` functions (the unsuffixed integer ones are big-endian).
const FUNCTIONS: &[(&str, Api)] = &[
    ("size", size),
    ("set_size", set_size),
    ("get_type", get_type),
    ("set_type", set_type),
    ("get_string", get_string),
    ("get_bytes", get_bytes),
    ("get_byte", |a| get_int::<1>(a, |r| i64::from(r[0]))),
    ("get_int16", |a| {
        get_int(a, |r| i64::from(i16::from_be_bytes(r)))
    }),
    ("get_int16_be", |a| {
        get_int(a, |r| i64::from(i16::from_be_bytes(r)))
    }),
    ("get_int16_le", |a| {
        get_int(a, |r| i64::from(i16::from_le_bytes(r)))
    }),
    ("get_int32", |a| {
        get_int(a, |r| i64::from(i32::from_be_bytes(r)))
    }),
    ("get_int32_be", |a| {
        get_int(a, |r| i64::from(i32::from_be_bytes(r)))
    }),
    ("get_int32_le", |a| {
        get_int(a, |r| i64::from(i32::from_le_bytes(r)))
    }),
    ("get_int64", |a| get_int(a, i64::from_be_bytes)),
    ("get_int64_be", |a| get_int(a, i64::from_be_bytes)),
    ("get_int64_le", |a| get_int(a, i64::from_le_bytes)),
    ("get_var_int", get_var_int),
    ("set_string", set_string),
    ("set_bytes", set_bytes),
    ("set_byte", set_byte),
    ("set_int16", |a| set_int(a, 16, be16)),
    ("set_int16_be", |a| set_int(a, 16, be16)),
    ("set_int16_le", |a| set_int(a, 16, le16)),
    ("set_int32", |a| set_int(a, 32, be32)),
    ("set_int32_be", |a| set_int(a, 32, be32)),
    ("set_int32_le", |a| set_int(a, 32, le32)),
    ("set_int64", |a| set_int(a, 64, be64)),
    ("set_int64_be", |a| set_int(a, 64, be64)),
    ("set_int64_le", |a| set_int(a, 64, le64)),
    ("set_var_int", set_var_int),
    ("append_string", append_string),
    ("append_bytes", append_bytes),
    ("append_byte", append_byte),
    ("append_int16", |a| append_int(a, 16, be16)),
    ("append_int16_be", |a| append_int(a, 16, be16)),
    ("append_int16_le", |a| append_int(a, 16, le16)),
    ("append_int32", |a| append_int(a, 32, be32)),
    ("append_int32_be", |a| append_int(a, 32, be32)),
    ("append_int32_le", |a| append_int(a, 32, le32)),
    ("append_int64", |a| append_int(a, 64, be64)),
    ("append_int64_be", |a| append_int(a, 64, be64)),
    ("append_int64_le", |a| append_int(a, 64, le64)),
    ("append_var_int", append_var_int),
];

/// Lua side of raising argument errors as plain strings (as Lua's own `luaL_argerror` does): a
/// function answers a failure marker and the message, and its wrapper raises the message.
const RAISE: &str = r#"
local FAIL = {}
local function pass(...)
  local first, message = ...
  if rawequal(first, FAIL) then error(message, 0) end
  return ...
end
return FAIL, function(f) return function(...) return pass(f(...)) end end
"#;

fn call(lua: &Lua, name: &'static str, f: Api, values: MultiValue) -> Ret {
    let out = f(&Args {
        lua,
        name,
        values: values.into_vec(),
    });
    match out {
        Err(mlua::Error::RuntimeError(msg)) => {
            let fail: Table = lua.named_registry_value("bytes_fail")?;
            ret(lua, (fail, msg))
        }
        other => other,
    }
}

/// `f` as a Lua function that raises its argument errors as strings.
fn function(lua: &Lua, name: &'static str, f: Api) -> mlua::Result<Function> {
    let wrap: Function = lua.named_registry_value("bytes_wrap")?;
    let raw = lua.create_function(move |lua, v: MultiValue| call(lua, name, f, v))?;
    wrap.call(raw)
}

impl UserData for LuaBytes {
    fn add_fields<F: mlua::UserDataFields<Self>>(fields: &mut F) {
        fields.add_meta_field(MetaMethod::Type, "Bytes");
        fields.add_meta_field_with(MetaMethod::Index, |lua| {
            function(lua, "index", |a| get_int::<1>(a, |r| i64::from(r[0])))
        });
        fields.add_meta_field_with(MetaMethod::NewIndex, |lua| {
            function(lua, "newindex", set_byte)
        });
        fields.add_meta_field_with(MetaMethod::Len, |lua| function(lua, "len", size));
        fields.add_meta_field_with(MetaMethod::ToString, |lua| {
            function(lua, "tostring", tostring)
        });
    }
}

/// Installs the global `bytes` table: the functions, and `bytes(n)` to make a value.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    let (fail, wrap): (Table, Function) = lua.load(RAISE).set_name("@bytes").eval()?;
    lua.set_named_registry_value("bytes_fail", fail)?;
    lua.set_named_registry_value("bytes_wrap", wrap)?;
    let t = lua.create_table()?;
    for &(name, f) in FUNCTIONS {
        t.set(name, function(lua, name, f)?)?;
    }
    let mt = lua.create_table()?;
    mt.set("__call", function(lua, "bytes", new)?)?;
    mt.set("__metatable", t.clone())?;
    t.set_metatable(Some(mt))?;
    lua.globals().set("bytes", t)
}
