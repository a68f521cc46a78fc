//! The buffer behind the Lua `bytes` type: a capacity, a size within it and a type number,
//! with the real server's rules. Writes grow the capacity and then the size; reads through
//! `copy` stay within the size; the raw reads (`raw`, `read_var_int`) see the whole capacity,
//! and zeros past it.

use crate::particle_type as pt;
use crate::value::Value;

/// Largest capacity a `bytes` may grow to (a bigger request fails like an allocation would).
pub const MAX_CAPACITY: u64 = super::run::MEMORY_LIMIT as u64;

/// A byte buffer with a size, a capacity (`buf.len()`) and an `as_bytes` type number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LuaBytes {
    buf: Vec<u8>,
    size: usize,
    /// The type number (`get_type` / `set_type`): 4 blob, 7 Java, 9 Python, 18 HLL...
    pub ty: i32,
}

impl LuaBytes {
    /// An empty buffer of `capacity` zero bytes (None past [`MAX_CAPACITY`]).
    pub fn with_capacity(capacity: u64) -> Option<Self> {
        (capacity <= MAX_CAPACITY).then(|| Self {
            buf: vec![0; capacity as usize],
            size: 0,
            ty: i32::from(pt::BLOB),
        })
    }

    /// `data` as a full buffer (size = capacity) of type `ty`.
    pub fn wrap(data: Vec<u8>, ty: i32) -> Self {
        Self {
            size: data.len(),
            buf: data,
            ty,
        }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The bytes within the size.
    pub fn data(&self) -> &[u8] {
        &self.buf[..self.size]
    }

    /// Makes the capacity at least `capacity`: true when it already is, or (with `resize`)
    /// after growing it.
    pub fn ensure(&mut self, capacity: u64, resize: bool) -> bool {
        if capacity <= self.buf.len() as u64 {
            return true;
        }
        if !resize || capacity > MAX_CAPACITY {
            return false;
        }
        self.buf.resize(capacity as usize, 0);
        true
    }

    /// Writes `src` at `index` (0-based) within the capacity, growing the size to cover it.
    pub fn set(&mut self, index: u64, src: &[u8]) -> bool {
        let end = index + src.len() as u64;
        if end > self.buf.len() as u64 {
            return false;
        }
        self.buf[index as usize..end as usize].copy_from_slice(src);
        self.size = self.size.max(end as usize);
        true
    }

    /// Grows the capacity to fit `src` at `index`, then writes it.
    pub fn put(&mut self, index: u64, src: &[u8]) -> bool {
        self.ensure(index + src.len() as u64, true) && self.set(index, src)
    }

    /// Appends `src` after the size, growing the capacity as needed.
    pub fn append(&mut self, src: &[u8]) -> bool {
        self.put(self.size as u64, src)
    }

    /// `N` bytes at `index` when they lie within the size.
    pub fn copy<const N: usize>(&self, index: u64) -> Option<[u8; N]> {
        let end = index.checked_add(N as u64)?;
        if end > self.size as u64 {
            return None;
        }
        self.buf[index as usize..end as usize].try_into().ok()
    }

    /// `n` bytes of the buffer from `index`, the size not checked (zeros past the capacity);
    /// None when `n` is over [`MAX_CAPACITY`].
    pub fn raw(&self, index: u64, n: u64) -> Option<Vec<u8>> {
        if n > MAX_CAPACITY {
            return None;
        }
        let mut out = vec![0; n as usize];
        let start = index.min(self.buf.len() as u64) as usize;
        let avail = &self.buf[start..];
        let k = avail.len().min(out.len());
        out[..k].copy_from_slice(&avail[..k]);
        Some(out)
    }

    /// Reads a 7-bit variable-length integer at `index` (high bit = more bytes follow):
    /// (value, bytes read). Reads past the size, and zeros past the capacity.
    pub fn read_var_int(&self, index: u64) -> (u32, usize) {
        let (mut value, mut shift, mut read) = (0u32, 0u32, 0usize);
        loop {
            let b = usize::try_from(index + read as u64)
                .ok()
                .and_then(|i| self.buf.get(i))
                .copied()
                .unwrap_or(0);
            read += 1;
            value |= u32::from(b & 0x7f).wrapping_shl(shift);
            shift += 7;
            if b & 0x80 == 0 {
                return (value, read);
            }
        }
    }

    /// Writes `value` as a variable-length integer at `index` within the capacity, leaving the
    /// size as it is (as the server does): the bytes written, 0 when it does not fit.
    pub fn write_var_int(&mut self, index: u64, mut value: u32) -> usize {
        let Ok(start) = usize::try_from(index) else {
            return 0;
        };
        let mut p = start;
        while p < self.buf.len() && value >= 0x80 {
            self.buf[p] = (value as u8) | 0x80;
            value >>= 7;
            p += 1;
        }
        if p < self.buf.len() {
            self.buf[p] = value as u8;
            p + 1 - start
        } else {
            0
        }
    }

    /// `tostring(b)`: the bytes as upper-case hex pairs separated by spaces, `Bytes()` if empty.
    pub fn to_hex(&self) -> String {
        if self.size == 0 {
            return "Bytes()".to_string();
        }
        let pairs: Vec<String> = self.data().iter().map(|b| format!("{b:02X}")).collect();
        pairs.join(" ")
    }

    /// The value a bin written with these bytes holds: the type picks the particle (3 makes
    /// a string; 4, the language blobs 7-12, 16 and HLL 18 are kept; any other is a blob).
    pub fn to_bin(&self) -> Value {
        match self.ty {
            3 => Value::Str(String::from_utf8_lossy(self.data()).into_owned()),
            4 | 7..=12 | 16 | 18 => Value::Bytes(self.ty as u8, self.data().to_vec()),
            _ => Value::Bytes(pt::BLOB, self.data().to_vec()),
        }
    }

    /// The value a UDF result (or stream output) carries to the client: always a plain blob.
    pub fn to_reply(&self) -> Value {
        Value::Bytes(pt::BLOB, self.data().to_vec())
    }

    /// The value inside a list or map: msgpack keeps the type's low byte (3 = string,
    /// 23 = GeoJSON, as any msgpack reader sees them).
    pub fn to_element(&self) -> Value {
        match self.ty as u8 {
            pt::STRING => Value::Str(String::from_utf8_lossy(self.data()).into_owned()),
            pt::GEOJSON => Value::GeoJson(String::from_utf8_lossy(self.data()).into_owned()),
            t => Value::Bytes(t, self.data().to_vec()),
        }
    }
}
