//! The per-node circuit breaker of the official clients (`max_error_rate`,
//! `error_rate_window`): a node's errors (connections that fail to open or are lost, timeouts,
//! and the server's timeout, key-busy and device-overload refusals) are counted per window of
//! `error_rate_window` tend intervals; once a window's count passes `max_error_rate`, calls to
//! the node are refused before anything is sent, until the window turns
//! (`client::maintain`). `max_error_rate = 0` turns it off. The crate's road applies the same
//! settings to its own attempts.

use std::sync::atomic::Ordering;

use aerospike::policy::ClientPolicy;

use crate::metrics::NodeTraffic;

/// A client's breaker settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorRate {
    /// Errors a node may have in one window (0: the breaker is off).
    pub max: usize,
    /// Tend intervals per window.
    pub window: usize,
}

/// A call refused because its node's breaker is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tripped {
    pub node: String,
    pub address: String,
    pub errors: u64,
    pub rate: ErrorRate,
}

/// The client-side result code of a refused call, as in the official clients.
pub const MAX_ERROR_RATE: i32 = -12;

impl Tripped {
    pub fn message(&self) -> String {
        format!(
            "Max error rate: node {} at {} had {} errors in the last {} tend interval(s) \
             (max_error_rate={}): calls to it are refused until the window turns",
            self.node, self.address, self.errors, self.rate.window, self.rate.max
        )
    }
}

impl ErrorRate {
    pub fn of(policy: &ClientPolicy) -> ErrorRate {
        ErrorRate {
            max: policy.max_error_rate,
            window: policy.error_rate_window.max(1),
        }
    }

    /// Count one error of the node `traffic` belongs to.
    pub fn count(&self, traffic: &NodeTraffic) {
        if self.max > 0 {
            traffic.error_rate.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether the breaker of the node `traffic` belongs to is open.
    pub fn is_open(&self, traffic: &NodeTraffic) -> bool {
        self.max > 0 && traffic.error_rate.load(Ordering::Relaxed) > self.max as u64
    }

    /// `Ok` when a call may go to the node; the refusal (counted) when its breaker is open.
    pub fn admit(&self, traffic: &NodeTraffic, node: &str, address: &str) -> Result<(), Tripped> {
        if !self.is_open(traffic) {
            return Ok(());
        }
        let errors = traffic.error_rate.load(Ordering::Relaxed);
        traffic.breaker_refusals.fetch_add(1, Ordering::Relaxed);
        Err(Tripped {
            node: node.to_owned(),
            address: address.to_owned(),
            errors,
            rate: *self,
        })
    }

    /// Whether the window turns after `tends` tend intervals.
    pub fn turns_after(&self, tends: u64) -> bool {
        self.max > 0 && tends.is_multiple_of(self.window as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_refused_once_its_errors_pass_the_rate_and_admitted_when_off() {
        let rate = ErrorRate { max: 2, window: 1 };
        let traffic = NodeTraffic::default();
        for _ in 0..2 {
            rate.count(&traffic);
        }
        assert!(rate.admit(&traffic, "A", "h:1").is_ok());
        rate.count(&traffic);
        let refused = rate.admit(&traffic, "A", "h:1").unwrap_err();
        assert_eq!(refused.errors, 3);
        assert!(refused.message().contains("node A at h:1 had 3 errors"));
        assert_eq!(traffic.breaker_refusals.load(Ordering::Relaxed), 1);
        let off = ErrorRate { max: 0, window: 1 };
        assert!(off.admit(&traffic, "A", "h:1").is_ok());
    }

    #[test]
    fn the_window_turns_every_window_tends() {
        let rate = ErrorRate { max: 5, window: 3 };
        let turns: Vec<u64> = (1..=9).filter(|t| rate.turns_after(*t)).collect();
        assert_eq!(turns, vec![3, 6, 9]);
    }
}
