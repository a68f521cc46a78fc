//! The PyO3 surface: the `Client` class and its operations, `connect`, connection settings,
//! call policies, logging, and the embedded server and cluster (the exception hierarchy is
//! the ground floor, `errors/`).

#[macro_use]
mod operations;

pub mod answering;
pub mod client;
mod client_admin;
mod client_cluster;
pub mod config;
pub mod connect;
mod dispatch;
pub mod embedded;
pub mod embedded_cluster;
pub mod idle;
pub mod policy;
