//! Latency summary of one round, printed as one JSON line.

use std::time::Duration;

/// What one command measured.
#[derive(Debug, Default)]
pub struct Summary {
    pub ops: usize,
    pub records: usize,
    pub elapsed: Duration,
    pub latencies: Vec<Duration>,
}

/// Nearest-rank percentile on sorted nanoseconds (same rule as `benchmarks/stats.py`).
fn percentile(sorted: &[u128], q: f64) -> u128 {
    if sorted.is_empty() {
        return 0;
    }
    // The index is bounded by len - 1, so the float-to-int conversion cannot truncate a large value.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let idx = ((q * sorted.len() as f64) as usize).min(sorted.len() - 1);
    sorted[idx]
}

impl Summary {
    /// `{"ok":true,"ops":…,"records":…,"elapsed_ns":…,"mean_ns":…,"p50_ns":…,"p99_ns":…}`
    pub fn to_json(&self) -> String {
        let mut ns: Vec<u128> = self.latencies.iter().map(Duration::as_nanos).collect();
        ns.sort_unstable();
        let mean = if ns.is_empty() {
            0
        } else {
            ns.iter().sum::<u128>() / ns.len() as u128
        };
        format!(
            "{{\"ok\":true,\"ops\":{},\"records\":{},\"elapsed_ns\":{},\"mean_ns\":{},\"p50_ns\":{},\"p99_ns\":{}}}",
            self.ops,
            self.records,
            self.elapsed.as_nanos(),
            mean,
            percentile(&ns, 0.50),
            percentile(&ns, 0.99),
        )
    }
}

/// `{"ok":false,"error":"…"}` with the message escaped for JSON.
pub fn error_json(message: &str) -> String {
    let mut escaped = String::with_capacity(message.len());
    for c in message.chars() {
        match c {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            c if (c as u32) < 0x20 => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    format!("{{\"ok\":false,\"error\":\"{escaped}\"}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let v: Vec<u128> = (1..=100).collect();
        assert_eq!(percentile(&v, 0.5), 51);
        assert_eq!(percentile(&v, 0.99), 100);
        assert_eq!(percentile(&[], 0.5), 0);
    }

    #[test]
    fn errors_are_escaped() {
        assert_eq!(error_json("a\"b\n"), "{\"ok\":false,\"error\":\"a\\\"b \"}");
    }
}
