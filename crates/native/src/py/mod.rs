//! The PyO3 surface: the `Client` class and its operations, `connect`, connection settings,
//! call policies, logging, and the embedded server and cluster (the exception hierarchy is
//! the ground floor, `errors.rs`).

pub mod client;
pub mod config;
pub mod connect;
pub mod embedded;
pub mod embedded_cluster;
pub mod logs;
pub mod policy;
