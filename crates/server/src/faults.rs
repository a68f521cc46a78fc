//! Fault injection for reliability tests: delays, dropped connections, forced errors, paused accept.
//!
//! Faults apply to data requests (AS_MSG), never to info requests, so cluster tending keeps working.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

/// Sentinel for "no limit" counters.
const UNLIMITED: u64 = u64::MAX;

/// Fault switches shared by every connection of one server.
#[derive(Debug, Default)]
pub struct Faults {
    delay_ms: AtomicU64,
    delay_left: AtomicU64,
    drop_left: AtomicU64,
    drop_armed: AtomicBool,
    fail_code: AtomicU8,
    fail_left: AtomicU64,
    paused: AtomicBool,
    serving_paused: AtomicBool,
}

/// What the connection must do with the request it just read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Serve it normally.
    Serve,
    /// Answer with this result code instead of executing it.
    Fail(u8),
    /// Close the connection without answering.
    Drop,
}

impl Faults {
    /// Delays every data reply by `millis`; `count` limits it to the next `count` requests.
    pub fn delay(&self, millis: u64, count: Option<u64>) {
        self.delay_left
            .store(count.unwrap_or(UNLIMITED), Ordering::SeqCst);
        self.delay_ms.store(millis, Ordering::SeqCst);
    }

    /// Serves `n` more data requests, then closes the connection carrying the next one (once).
    pub fn drop_after(&self, n: u64) {
        self.drop_left.store(n, Ordering::SeqCst);
        self.drop_armed.store(true, Ordering::SeqCst);
    }

    /// Answers the next `count` data requests with `result_code` without executing them.
    pub fn fail(&self, result_code: u8, count: u64) {
        self.fail_code.store(result_code, Ordering::SeqCst);
        self.fail_left.store(count, Ordering::SeqCst);
    }

    /// Stops (true) or resumes (false) accepting new connections; pending ones wait in the backlog.
    pub fn pause_accept(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
    }

    /// Stops (true) or resumes (false) answering anything on every connection, as a stopped
    /// process would; requests wait, unread.
    pub fn pause_serving(&self, paused: bool) {
        self.serving_paused.store(paused, Ordering::SeqCst);
    }

    /// Whether answering is paused.
    pub fn serving_paused(&self) -> bool {
        self.serving_paused.load(Ordering::Relaxed)
    }

    /// Whether accepting is paused.
    pub fn accept_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// Removes every fault.
    pub fn clear(&self) {
        self.delay_ms.store(0, Ordering::SeqCst);
        self.delay_left.store(0, Ordering::SeqCst);
        self.drop_armed.store(false, Ordering::SeqCst);
        self.fail_left.store(0, Ordering::SeqCst);
        self.paused.store(false, Ordering::SeqCst);
        self.serving_paused.store(false, Ordering::SeqCst);
    }

    /// Delay to apply to the current data request, consuming one unit of a counted delay.
    pub fn take_delay(&self) -> Option<u64> {
        let ms = self.delay_ms.load(Ordering::Relaxed);
        if ms == 0 || !take_one(&self.delay_left) {
            return None;
        }
        Some(ms)
    }

    /// Decides the fate of the current data request, consuming fault counters.
    pub fn verdict(&self) -> Verdict {
        if self.drop_armed.load(Ordering::Relaxed) && !take_one(&self.drop_left) {
            // Counter exhausted: this request is the one to drop (only one caller wins).
            if self.drop_armed.swap(false, Ordering::SeqCst) {
                return Verdict::Drop;
            }
        }
        if self.fail_left.load(Ordering::Relaxed) > 0 && take_one(&self.fail_left) {
            return Verdict::Fail(self.fail_code.load(Ordering::Relaxed));
        }
        Verdict::Serve
    }
}

/// Decrements `counter` unless it is zero (UNLIMITED never decrements); true if a unit was taken.
fn take_one(counter: &AtomicU64) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
            0 => None,
            UNLIMITED => Some(UNLIMITED),
            n => Some(n - 1),
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_counts_down() {
        let f = Faults::default();
        f.fail(14, 2);
        assert_eq!(f.verdict(), Verdict::Fail(14));
        assert_eq!(f.verdict(), Verdict::Fail(14));
        assert_eq!(f.verdict(), Verdict::Serve);
    }

    #[test]
    fn drop_after_serves_n_then_drops_once() {
        let f = Faults::default();
        f.drop_after(2);
        assert_eq!(f.verdict(), Verdict::Serve);
        assert_eq!(f.verdict(), Verdict::Serve);
        assert_eq!(f.verdict(), Verdict::Drop);
        assert_eq!(f.verdict(), Verdict::Serve);
    }

    #[test]
    fn counted_delay_and_clear() {
        let f = Faults::default();
        f.delay(5, Some(1));
        assert_eq!(f.take_delay(), Some(5));
        assert_eq!(f.take_delay(), None);
        f.delay(7, None);
        assert_eq!(f.take_delay(), Some(7));
        assert_eq!(f.take_delay(), Some(7));
        f.clear();
        assert_eq!(f.take_delay(), None);
    }
}
