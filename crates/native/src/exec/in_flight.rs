//! The calls a client has in flight, counted so that a draining close can wait for them.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

#[derive(Default)]
pub struct Flights {
    running: AtomicUsize,
    /// Set by a draining close: no new call starts.
    draining: AtomicBool,
    landed: Notify,
}

/// One call in flight, until dropped.
pub struct Flight(Arc<Flights>);

impl Drop for Flight {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.landed.notify_waiters();
        }
    }
}

impl Flights {
    pub fn start(self: &Arc<Self>) -> Flight {
        self.running.fetch_add(1, Ordering::AcqRel);
        Flight(self.clone())
    }

    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    pub fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }

    /// Refuse new calls, then wait until every call in flight has finished.
    pub async fn drain(&self) {
        self.draining.store(true, Ordering::Release);
        loop {
            let landed = self.landed.notified();
            tokio::pin!(landed);
            landed.as_mut().enable();
            if self.running() == 0 {
                return;
            }
            landed.await;
        }
    }
}
