//! The 8-byte proto header every message on a connection starts with: version, message type
//! and body size.

const PROTO_VERSION: u8 = 2;
/// The message type of a record command (and its replies).
pub const AS_MSG: u8 = 3;

/// The 8-byte proto header of a message of `kind` whose body is `size` bytes.
pub fn proto_header(kind: u8, size: usize) -> [u8; 8] {
    let proto = (u64::from(PROTO_VERSION) << 56) | (u64::from(kind) << 48) | size as u64;
    proto.to_be_bytes()
}
