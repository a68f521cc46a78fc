//! Where calls run and how their results reach Python: the Tokio runtimes (worker,
//! caller-driven, one per event loop), the route each call takes through them, blocking twins,
//! spinning and parking, the asyncio / trio completer, and the guards that keep panics and
//! interpreter exit out of Python.

pub mod admission;
pub mod blocking;
pub mod completion;
pub mod exit;
pub mod in_flight;
pub mod loop_runtime;
pub mod park;
pub mod runtime;
pub mod runtime_client;
pub mod spin;
