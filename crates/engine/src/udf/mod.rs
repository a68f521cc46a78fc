//! UDFs: a registry of Lua modules, `apply` of one module function to one record, and stream
//! UDFs (`aggregate` on the server, `reduce_partials` on the client).
//!
//! # Contract with the server (`RecordMut`)
//!
//! The server hands `Registry::apply` a *working copy* of the record behind [`RecordMut`]
//! (for a record that does not exist yet, `exists()` is false and it has no bins).
//! Lua code changes bins with `rec['bin'] = v`; those changes are staged inside the engine
//! and pushed to the working copy only when the UDF calls `aerospike:create(rec)` or
//! `aerospike:update(rec)`, in this order:
//!
//! 1. `set_bin` / `remove_bin` once per staged bin change (a Lua `nil` = remove),
//! 2. then `create()` (record must not exist → else `Err(5 KEY_EXISTS)`) or `update()`
//!    (creates the record when missing, like the real server).
//!
//! `aerospike:remove(rec)` calls `remove()`; `record.set_ttl(rec, ttl)` calls `set_ttl`.
//! After `apply` returns `Ok`, the server persists the working copy if any of
//! `create`/`update`/`remove`/`set_ttl` was called (bump generation, apply TTL); otherwise
//! the record is left untouched. On `Err` nothing must be persisted.
//!
//! The returned [`UdfOutcome::value`] goes to the client in bin `SUCCESS`; a
//! [`UdfFailure`] is sent as result code `code` (100 = UDF_BAD_RESPONSE for Lua errors)
//! with `message` as a string in bin `FAILURE`.

mod bytes;
mod bytes_api;
#[cfg(test)]
mod bytes_tests;
mod convert;
mod failure;
mod run;
mod stream;

pub use failure::{UdfFailure, FUNCTION_NOT_FOUND, USER_PATH};
pub use run::TIMEOUT_MESSAGE;

use std::collections::BTreeMap;
use std::sync::RwLock;
use std::time::Instant;

use crate::value::Value;
use crate::{Particle, RecordView, ResultCode};

/// Write access to the record a UDF runs against (implemented by the server).
pub trait RecordMut: RecordView {
    /// Sets (creates or replaces) a bin in the working copy.
    fn set_bin(&mut self, name: &str, value: Particle) -> Result<(), ResultCode>;
    /// Removes a bin from the working copy (no-op if absent).
    fn remove_bin(&mut self, name: &str) -> Result<(), ResultCode>;
    /// `aerospike:create(rec)`: the record must not exist yet; it exists afterwards.
    fn create(&mut self) -> Result<(), ResultCode>;
    /// `aerospike:update(rec)`: commit staged bins (creating the record when missing).
    fn update(&mut self) -> Result<(), ResultCode>;
    /// `aerospike:remove(rec)`: delete the record.
    fn remove(&mut self) -> Result<(), ResultCode>;
    /// `record.set_ttl(rec, ttl)`: TTL in seconds to apply when persisting (-1 never, 0 default).
    fn set_ttl(&mut self, ttl: i64);
}

/// A successful UDF call: the Lua return value (None = nil).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdfOutcome {
    pub value: Option<Particle>,
}

struct Module {
    code: Vec<u8>,
    hash: String,
}

/// Registered Lua modules, keyed by file name (`name.lua`).
#[derive(Default)]
pub struct Registry {
    modules: RwLock<BTreeMap<String, Module>>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers (or replaces) a module after checking that it compiles.
    pub fn register(&self, filename: &str, code: &[u8]) -> Result<(), String> {
        let lua = run::new_lua().map_err(|e| run::message(&e))?;
        lua.load(code)
            .set_name(failure::chunk_name(filename))
            .into_function()
            .map_err(|e| run::message(&e))?;
        let hash = sha1_hex(code);
        let mut m = self
            .modules
            .write()
            .map_err(|_| "registry poisoned".to_string())?;
        m.insert(
            filename.to_string(),
            Module {
                code: code.to_vec(),
                hash,
            },
        );
        Ok(())
    }

    /// Removes a module; false when it was not registered.
    pub fn remove(&self, filename: &str) -> bool {
        self.modules
            .write()
            .map(|mut m| m.remove(filename).is_some())
            .unwrap_or(false)
    }

    /// (file name, hash) of every module.
    pub fn list(&self) -> Vec<(String, String)> {
        self.modules
            .read()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.hash.clone())).collect())
            .unwrap_or_default()
    }

    /// Source of a module.
    pub fn get(&self, filename: &str) -> Option<Vec<u8>> {
        self.modules
            .read()
            .ok()?
            .get(filename)
            .map(|m| m.code.clone())
    }

    /// Calls `module.function(rec, args...)`; `args_msgpack` is the msgpack array of arguments.
    /// Lua still running at `deadline` fails with [`TIMEOUT_MESSAGE`].
    pub fn apply(
        &self,
        module: &str,
        function: &str,
        args_msgpack: &[u8],
        rec: &mut dyn RecordMut,
        deadline: Instant,
    ) -> Result<UdfOutcome, UdfFailure> {
        let args = decode_args(args_msgpack)?;
        let sources = self.sources()?;
        run::run(&sources, module, function, args, rec, deadline)
    }

    /// Server half of stream UDF `module.function`, once per group of records (a partition's):
    /// its steps up to and including the first reduce. Each output value goes to `emit` as it
    /// comes (the server sends it in bin `SUCCESS`); false from `emit` stops the stream, and
    /// so does `deadline`.
    pub fn aggregate<R: RecordView>(
        &self,
        module: &str,
        function: &str,
        args_msgpack: &[u8],
        groups: impl Iterator<Item = Vec<R>>,
        emit: &mut dyn FnMut(Value) -> bool,
        deadline: Instant,
    ) -> Result<(), UdfFailure> {
        let args = decode_args(args_msgpack)?;
        let sources = self.sources()?;
        stream::run_server(&sources, module, function, &args, groups, emit, deadline)
    }

    fn sources(&self) -> Result<BTreeMap<String, Vec<u8>>, UdfFailure> {
        let m = self
            .modules
            .read()
            .map_err(|_| UdfFailure::other(1, "registry poisoned"))?;
        Ok(m.iter().map(|(k, v)| (k.clone(), v.code.clone())).collect())
    }
}

/// Client half of stream UDF `module.function` (Lua `source`): its steps from the first
/// reduce on, over the partial results of every node, until `deadline`.
pub fn reduce_partials(
    module: &str,
    source: &[u8],
    function: &str,
    args: &[Value],
    partials: Vec<Value>,
    deadline: Instant,
) -> Result<Vec<Value>, UdfFailure> {
    let name = module.trim_end_matches(".lua");
    let modules = BTreeMap::from([(format!("{name}.lua"), source.to_vec())]);
    stream::run_client(&modules, name, function, args, partials, deadline)
}

fn decode_args(args_msgpack: &[u8]) -> Result<Vec<Value>, UdfFailure> {
    match crate::pack::decode(args_msgpack) {
        _ if args_msgpack.is_empty() => Ok(Vec::new()),
        Ok(Value::List(l)) => Ok(l.items),
        _ => Err(UdfFailure::other(
            crate::result::PARAMETER_ERROR,
            "bad UDF arguments",
        )),
    }
}

fn sha1_hex(code: &[u8]) -> String {
    use sha1::Digest;
    sha1::Sha1::digest(code)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
