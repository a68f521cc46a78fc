//! [`Value`] <-> Lua values. Lists and maps are tables with the `List` / `Map` marker metatables
//! from the prelude; a plain table is a list when it is a non-empty sequence, a map otherwise.

use mlua::{Lua, Table, Value as L};

use crate::value::{List, Map, Value};

/// Converts a value to Lua.
pub fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<L> {
    Ok(match v {
        Value::Nil | Value::Inf | Value::Wildcard => L::Nil,
        Value::Bool(b) => L::Boolean(*b),
        Value::Int(i) => L::Integer(*i),
        Value::Float(f) => L::Number(*f),
        Value::Str(s) | Value::GeoJson(s) => L::String(lua.create_string(s)?),
        Value::Bytes(_, b) => L::String(lua.create_string(b)?),
        Value::List(l) => {
            let t = lua.create_table()?;
            for (i, it) in l.items.iter().enumerate() {
                t.raw_set(i + 1, to_lua(lua, it)?)?;
            }
            let ctor: mlua::Function = lua.globals().get("__aero_list")?;
            ctor.call(t)?
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

/// Converts a Lua value to a value (functions/userdata become nil).
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
            let len = t.raw_len();
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
        _ => Value::Nil,
    })
}
