//! One record-UDF call in a fresh, sandboxed Lua state.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use mlua::{HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value as L, VmState};

use super::convert::{from_lua_to, to_lua, Dest};
use super::failure::chunk_name;
use super::{RecordMut, UdfFailure, UdfOutcome};
use crate::pack::{from_particle, to_particle};
use crate::value::{List, Value};

/// Lua instructions between two looks at the clock.
const HOOK_EVERY: u32 = 10_000;
/// What a call stopped at its deadline fails with (bin `FAILURE`, code 100), as on a real server.
pub const TIMEOUT_MESSAGE: &str = "UDF Execution Timeout";
/// Memory one call's Lua state may allocate; past it the call fails with a UDF error.
pub const MEMORY_LIMIT: usize = 64 * 1024 * 1024;

const PRELUDE: &str = include_str!("prelude.lua");

/// The record as the UDF sees it: the server's working copy plus staged bin writes (one per
/// bin name, in the order the names were first written).
struct State<'r> {
    rec: &'r mut dyn RecordMut,
    staged: Vec<(String, Option<Value>)>,
    staged_at: HashMap<String, usize>,
}

impl State<'_> {
    fn get(&self, name: &str) -> mlua::Result<Value> {
        if let Some(&i) = self.staged_at.get(name) {
            return Ok(self.staged[i].1.clone().unwrap_or(Value::Nil));
        }
        match self.rec.bin(name) {
            Some(p) => {
                from_particle(p).map_err(|c| mlua::Error::runtime(format!("bad bin {name}: {c}")))
            }
            None => Ok(Value::Nil),
        }
    }
    fn stage(&mut self, name: String, value: Option<Value>) {
        match self.staged_at.get(&name) {
            Some(&i) => self.staged[i].1 = value,
            None => {
                self.staged_at.insert(name.clone(), self.staged.len());
                self.staged.push((name, value));
            }
        }
    }

    fn unstage_all(&mut self) {
        self.staged.clear();
        self.staged_at.clear();
    }

    fn flush(&mut self) -> Result<(), u8> {
        self.staged_at.clear();
        for (name, v) in std::mem::take(&mut self.staged) {
            match v.as_ref().and_then(to_particle) {
                Some(p) => self.rec.set_bin(&name, p)?,
                None => self.rec.remove_bin(&name)?,
            }
        }
        Ok(())
    }
}

pub(super) fn fail(message: String) -> UdfFailure {
    UdfFailure::lua(message)
}

/// Creates a sandboxed Lua state with the prelude loaded (no io/os/debug/package).
pub fn new_lua() -> mlua::Result<Lua> {
    let lua = Lua::new_with(
        StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8,
        LuaOptions::default(),
    )?;
    lua.load(PRELUDE).set_name("@prelude.lua").exec()?;
    super::bytes_api::install(&lua)?;
    Ok(lua)
}

/// Error text as the server reports it in bin `FAILURE` (`file.lua:line: message`).
pub fn message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => m
            .split("\nstack traceback:")
            .next()
            .unwrap_or(m)
            .to_string(),
        mlua::Error::CallbackError { cause, .. } => message(cause),
        other => other.to_string(),
    }
}

/// Runs `function` of `modules[module]` on `rec` with msgpack-decoded `args`, stopped at
/// `deadline`.
pub fn run(
    modules: &BTreeMap<String, Vec<u8>>,
    module: &str,
    function: &str,
    args: Vec<Value>,
    rec: &mut dyn RecordMut,
    deadline: Instant,
) -> Result<UdfOutcome, UdfFailure> {
    let (lua, func) = prepare(modules, module, function, deadline)?;
    let state = RefCell::new(State {
        rec,
        staged: Vec::new(),
        staged_at: HashMap::new(),
    });
    let result = lua.scope(|scope| {
        let rec_tbl = lua.create_table()?;
        let mt = lua.create_table()?;
        mt.set(
            "__index",
            scope.create_function(|lua, (_t, k): (Table, String)| {
                to_lua(lua, &state.borrow().get(&k)?)
            })?,
        )?;
        mt.set(
            "__newindex",
            scope.create_function(|_, (_t, k, v): (Table, String, L)| {
                let v = from_lua_to(&v, Dest::Bin)?;
                state.borrow_mut().stage(k, (!v.is_nil()).then_some(v));
                Ok(())
            })?,
        )?;
        rec_tbl.set_metatable(Some(mt))?;
        install_aerospike(&lua, scope, &state)?;
        install_record(&lua, scope, &state)?;
        let mut call_args = vec![L::Table(rec_tbl)];
        for a in &args {
            call_args.push(to_lua(&lua, a)?);
        }
        let out: MultiValue = func.call(MultiValue::from_iter(call_args))?;
        from_lua_to(out.front().unwrap_or(&L::Nil), Dest::Reply)
    });
    let value = result.map_err(|e| fail(message(&e)))?;
    Ok(UdfOutcome {
        value: to_particle(&value),
    })
}

