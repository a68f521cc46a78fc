//! Fault injection, restart, malformed input and connection accounting.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;

use aerospike::{as_bin, as_key, Bins, ReadPolicy, WritePolicy};

#[tokio::test]
async fn fail_and_restart_keep_data() {
    let (server, client) = common::connect().await;
    let key = as_key!("test", "faults", 1);
    client
        .put(&WritePolicy::default(), &key, &[as_bin!("a", 1)])
        .await
        .expect("put");
    server.faults().fail(22, 1);
    let err = client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect_err("forced failure");
    assert_eq!(err.result_code(), 22);
    client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("fault consumed");

    server.restart().expect("restart");
    assert!(server.is_running());
    let fresh = common::client_for(&server).await;
    let rec = fresh
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("data kept");
    assert_eq!(rec.generation, 1);
    server.stop();
    server.stop();
    assert!(!server.is_running());
    assert!(TcpStream::connect(server.addr()).is_err());
}

/// Sends one raw frame and returns the reply bytes (empty when the server closed).
fn raw_exchange(addr: std::net::SocketAddr, frame: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.write_all(frame).expect("send");
    let mut head = [0u8; 8];
    if s.read_exact(&mut head).is_err() {
        return Vec::new();
    }
    let len = (u64::from_be_bytes(head) & 0xFFFF_FFFF_FFFF) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).expect("body");
    body
}

#[test]
fn malformed_frames_get_an_error_or_a_close_and_the_server_lives_on() {
    let server = server::Server::start(server::ServerConfig::default()).expect("start");
    // A message whose field length runs past the end: PARAMETER_ERROR (4).
    let mut msg = vec![22u8, 1, 0, 0, 0, 0];
    msg.extend_from_slice(&[0; 12]);
    msg.extend_from_slice(&1u16.to_be_bytes());
    msg.extend_from_slice(&0u16.to_be_bytes());
    msg.extend_from_slice(&100u32.to_be_bytes());
    let mut frame = (0x0203_0000_0000_0000u64 | msg.len() as u64)
        .to_be_bytes()
        .to_vec();
    frame.extend_from_slice(&msg);
    let reply = raw_exchange(server.addr(), &frame);
    assert_eq!(reply.get(5), Some(&4));
    // A bad protocol version: the connection is closed without a reply.
    assert!(raw_exchange(server.addr(), &[9, 3, 0, 0, 0, 0, 0, 1, 0]).is_empty());
    // An unknown info name is answered like a real server does.
    let mut info = (0x0201_0000_0000_0000u64 | 4).to_be_bytes().to_vec();
    info.extend_from_slice(b"foo\n");
    let reply = raw_exchange(server.addr(), &info);
    assert_eq!(
        String::from_utf8_lossy(&reply),
        "foo\tERROR:4:unrecognized command\n"
    );
}

#[tokio::test]
async fn drop_after_closes_one_connection_and_stats_count() {
    let (server, client) = common::connect().await;
    let key = as_key!("test", "faults_drop", 1);
    client
        .put(&WritePolicy::default(), &key, &[as_bin!("a", 1)])
        .await
        .expect("put");
    let before = common::stat(&server, "connections_total");
    server.faults().drop_after(0);
    let mut rp = ReadPolicy::default();
    rp.base_policy.max_retries = 0;
    assert!(client.get(&rp, &key, Bins::All).await.is_err());
    // The retry-capable default policy reconnects and succeeds.
    client
        .get(&ReadPolicy::default(), &key, Bins::All)
        .await
        .expect("served again");
    assert!(common::stat(&server, "connections_total") > before);
    assert!(common::stat(&server, "records") >= 1);
}
