//! In-memory server speaking the Aerospike wire protocol (single node, in-memory namespaces).
//!
//! Public surface used by the `native` crate (and so by Python):
//! [`ServerConfig`], [`Server::start`], [`Server::addr`], [`Server::stop`], [`Server::faults`],
//! [`Server::stats`].
