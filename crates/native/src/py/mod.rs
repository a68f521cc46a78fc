//! The PyO3 surface: the `Client` class and its operations, `connect`, connection settings,
//! call policies, the exception hierarchy, logging, and the embedded server and cluster.

pub mod client;
pub mod config;
pub mod connect;
pub mod embedded;
pub mod embedded_cluster;
pub mod errors;
pub mod logs;
pub mod policy;
