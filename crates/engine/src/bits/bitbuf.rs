//! Bit-level primitives on byte buffers. Bit 0 is the most significant bit of byte 0
//! (offsets run left to right, as the server counts them).

/// The bit at `i`.
pub fn get(buf: &[u8], i: u64) -> bool {
    buf[(i / 8) as usize] & (0x80 >> (i % 8)) != 0
}

/// Sets the bit at `i` to `v`.
pub fn put(buf: &mut [u8], i: u64, v: bool) {
    let m = 0x80u8 >> (i % 8);
    let b = &mut buf[(i / 8) as usize];
    if v {
        *b |= m;
    } else {
        *b &= !m;
    }
}

/// The `size` bits at `off`, as an unsigned big-endian integer (`size` <= 64).
pub fn load(buf: &[u8], off: u64, size: u64) -> u64 {
    (0..size).fold(0u64, |acc, i| (acc << 1) | u64::from(get(buf, off + i)))
}

/// Writes the low `size` bits of `v` at `off`, most significant first.
pub fn store(buf: &mut [u8], off: u64, size: u64, v: u64) {
    for i in 0..size {
        put(buf, off + i, (v >> (size - 1 - i)) & 1 != 0);
    }
}

/// Copies `size` bits of `src` (from its bit 0) into `buf` at `off`, combining old and new
/// bits with `f`.
pub fn combine(buf: &mut [u8], off: u64, size: u64, src: &[u8], f: impl Fn(bool, bool) -> bool) {
    for i in 0..size {
        let old = get(buf, off + i);
        put(buf, off + i, f(old, get(src, i)));
    }
}

/// Inverts the `size` bits at `off`.
pub fn invert(buf: &mut [u8], off: u64, size: u64) {
    for i in off..off + size {
        let v = get(buf, i);
        put(buf, i, !v);
    }
}

/// Shifts the `size` bits at `off` left (towards offset 0) by `n`, filling with zeros.
pub fn shift_left(buf: &mut [u8], off: u64, size: u64, n: u64) {
    for i in 0..size {
        let v = i + n < size && get(buf, off + i + n);
        put(buf, off + i, v);
    }
}

/// Shifts the `size` bits at `off` right (away from offset 0) by `n`, filling with zeros.
pub fn shift_right(buf: &mut [u8], off: u64, size: u64, n: u64) {
    for i in (0..size).rev() {
        let v = i >= n && get(buf, off + i - n);
        put(buf, off + i, v);
    }
}

/// The `size` bits at `off`, left-aligned in whole bytes (trailing bits zero).
pub fn extract(buf: &[u8], off: u64, size: u64) -> Vec<u8> {
    let mut out = vec![0u8; size.div_ceil(8) as usize];
    for i in 0..size {
        if get(buf, off + i) {
            put(&mut out, i, true);
        }
    }
    out
}

/// How many of the `size` bits at `off` are set.
pub fn count(buf: &[u8], off: u64, size: u64) -> u64 {
    (0..size).filter(|&i| get(buf, off + i)).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_and_loads() {
        let mut b = [0x01u8, 0x42];
        assert_eq!(load(&b, 0, 16), 0x0142);
        shift_left(&mut b, 4, 8, 2);
        assert_eq!(b, [0x05, 0x02]);
        shift_right(&mut b, 0, 16, 1);
        assert_eq!(b, [0x02, 0x81]);
        store(&mut b, 4, 8, 0xff);
        assert_eq!(b, [0x0f, 0xf1]);
        assert_eq!(extract(&b, 4, 9), [0xff, 0x00]);
        assert_eq!(count(&b, 0, 16), 9);
    }
}
