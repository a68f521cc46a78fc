//! Busy-polling for a reply before sleeping, for blocking calls on the caller-driven runtime.
//!
//! A thread asleep in `epoll_wait` costs a reply a wake-up: on a loopback round trip of this
//! project's 2-vCPU build machine that was about half of a sequential call's latency, paid also
//! by the server, whose send has to wake the sleeper. A calling thread that polls for a short
//! while first (`spin_wait_us`, default 200 µs) usually finds the reply
//! without sleeping.
//!
//! Spinning must not starve the CPU the server and other threads need: at most half the CPUs
//! (at least one) spin at a time, across all clients, and a client whose replies keep coming
//! later than its budget stops spinning, probing again every [`PROBE_EVERY`]-th call.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// Largest accepted `spin_wait_us`.
pub const MAX_SPIN_WAIT_US: u32 = 10_000;
/// Replies later than the budget in a row before a client stops spinning.
const MISSES_BEFORE_BACKOFF: u32 = 8;
/// While backed off, one call in this many spins (to notice that replies got faster).
const PROBE_EVERY: u32 = 64;

/// Threads spinning right now, across all clients.
static SPINNING: AtomicUsize = AtomicUsize::new(0);

/// Blocking calls waiting for a reply right now, across all clients.
static WAITING: AtomicUsize = AtomicUsize::new(0);

fn cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn max_spinning() -> usize {
    (cpus() / 2).max(1)
}

/// Called in the child after `fork()`: the calls the counters counted are the parent's.
pub fn after_fork() {
    SPINNING.store(0, Ordering::Release);
    WAITING.store(0, Ordering::Release);
}

/// A blocking call waiting for its reply (counted while alive).
pub struct Waiting(());

impl Waiting {
    pub fn new() -> Self {
        WAITING.fetch_add(1, Ordering::AcqRel);
        Waiting(())
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One client's busy-poll budget and how its recent spins went.
#[derive(Debug)]
pub struct Spin {
    budget: Duration,
    misses: AtomicU32,
    backed_off_calls: AtomicU32,
}

impl Spin {
    /// A budget of `us` microseconds (0: never spin).
    pub fn new(us: u32) -> Self {
        Spin {
            budget: Duration::from_micros(u64::from(us)),
            misses: AtomicU32::new(0),
            backed_off_calls: AtomicU32::new(0),
        }
    }

    /// Permission to spin for this call (with its budget), or None: park at once.
    pub fn start(&self) -> Option<Spinning<'_>> {
        if self.budget.is_zero() {
            return None;
        }
        if self.misses.load(Ordering::Relaxed) >= MISSES_BEFORE_BACKOFF
            && !self
                .backed_off_calls
                .fetch_add(1, Ordering::Relaxed)
                .is_multiple_of(PROBE_EVERY)
        {
            return None;
        }
        // Other calls waiting too: their threads (and the server) have work for the CPUs,
        // which a spinning thread would take.
        if WAITING.load(Ordering::Acquire) > max_spinning() {
            return None;
        }
        if SPINNING.fetch_add(1, Ordering::AcqRel) >= max_spinning() {
            SPINNING.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Spinning { spin: self })
    }
}

/// A call allowed to spin; dropping it frees its place.
pub struct Spinning<'a> {
    spin: &'a Spin,
}

impl Spinning<'_> {
    /// How long to poll before sleeping.
    pub fn budget(&self) -> Duration {
        self.spin.budget
    }

    /// The reply came while spinning.
    pub fn hit(self) {
        self.spin.misses.store(0, Ordering::Relaxed);
    }

    /// The budget ran out first.
    pub fn miss(self) {
        let misses = &self.spin.misses;
        let _ = misses.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |m| {
            Some(m.saturating_add(1))
        });
    }
}

impl Drop for Spinning<'_> {
    fn drop(&mut self) {
        SPINNING.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the spinner cap is process-wide, and tests run in parallel threads.
    #[test]
    fn budget_back_off_and_probes() {
        assert!(Spin::new(0).start().is_none(), "a zero budget never spins");

        let spin = Spin::new(100);
        assert_eq!(
            spin.start().map(|s| s.budget()),
            Some(Duration::from_micros(100))
        );
        for _ in 0..MISSES_BEFORE_BACKOFF {
            spin.start().expect("spins before backing off").miss();
        }
        let allowed = (0..PROBE_EVERY * 2)
            .filter_map(|_| spin.start().map(Spinning::miss))
            .count();
        assert_eq!(
            allowed, 2,
            "one call in {PROBE_EVERY} probes while backed off"
        );

        let probe = (0..PROBE_EVERY)
            .find_map(|_| spin.start())
            .expect("a probe");
        probe.hit();
        assert!(
            spin.start().is_some(),
            "a probe that hits ends the back-off"
        );
        assert_eq!(SPINNING.load(Ordering::Acquire), 0, "every place was freed");
    }
}
