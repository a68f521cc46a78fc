//! A latency histogram that calls record into without a lock: four buckets per power of two
//! of nanoseconds (each bucket within 25% of its neighbour), a sum and a maximum.

use std::sync::atomic::{AtomicU64, Ordering};

/// Powers of two of nanoseconds covered; anything longer (over 18 minutes) lands in the last.
const OCTAVES: usize = 40;
const PER_OCTAVE: usize = 4;
pub const BUCKETS: usize = OCTAVES * PER_OCTAVE;

pub struct Histogram {
    buckets: [AtomicU64; BUCKETS],
    sum_ns: AtomicU64,
    max_ns: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_ns: AtomicU64::new(0),
            max_ns: AtomicU64::new(0),
        }
    }
}

/// The bucket of `ns` nanoseconds.
fn bucket(ns: u64) -> usize {
    let v = ns.max(1);
    let octave = 63 - v.leading_zeros() as usize;
    if octave < 2 {
        return v as usize;
    }
    let sub = ((v >> (octave - 2)) & 3) as usize;
    (octave * PER_OCTAVE + sub).min(BUCKETS - 1)
}

/// The smallest value of bucket `i`, in nanoseconds.
fn lower(i: usize) -> u64 {
    let (octave, sub) = (i / PER_OCTAVE, (i % PER_OCTAVE) as u64);
    if octave < 2 {
        return i as u64;
    }
    (4 + sub) << (octave - 2)
}

impl Histogram {
    pub fn record(&self, ns: u64) {
        self.buckets[bucket(ns)].fetch_add(1, Ordering::Relaxed);
        self.sum_ns.fetch_add(ns, Ordering::Relaxed);
        self.max_ns.fetch_max(ns, Ordering::Relaxed);
    }

    pub fn read(&self) -> Read {
        Read {
            counts: self
                .buckets
                .iter()
                .map(|b| b.load(Ordering::Relaxed))
                .collect(),
            sum_ns: self.sum_ns.load(Ordering::Relaxed),
            max_ns: self.max_ns.load(Ordering::Relaxed),
        }
    }
}

/// What a histogram held when read.
pub struct Read {
    counts: Vec<u64>,
    pub sum_ns: u64,
    pub max_ns: u64,
}

impl Read {
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The value under which a fraction `q` of the samples fall, in nanoseconds (the middle of
    /// its bucket, never above the largest sample).
    pub fn quantile(&self, q: f64) -> u64 {
        let total = self.count();
        if total == 0 {
            return 0;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (i, n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (lo, hi) = (lower(i), lower(i + 1));
                return (lo + (hi - lo) / 2).min(self.max_ns);
            }
        }
        self.max_ns
    }

    /// Samples at or under each bound (nanoseconds), cumulative, as Prometheus buckets count.
    pub fn cumulative(&self, bounds_ns: &[u64]) -> Vec<u64> {
        bounds_ns
            .iter()
            .map(|b| {
                self.counts
                    .iter()
                    .enumerate()
                    .take_while(|(i, _)| lower(i + 1) <= b.saturating_add(1))
                    .map(|(_, n)| n)
                    .sum()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_in_order_and_hold_their_values() {
        for ns in [1u64, 3, 4, 5, 7, 8, 1_000, 1_023, 1_024, 123_456_789] {
            let i = bucket(ns);
            assert!(lower(i) <= ns && ns < lower(i + 1), "{ns} in bucket {i}");
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn quantiles_land_within_a_quarter_of_the_value() {
        let h = Histogram::default();
        for us in 1..=1000u64 {
            h.record(us * 1000);
        }
        let r = h.read();
        assert_eq!(r.count(), 1000);
        for (q, want) in [(0.5, 500_000.0), (0.9, 900_000.0), (0.99, 990_000.0)] {
            let got = r.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.25, "q{q}: {got} vs {want}");
        }
        assert_eq!(r.max_ns, 1_000_000);
        assert_eq!(r.cumulative(&[u64::MAX])[0], 1000);
        assert_eq!(r.cumulative(&[0])[0], 0);
    }
}
