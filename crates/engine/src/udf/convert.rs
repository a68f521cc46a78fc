//! [`Value`] <-> Lua values. Lists and maps are tables with the `List` / `Map` marker metatables
//! from the prelude; a plain table is a list when it is a non-empty sequence, a map otherwise.
//! Blobs are `bytes` userdata keeping their type; strings stay strings.

use mlua::{Lua, Table, Value as L};

use super::bytes::LuaBytes;
use crate::value::{List, Map, Value};

/// Where a Lua value goes, which decides what a `bytes` at its top becomes.
#[derive(Clone, Copy, Debug)]
pub enum Dest {
    /// A bin write: the type picks the particle ([`LuaBytes::to_bin`]).
    Bin,
    /// A UDF result or stream output for the client: a plain blob.
    Reply,
}

/// Converts a Lua value headed for `dest`.
pub fn from_lua_to(v: &L, dest: Dest) -> mlua::Result<Value> {
    if let L::UserData(ud) = v {
        if let Ok(b) = ud.borrow::<LuaBytes>() {
            return Ok(match dest {
                Dest::Bin => b.to_bin(),
                Dest::Reply => b.to_reply(),
            });
        }
    }
    from_lua(v, 0)
}

/// Converts a value to Lua.
pub fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<L> {
    Ok(match v {
        Value::Nil | Value::Inf | Value::Wildcard => L::Nil,
        Value::Bool(b) => L::Boolean(*b),
        Value::Int(i) => L::Integer(*i),
        Value::Float(f) => L::Number(*f),
        Value::Str(s) | Value::GeoJson(s) => L::String(lua.create_string(s)?),
        Value::Bytes(t, b) => {
            L::UserData(lua.create_userdata(LuaBytes::wrap(b.clone(), i32::from(*t)))?)
        }
        Value::List(l) => {
            let t = lua.create_table()?;
            for (i, it) in l.items.iter().enumerate() {
                t.raw_set(i + 1, to_lua(lua, it)?)?;
            }
            let ctor: mlua::Function = lua.globals().get("__aero_list")?;
            // A nil element leaves a hole the table does not count: the list keeps its size.
            let holes = l.items.iter().any(|it| matches!(it, Value::Nil));
            ctor.call((t, holes.then_some(l.items.len())))?
        }
        Value::Map(m) => {
            let t = lua.create_table()?;
            for (k, val) in &m.entries {
                t.raw_set(to_lua(lua, k)?, to_lua(lua, val)?)?;
            }
            let ctor: mlua::Function = lua.globals().get("__aero_map")?;
            ctor.call(t)?
        }
    })
}

fn marker(t: &Table) -> Option<String> {
    t.metatable().and_then(|mt| mt.get::<String>("__name").ok())
}

/// Converts a Lua value inside a list or map (functions and other userdata become nil).
pub fn from_lua(v: &L, depth: usize) -> mlua::Result<Value> {
    if depth > 64 {
        return Err(mlua::Error::runtime("value nested too deeply"));
    }
    Ok(match v {
        L::Nil => Value::Nil,
        L::Boolean(b) => Value::Bool(*b),
        L::Integer(i) => Value::Int(*i),
        L::Number(n) => Value::Float(*n),
        L::String(s) => Value::Str(s.to_string_lossy()),
        L::Table(t) => {
            let kind = marker(t);
            // A list's own length (its `__len`), which counts nil elements.
            let len = match kind.as_deref() {
                Some("List") => usize::try_from(t.len()?).unwrap_or(0),
                _ => t.raw_len(),
            };
            let as_list = match kind.as_deref() {
                Some("List") => true,
                Some("Map") => false,
                _ => len > 0 && t.clone().pairs::<L, L>().count() == len,
            };
            if as_list {
                let items = (1..=len)
                    .map(|i| t.raw_get::<L>(i).and_then(|x| from_lua(&x, depth + 1)))
                    .collect::<mlua::Result<_>>()?;
                Value::List(List { flags: 0, items })
            } else {
                let mut entries = Vec::new();
                for pair in t.clone().pairs::<L, L>() {
                    let (k, val) = pair?;
                    entries.push((from_lua(&k, depth + 1)?, from_lua(&val, depth + 1)?));
                }
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Map(Map { flags: 0, entries })
            }
        }
        L::UserData(ud) => match ud.borrow::<LuaBytes>() {
            Ok(b) => b.to_element(),
            Err(_) => Value::Nil,
        },
        _ => Value::Nil,
    })
}
