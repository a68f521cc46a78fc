//! Shared set-up for the integration tests: one embedded server and a connected crate client.

#![allow(dead_code)]

use aerospike::{Client, ClientPolicy};
use server::{Server, ServerConfig};

/// A fresh server and a client connected to it.
pub async fn connect() -> (Server, Client) {
    let server = Server::start(ServerConfig::default()).expect("server starts");
    let client = client_for(&server).await;
    (server, client)
}

pub async fn client_for(server: &Server) -> Client {
    let policy = ClientPolicy::default();
    let host = server.addr().to_string();
    Client::new(&policy, &host).await.expect("client connects")
}

/// Value of one stats counter.
pub fn stat(server: &Server, name: &str) -> u64 {
    server
        .stats()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no stat {name}"))
}
