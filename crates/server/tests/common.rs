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

/// One info request on a fresh (not logged in) connection; the reply's text.
pub async fn info(server: &Server, command: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut sock = tokio::net::TcpStream::connect(server.addr())
        .await
        .expect("connect");
    let body = format!("{command}\n");
    let header = (2u64 << 56) | (1u64 << 48) | body.len() as u64;
    sock.write_all(&header.to_be_bytes()).await.expect("send");
    sock.write_all(body.as_bytes()).await.expect("send");
    let mut head = [0u8; 8];
    sock.read_exact(&mut head).await.expect("reply header");
    let len = (u64::from_be_bytes(head) & 0xFFFF_FFFF_FFFF) as usize;
    let mut reply = vec![0u8; len];
    sock.read_exact(&mut reply).await.expect("reply body");
    String::from_utf8(reply).expect("text")
}
