//! How a `bytes` user key is hashed (`bytes_keys`): as a blob (particle type 4: this SDK,
//! aerospike-sdk, Java, the Rust crate) or as a string of those bytes (type 3: the official
//! C-based Python client and aerospike-py). A `bytearray` key is a blob either way, as in the
//! C-based client. The user key sent with `send_key` carries the type its digest was made with.

use aerospike::{Key, Value};
use pyo3::prelude::*;
use ripemd::{Digest, Ripemd160};

use crate::errors::invalid_argument;

/// The particle type of a string.
const STRING: u8 = 3;

/// How a client hashes `bytes` user keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BytesKeys {
    /// As a blob (type 4).
    #[default]
    Blob,
    /// As a string of the same bytes (type 3).
    String,
}

impl BytesKeys {
    /// The setting named `name` (`"blob"` or `"string"`).
    pub fn parse(name: &str) -> PyResult<Self> {
        match name {
            "blob" => Ok(BytesKeys::Blob),
            "string" => Ok(BytesKeys::String),
            other => Err(invalid_argument(format!(
                "bytes_keys must be 'blob' or 'string', not {other:?}"
            ))),
        }
    }

    /// The user key of `bytes`: a blob, or the bytes under the string particle type.
    pub fn user_key(self, bytes: &[u8]) -> Value {
        match self {
            BytesKeys::Blob => Value::Blob(bytes.to_vec()),
            BytesKeys::String => Value::Unknown(STRING, bytes.to_vec()),
        }
    }
}

/// The key of `user` in `set`: the crate hashes every type but the string of raw bytes that
/// [`BytesKeys::user_key`] makes, hashed here the same way (set name, type, bytes).
pub fn key(namespace: String, set: String, user: Value) -> aerospike::Result<Key> {
    let Value::Unknown(STRING, bytes) = &user else {
        return Key::new(namespace, set, user);
    };
    let mut hash = Ripemd160::new();
    hash.update(set.as_bytes());
    hash.update([STRING]);
    hash.update(bytes);
    let digest: [u8; 20] = hash.finalize().into();
    Ok(Key::with_digest(namespace, set, Some(user), digest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_bytes_hash_as_the_string() {
        let text = Key::new("test", "s", Value::from("k\u{7}")).unwrap();
        let bytes = key(
            "test".into(),
            "s".into(),
            BytesKeys::String.user_key(b"k\x07"),
        )
        .unwrap();
        assert_eq!(bytes.digest(), text.digest());
        let blob = key(
            "test".into(),
            "s".into(),
            BytesKeys::Blob.user_key(b"k\x07"),
        )
        .unwrap();
        assert_ne!(blob.digest(), text.digest());
    }

    #[test]
    fn bytes_that_are_not_utf8_still_hash() {
        let k = key(
            "test".into(),
            "".into(),
            BytesKeys::String.user_key(b"\xff\xfe"),
        )
        .unwrap();
        assert_eq!(k.user_key(), Some(&Value::Unknown(3, vec![0xff, 0xfe])));
    }
}
