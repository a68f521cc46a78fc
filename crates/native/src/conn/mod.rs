//! The client's one connection budget: every connection our path opens (TCP, TLS, login
//! session), leased per runtime within one limit per node for the whole client.

pub mod breaker;
pub mod connection;
pub mod frame;
pub mod links;
pub mod pool;
pub mod tls;

pub use links::Links;
pub use pool::Pool;