/// A limited Lua state with `modules[module]` loaded, and its `function`: its memory is capped
/// and the code running in it fails with [`TIMEOUT_MESSAGE`] once `deadline` has passed.
pub fn prepare(
    modules: &BTreeMap<String, Vec<u8>>,
    module: &str,
    function: &str,
    deadline: Instant,
) -> Result<(Lua, mlua::Function), UdfFailure> {
    let file = if module.ends_with(".lua") {
        module.to_string()
    } else {
        format!("{module}.lua")
    };
    let code = modules
        .get(&file)
        .ok_or_else(|| UdfFailure::module_not_found(module))?;
    let lua = new_lua().map_err(|e| fail(message(&e)))?;
    lua.set_memory_limit(MEMORY_LIMIT)
        .map_err(|e| fail(message(&e)))?;
    lua.set_hook(
        HookTriggers::new().every_nth_instruction(HOOK_EVERY),
        move |_, _| {
            if Instant::now() >= deadline {
                Err(mlua::Error::runtime(TIMEOUT_MESSAGE))
            } else {
                Ok(VmState::Continue)
            }
        },
    )
    .map_err(|e| fail(message(&e)))?;
    install_require(&lua, modules).map_err(|e| fail(message(&e)))?;
    let exports: L = lua
        .load(&code[..])
        .set_name(chunk_name(&file))
        .eval()
        .map_err(|e| fail(message(&e)))?;
    let func: mlua::Function = match &exports {
        L::Table(t) if t.contains_key(function).unwrap_or(false) => t.get(function),
        _ => lua.globals().get(function),
    }
    .map_err(|_| UdfFailure::function_not_found(module, function))?;
    Ok((lua, func))
}

/// `require(name)` for the other registered modules.
fn install_require(lua: &Lua, modules: &BTreeMap<String, Vec<u8>>) -> mlua::Result<()> {
    let sources: BTreeMap<String, Vec<u8>> = modules
        .iter()
        .map(|(k, v)| (k.trim_end_matches(".lua").to_string(), v.clone()))
        .collect();
    let loaded = lua.create_table()?;
    let require = lua.create_function(move |lua, name: String| {
        let cache: Table = lua.named_registry_value("udf_loaded")?;
        if let Ok(v @ L::Table(_)) = cache.get::<L>(name.as_str()) {
            return Ok(v);
        }
        let code = sources
            .get(&name)
            .ok_or_else(|| mlua::Error::runtime(format!("module '{name}' not found")))?;
        let v: L = lua
            .load(&code[..])
            .set_name(chunk_name(&format!("{name}.lua")))
            .eval()?;
        cache.set(name.as_str(), v.clone())?;
        Ok(v)
    })?;
    lua.set_named_registry_value("udf_loaded", loaded)?;
    lua.globals().set("require", require)
}

type St<'a, 'r> = &'a RefCell<State<'r>>;

fn code_of(r: Result<(), u8>) -> i64 {
    match r {
        Ok(()) => 0,
        Err(c) => i64::from(c),
    }
}

