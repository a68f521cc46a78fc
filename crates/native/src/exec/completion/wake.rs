//! The socket pair an event loop watches to learn that completions are queued: runtime threads
//! write a byte to one end, the loop reads the other. A Unix socket pair where there is one; a
//! loopback TCP pair elsewhere (and with `--cfg aerospike_fluent_portable`, which CI checks so
//! that path keeps compiling).

use std::io;

#[cfg(all(unix, not(aerospike_fluent_portable)))]
pub type Stream = std::os::unix::net::UnixStream;
#[cfg(not(all(unix, not(aerospike_fluent_portable))))]
pub type Stream = std::net::TcpStream;

/// A connected pair `(tx, rx)`, both non-blocking.
pub fn pair() -> io::Result<(Stream, Stream)> {
    let (tx, rx) = connected()?;
    tx.set_nonblocking(true)?;
    rx.set_nonblocking(true)?;
    Ok((tx, rx))
}

#[cfg(all(unix, not(aerospike_fluent_portable)))]
fn connected() -> io::Result<(Stream, Stream)> {
    Stream::pair()
}

#[cfg(not(all(unix, not(aerospike_fluent_portable))))]
fn connected() -> io::Result<(Stream, Stream)> {
    tcp_pair()
}

/// A connected loopback TCP pair (compiled everywhere, so its test runs on Linux too).
#[cfg_attr(all(unix, not(aerospike_fluent_portable)), allow(dead_code))]
fn tcp_pair() -> io::Result<(std::net::TcpStream, std::net::TcpStream)> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    let tx = std::net::TcpStream::connect(listener.local_addr()?)?;
    let (rx, _) = listener.accept()?;
    tx.set_nodelay(true)?;
    Ok((tx, rx))
}

/// The descriptor (a socket handle on Windows) the loop watches.
#[cfg(unix)]
pub fn fileno(s: &Stream) -> i64 {
    use std::os::fd::AsRawFd;
    i64::from(s.as_raw_fd())
}

#[cfg(windows)]
pub fn fileno(s: &Stream) -> i64 {
    use std::os::windows::io::AsRawSocket;
    i64::try_from(s.as_raw_socket()).unwrap_or(-1)
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    #[test]
    fn a_byte_written_to_either_pair_is_read_at_the_other_end() {
        let (mut tx, mut rx) = pair().unwrap();
        let mut buf = [0u8; 8];
        assert!(
            rx.read(&mut buf).is_err(),
            "nothing to read yet: would block"
        );
        tx.write_all(&[1]).unwrap();
        let (mut t, mut r) = tcp_pair().unwrap();
        t.write_all(&[2]).unwrap();
        let mut got = |s: &mut dyn Read| loop {
            match s.read(&mut buf) {
                Ok(n) => return buf[..n].to_vec(),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(got(&mut rx), vec![1]);
        assert_eq!(got(&mut r), vec![2]);
        assert!(fileno(&rx) >= 0);
    }
}
