//! MurmurHash3, x64 128-bit variant (Austin Appleby's public-domain algorithm), seed 0: the
//! hash HLL elements are placed by, so sketches agree register for register with the server's.

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

fn mix1(k: u64) -> u64 {
    k.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix2(k: u64) -> u64 {
    k.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

fn le(b: &[u8]) -> u64 {
    b.iter()
        .enumerate()
        .fold(0, |acc, (i, &x)| acc | (u64::from(x) << (8 * i)))
}

/// The two 64-bit halves of the hash of `data`.
pub fn hash128(data: &[u8]) -> (u64, u64) {
    let (mut h1, mut h2) = (0u64, 0u64);
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        h1 ^= mix1(le(&b[..8]));
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix2(le(&b[8..]));
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    if tail.len() > 8 {
        h2 ^= mix2(le(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix1(le(&tail[..tail.len().min(8)]));
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    (h1, h2.wrapping_add(h1))
}

#[cfg(test)]
mod tests {
    use super::hash128;

    #[test]
    fn known_vectors() {
        assert_eq!(hash128(b""), (0, 0));
        // The reference implementation's output for "hello", seed 0.
        assert_eq!(
            hash128(b"hello"),
            (0xcbd8_a7b3_41bd_9b02, 0x5b1e_906a_48ae_1d19)
        );
    }
}