/// The `aerospike` object: `exists`, `create`, `update`, `remove`, `log`.
fn install_aerospike<'s>(
    lua: &Lua,
    scope: &'s mlua::Scope<'s, '_>,
    st: St<'s, '_>,
) -> mlua::Result<()> {
    let t = lua.create_table()?;
    t.set(
        "exists",
        scope.create_function(move |_, _: MultiValue| Ok(st.borrow().rec.exists()))?,
    )?;
    t.set(
        "create",
        scope.create_function(move |_, _: MultiValue| {
            let mut s = st.borrow_mut();
            if s.rec.exists() {
                return Ok(i64::from(crate::result::KEY_EXISTS));
            }
            Ok(code_of(s.flush().and_then(|()| s.rec.create())))
        })?,
    )?;
    t.set(
        "update",
        scope.create_function(move |_, _: MultiValue| {
            let mut s = st.borrow_mut();
            Ok(code_of(s.flush().and_then(|()| s.rec.update())))
        })?,
    )?;
    t.set(
        "remove",
        scope.create_function(move |_, _: MultiValue| {
            let mut s = st.borrow_mut();
            s.unstage_all();
            Ok(code_of(s.rec.remove()))
        })?,
    )?;
    t.set("log", lua.create_function(|_, _: MultiValue| Ok(()))?)?;
    lua.globals().set("aerospike", t)
}

/// The `record` module: metadata accessors and `set_ttl`.
fn install_record<'s>(
    lua: &Lua,
    scope: &'s mlua::Scope<'s, '_>,
    st: St<'s, '_>,
) -> mlua::Result<()> {
    let t = lua.create_table()?;
    t.set(
        "gen",
        scope.create_function(move |_, _: MultiValue| Ok(st.borrow().rec.generation()))?,
    )?;
    t.set(
        "ttl",
        scope.create_function(move |_, _: MultiValue| {
            let vt = st.borrow().rec.void_time_ns();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            Ok(if vt == 0 {
                -1
            } else {
                (vt.saturating_sub(now) / 1_000_000_000) as i64
            })
        })?,
    )?;
    t.set(
        "void_time",
        scope.create_function(move |_, _: MultiValue| {
            Ok((st.borrow().rec.void_time_ns() / 1_000_000_000) as i64)
        })?,
    )?;
    t.set(
        "last_update_time",
        scope.create_function(move |_, _: MultiValue| {
            Ok((st.borrow().rec.last_update_ns() / 1_000_000) as i64)
        })?,
    )?;
    t.set(
        "setname",
        scope
            .create_function(move |_, _: MultiValue| Ok(st.borrow().rec.set_name().to_string()))?,
    )?;
    t.set(
        "key",
        scope.create_function(move |lua, _: MultiValue| {
            let k = st.borrow().rec.user_key().map(from_particle).transpose();
            match k {
                Ok(Some(v)) => to_lua(lua, &v),
                _ => Ok(L::Nil),
            }
        })?,
    )?;
    t.set(
        "digest",
        scope.create_function(move |lua, _: MultiValue| {
            lua.create_userdata(digest_bytes(st.borrow().rec.digest()))
        })?,
    )?;
    t.set(
        "numbins",
        scope.create_function(move |_, _: MultiValue| Ok(st.borrow().rec.bin_names().len()))?,
    )?;
    t.set(
        "bin_names",
        scope.create_function(move |lua, _: MultiValue| {
            let names = st
                .borrow()
                .rec
                .bin_names()
                .into_iter()
                .map(|n| Value::Str(n.to_string()))
                .collect();
            to_lua(
                lua,
                &Value::List(List {
                    flags: 0,
                    items: names,
                }),
            )
        })?,
    )?;
    t.set(
        "set_ttl",
        scope.create_function(move |_, (_r, ttl): (L, i64)| {
            st.borrow_mut().rec.set_ttl(ttl);
            Ok(())
        })?,
    )?;
    lua.globals().set("record", t)
}

/// `record.digest(rec)`: the 20-byte digest as a blob `bytes`.
pub(super) fn digest_bytes(digest: &[u8; 20]) -> super::bytes::LuaBytes {
    super::bytes::LuaBytes::wrap(digest.to_vec(), i32::from(crate::particle_type::BLOB))
}
