//! The HLL particle: a HyperLogLog sketch with optional MinHash bits per register
//! (HyperMinHash, Yu and Weber 2017), and its estimators.
//!
//! Layout: flags (0), index bits `p` (4..=16), minhash bits `m` (0 or 4..=51, `p + m <= 64`),
//! an 8-byte cached count (little-endian, 0 = not cached), then `2^p` registers of `6 + m` bits
//! packed most significant bit first. A register holds the HLL value (position of the lowest set
//! bit of the hash's second half, plus one) above `m` MinHash bits.

use super::murmur::hash128;

pub const HEADER: usize = 11;
const HLL_BITS: u32 = 6;
pub const MIN_INDEX_BITS: i64 = 4;
pub const MAX_INDEX_BITS: i64 = 16;
pub const MIN_MINHASH_BITS: i64 = 4;
pub const MAX_MINHASH_BITS: i64 = 64 - HLL_BITS as i64 - 7;

pub fn valid_index_bits(p: i64) -> bool {
    (MIN_INDEX_BITS..=MAX_INDEX_BITS).contains(&p)
}

pub fn valid_minhash_bits(m: i64) -> bool {
    m == 0 || (MIN_MINHASH_BITS..=MAX_MINHASH_BITS).contains(&m)
}

pub fn valid_bits(p: i64, m: i64) -> bool {
    valid_index_bits(p) && valid_minhash_bits(m) && p + m <= 64
}

/// Size in bytes of a sketch with these parameters.
pub fn size(p: u8, m: u8) -> usize {
    HEADER + ((HLL_BITS as usize + m as usize) << p).div_ceil(8)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Sketch {
    pub p: u8,
    pub m: u8,
    pub cache: u64,
    regs: Vec<u8>,
}

impl Sketch {
    pub fn new(p: u8, m: u8) -> Sketch {
        Sketch {
            p,
            m,
            cache: 0,
            regs: vec![0; size(p, m) - HEADER],
        }
    }

    /// A stored or sent sketch, checked: flags 0, valid parameters, exact size.
    pub fn parse(b: &[u8]) -> Option<Sketch> {
        let (&flags, rest) = b.split_first()?;
        let (p, m) = (*rest.first()?, *rest.get(1)?);
        if flags != 0 || !valid_index_bits(i64::from(p)) || !valid_minhash_bits(i64::from(m)) {
            return None;
        }
        if b.len() != size(p, m) {
            return None;
        }
        let cache = u64::from_le_bytes(b[3..HEADER].try_into().ok()?);
        Some(Sketch {
            p,
            m,
            cache,
            regs: b[HEADER..].to_vec(),
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.regs.len());
        out.extend_from_slice(&[0, self.p, self.m]);
        out.extend_from_slice(&self.cache.to_le_bytes());
        out.extend_from_slice(&self.regs);
        out
    }

    pub fn n_regs(&self) -> usize {
        1 << self.p
    }

    fn width(&self) -> usize {
        HLL_BITS as usize + self.m as usize
    }

    /// Register `r` (its `6 + m` bits, read from a 128-bit big-endian window).
    pub fn get(&self, r: usize) -> u64 {
        let (w, start) = (self.width(), r * self.width());
        let mut window = [0u8; 16];
        let from = start / 8;
        let n = (self.regs.len() - from).min(16);
        window[..n].copy_from_slice(&self.regs[from..from + n]);
        let v = u128::from_be_bytes(window);
        ((v >> (128 - start % 8 - w)) & ((1u128 << w) - 1)) as u64
    }

    pub fn set(&mut self, r: usize, value: u64) {
        let (w, start) = (self.width(), r * self.width());
        for i in 0..w {
            let bit = (value >> (w - 1 - i)) & 1 != 0;
            let at = start + i;
            let mask = 0x80u8 >> (at % 8);
            if bit {
                self.regs[at / 8] |= mask;
            } else {
                self.regs[at / 8] &= !mask;
            }
        }
    }

    /// The HLL part of register `r`.
    pub fn hll_value(&self, r: usize) -> u64 {
        self.get(r) >> self.m
    }

    /// Adds one element (its canonical msgpack bytes); true when a register grew.
    pub fn add(&mut self, element: &[u8]) -> bool {
        let (r, value) = self.place(element);
        if self.get(r) < value {
            self.set(r, value);
            self.cache = 0;
            return true;
        }
        false
    }

    /// Where an element lands: (register, value).
    fn place(&self, element: &[u8]) -> (usize, u64) {
        let (h0, h1) = hash128(element);
        let r = (h0 & ((1u64 << self.p) - 1)) as usize;
        let minhash = (h0 >> self.p) & ((1u64 << self.m) - 1);
        let hll = u64::from(h1.trailing_zeros() + 1).min((1 << HLL_BITS) - 1);
        (r, (hll << self.m) | minhash)
    }

    /// Whether the element may have been added (its register is at least its value).
    pub fn may_contain(&self, element: &[u8]) -> bool {
        let (r, value) = self.place(element);
        value <= self.get(r)
    }

    /// The server's emptiness test: a set bit among the first `2^p` bytes of registers.
    pub fn has_data(&self) -> bool {
        self.regs.iter().take(self.n_regs()).any(|&b| b != 0)
    }

    pub fn used_registers(&self) -> usize {
        (0..self.n_regs()).filter(|&r| self.get(r) != 0).count()
    }

    /// Estimated count: the cached one, or Ertl's improved raw estimator (arXiv 1702.01284).
    pub fn estimate(&self) -> u64 {
        if self.cache != 0 {
            return self.cache;
        }
        let regs = self.n_regs();
        let mut hist = [0u32; 65];
        for r in 0..regs {
            hist[self.hll_value(r) as usize] += 1;
        }
        let m = regs as f64;
        let mut z = m * tau(f64::from(hist[64]) / m);
        for k in (1..=64).rev() {
            z = 0.5 * (z + f64::from(hist[k]));
        }
        z += m * sigma(f64::from(hist[0]) / m);
        (alpha(self.p) * m * m / z).round() as u64
    }
}

fn alpha(p: u8) -> f64 {
    match p {
        4 => 0.673,
        5 => 0.697,
        6 => 0.709,
        _ => 0.7213 / (1.0 + 1.079 / f64::from(1u32 << p)),
    }
}

/// σ(x) = x + Σ_{k≥1} x^(2^k) · 2^(k-1).
fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let (mut y, mut z) = (1.0, x);
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if z == before {
            return z;
        }
    }
}

/// τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^-k))² · 2^-k) / 3.
fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let (mut y, mut z) = (1.0, 1.0 - x);
    loop {
        x = x.sqrt();
        let before = z;
        y *= 0.5;
        z -= (1.0 - x).powi(2) * y;
        if z == before {
            return z / 3.0;
        }
    }
}

/// The parameters a union of `sketches` has: the fewest index bits, and the MinHash bits only
/// when every sketch has the same.
pub fn template(sketches: &[&Sketch]) -> (u8, u8) {
    let mut p = sketches[0].p;
    let mut m = sketches[0].m;
    for s in &sketches[1..] {
        p = p.min(s.p);
        if m != s.m {
            m = 0;
        }
    }
    (p, m)
}

/// Folds `src` into `dst` (which has no more index bits than `src`).
pub fn union_into(dst: &mut Sketch, src: &Sketch) {
    let mask = dst.n_regs() - 1;
    for r in 0..src.n_regs() {
        let to = r & mask;
        let (cur, v) = if dst.m == 0 {
            (dst.hll_value(to), src.hll_value(r))
        } else {
            (dst.get(to), src.get(r))
        };
        if cur < v {
            dst.set(to, v);
        }
    }
    dst.cache = 0;
}

pub fn union(sketches: &[&Sketch]) -> Sketch {
    let (p, m) = template(sketches);
    let mut out = Sketch::new(p, m);
    for s in sketches {
        union_into(&mut out, s);
    }
    out
}

pub fn intersect_count(sketches: &[&Sketch]) -> u64 {
    if template(sketches).1 != 0 {
        let j = similarity(sketches);
        return if j.is_nan() {
            0
        } else {
            (union(sketches).estimate() as f64 * j).round() as u64
        };
    }
    // Inclusion-exclusion over the HLL counts (two or three sketches).
    let all = union(sketches).estimate();
    let sum = sketches
        .iter()
        .fold(0u64, |acc, s| acc.saturating_add(s.estimate()));
    if sketches.len() == 2 {
        return sum.saturating_sub(all);
    }
    let pairs = intersect_count(&sketches[..2])
        + intersect_count(&sketches[1..])
        + intersect_count(&[sketches[0], sketches[2]]);
    (all as i64 - (sum as i64 - pairs as i64)).max(0) as u64
}

/// Jaccard similarity estimate (NaN when every sketch is empty).
pub fn similarity(sketches: &[&Sketch]) -> f64 {
    let (p, m) = template(sketches);
    if m == 0 {
        return intersect_count(sketches) as f64 / union(sketches).estimate() as f64;
    }
    let with_data = sketches.iter().filter(|s| s.has_data()).count();
    if with_data < sketches.len() {
        return if with_data > 0 { 0.0 } else { f64::NAN };
    }
    let n_union = union(sketches).used_registers();
    let mut common = Sketch::new(p, m);
    union_into(&mut common, sketches[0]);
    let mask = common.n_regs() - 1;
    for s in &sketches[1..] {
        for r in 0..s.n_regs() {
            let v = common.get(r & mask);
            common.set(r & mask, if v == s.get(r) { v } else { 0 });
        }
    }
    let collisions = if sketches.len() == 2 {
        expected_collisions(p, m, sketches[0].estimate(), sketches[1].estimate())
    } else {
        0.0
    };
    ((common.used_registers() as f64 - collisions) / n_union as f64).max(0.0)
}

/// Expected number of registers two unrelated sets of these sizes share by chance
/// (HyperMinHash, arXiv 1710.08436).
fn expected_collisions(p: u8, m: u8, n0: u64, n1: u64) -> f64 {
    let regs = f64::from(1u32 << p);
    let buckets = 1i32 << HLL_BITS;
    let mut cp = 0.0;
    for i in 1..=buckets {
        let b1 = if i == buckets { 0.0 } else { 2f64.powi(-i) } / regs;
        let b2 = 2f64.powi(1 - i) / regs;
        let px = (1.0 - b1).powf(n0 as f64) - (1.0 - b2).powf(n0 as f64);
        let py = (1.0 - b1).powf(n1 as f64) - (1.0 - b2).powf(n1 as f64);
        cp += px * py;
    }
    cp * regs / 2f64.powi(i32::from(m))
}
