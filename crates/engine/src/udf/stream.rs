//! Stream UDFs (aggregations): the server half over records, the client half over partials.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

use mlua::{Lua, MultiValue, Table, Value as L};

use super::convert::{from_lua_to, to_lua, Dest};
use super::run::{digest_bytes, fail, message, prepare};
use super::UdfFailure;
use crate::pack::from_particle;
use crate::value::{List, Value};
use crate::RecordView;

const STREAM: &str = include_str!("stream.lua");

/// Runs the stream function's steps up to and including its first reduce once per group of
/// `groups` (a real server runs it once per partition with matching records), in one Lua state,
/// passing each output to `emit` as it comes (false from `emit` stops the stream). An empty
/// group does not run. Lua fails once `deadline` has passed.
pub fn run_server<R: RecordView>(
    modules: &BTreeMap<String, Vec<u8>>,
    module: &str,
    function: &str,
    args: &[Value],
    groups: impl Iterator<Item = Vec<R>>,
    emit: &mut dyn FnMut(Value) -> bool,
    deadline: Instant,
) -> Result<(), UdfFailure> {
    let mut groups = groups.filter(|g| !g.is_empty()).peekable();
    if groups.peek().is_none() {
        return Ok(());
    }
    let current = RefCell::new(Vec::<R>::new().into_iter());
    let (lua, func) = prepare(modules, module, function, deadline)?;
    for (run, group) in groups.enumerate() {
        *current.borrow_mut() = group.into_iter();
        run_once(
            &lua,
            &func,
            false,
            args,
            run == 0,
            |lua| match current.borrow_mut().next() {
                Some(rec) => record_to_lua(lua, &rec),
                None => Ok(L::Nil),
            },
            emit,
        )?;
    }
    Ok(())
}

/// Runs the stream function's steps from its first reduce on over the nodes' `partials`,
/// until `deadline`.
pub fn run_client(
    modules: &BTreeMap<String, Vec<u8>>,
    module: &str,
    function: &str,
    args: &[Value],
    partials: Vec<Value>,
    deadline: Instant,
) -> Result<Vec<Value>, UdfFailure> {
    let partials = RefCell::new(partials.into_iter());
    let mut outputs = Vec::new();
    let (lua, func) = prepare(modules, module, function, deadline)?;
    run_once(
        &lua,
        &func,
        true,
        args,
        true,
        |lua| match partials.borrow_mut().next() {
            Some(v) => to_lua(lua, &v),
            None => Ok(L::Nil),
        },
        &mut |v| {
            outputs.push(v);
            true
        },
    )?;
    Ok(outputs)
}

/// One run of the stream function over `next`'s values (`load` first loads the stream code).
fn run_once(
    lua: &Lua,
    func: &mlua::Function,
    client: bool,
    args: &[Value],
    load: bool,
    next: impl Fn(&Lua) -> mlua::Result<L>,
    emit: &mut dyn FnMut(Value) -> bool,
) -> Result<(), UdfFailure> {
    let emit = RefCell::new(emit);
    let result = lua.scope(|scope| {
        if load {
            lua.load(STREAM).set_name("@stream.lua").exec()?;
        }
        let run: mlua::Function = lua.globals().get("__aero_run_stream")?;
        let source = scope.create_function(|lua, _: MultiValue| next(lua))?;
        let emit = scope.create_function(|_, v: L| {
            if (emit.borrow_mut())(from_lua_to(&v, Dest::Reply)?) {
                Ok(())
            } else {
                Err(mlua::Error::runtime("the stream's reader is gone"))
            }
        })?;
        let mut call = vec![
            L::Function(func.clone()),
            L::Boolean(client),
            L::Function(source),
            L::Function(emit),
        ];
        for a in args {
            call.push(to_lua(lua, a)?);
        }
        run.call::<()>(MultiValue::from_iter(call))
    });
    result.map_err(|e| fail(message(&e)))
}

/// A record as a stream sees it: a table of bins, its metadata for the `record` functions.
fn record_to_lua(lua: &Lua, rec: &impl RecordView) -> mlua::Result<L> {
    let bins = lua.create_table()?;
    let mut names = Vec::new();
    for name in rec.bin_names() {
        if let Some(p) = rec.bin(name) {
            let v = from_particle(p)
                .map_err(|c| mlua::Error::runtime(format!("bad bin {name}: {c}")))?;
            bins.raw_set(name, to_lua(lua, &v)?)?;
            names.push(Value::Str(name.to_string()));
        }
    }
    let meta: Table = lua.create_table()?;
    meta.set("gen", rec.generation())?;
    let (vt, now) = (rec.void_time_ns(), now_ns());
    meta.set(
        "ttl",
        if vt == 0 {
            -1
        } else {
            (vt.saturating_sub(now) / 1_000_000_000) as i64
        },
    )?;
    meta.set("void_time", (vt / 1_000_000_000) as i64)?;
    meta.set(
        "last_update_time",
        (rec.last_update_ns() / 1_000_000) as i64,
    )?;
    meta.set("setname", rec.set_name())?;
    if let Some(Ok(k)) = rec.user_key().map(from_particle) {
        meta.set("key", to_lua(lua, &k)?)?;
    }
    meta.set("digest", lua.create_userdata(digest_bytes(rec.digest()))?)?;
    meta.set(
        "bin_names",
        to_lua(
            lua,
            &Value::List(List {
                flags: 0,
                items: names,
            }),
        )?,
    )?;
    let wrap: mlua::Function = lua.globals().get("__aero_record")?;
    wrap.call((bins, meta))
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
