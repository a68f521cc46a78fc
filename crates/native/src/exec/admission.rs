//! The client-wide limit on calls in flight (`max_in_flight`) and how long a call waits for a
//! slot (`queue_timeout`). A call takes its slot before it builds or sends anything and holds it
//! until its answer is in; a call that finds none waits in line (first come, first served), and
//! dropping the waiting call (a cancelled task) leaves the line.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::errors::Failure;
use crate::metrics::Load;

pub struct Admission {
    slots: Arc<Semaphore>,
    limit: usize,
    queue_timeout: Option<Duration>,
    waiting: AtomicUsize,
    /// Calls that had to wait, and those that gave up, since the client connected.
    waited: AtomicU64,
    queue_timeouts: AtomicU64,
    /// The most calls that held a slot at once.
    peak: AtomicUsize,
}

/// A call's claim on a slot, taken when the call is made.
pub enum Ticket {
    /// The client has no limit.
    Unlimited,
    Held(OwnedSemaphorePermit),
    /// No slot was free: the call waits for one when it first runs.
    Queued(InLine),
}

/// A call waiting for a slot, counted until it gets one or is dropped.
pub struct InLine(Arc<Admission>);

impl Drop for InLine {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Admission {
    pub fn new(limit: usize, queue_timeout: Option<Duration>) -> Arc<Admission> {
        Arc::new(Admission {
            slots: Arc::new(Semaphore::new(limit)),
            limit,
            queue_timeout,
            waiting: AtomicUsize::new(0),
            waited: AtomicU64::new(0),
            queue_timeouts: AtomicU64::new(0),
            peak: AtomicUsize::new(0),
        })
    }

    /// A slot if one is free now, else a place in line.
    pub fn ticket(self: &Arc<Self>) -> Ticket {
        match self.slots.clone().try_acquire_owned() {
            Ok(permit) => {
                self.note_held();
                Ticket::Held(permit)
            }
            Err(_) => {
                self.waiting.fetch_add(1, Ordering::AcqRel);
                self.waited.fetch_add(1, Ordering::Relaxed);
                Ticket::Queued(InLine(self.clone()))
            }
        }
    }

    fn note_held(&self) {
        let held = self.limit - self.slots.available_permits();
        self.peak.fetch_max(held, Ordering::Relaxed);
    }

    /// The limit and its line now, `running` being the calls in flight or waiting.
    pub fn load(this: Option<&Arc<Self>>, running: usize) -> Load {
        let waiting = this.map_or(0, |a| a.waiting.load(Ordering::Acquire));
        let count = |f: fn(&Admission) -> u64| this.map_or(0, |a| f(a));
        Load {
            limit: this.map(|a| a.limit),
            in_flight: running.saturating_sub(waiting),
            peak: this.map(|a| a.peak.load(Ordering::Relaxed)),
            waiting,
            waited: count(|a| a.waited.load(Ordering::Relaxed)),
            queue_timeouts: count(|a| a.queue_timeouts.load(Ordering::Relaxed)),
        }
    }
}

impl Ticket {
    pub fn queued(&self) -> bool {
        matches!(self, Ticket::Queued(_))
    }

    /// Wait for a slot, `queue_timeout` at most; the slot is held until the result is dropped.
    pub async fn admitted(self) -> Result<Option<OwnedSemaphorePermit>, Failure> {
        let line = match self {
            Ticket::Unlimited => return Ok(None),
            Ticket::Held(permit) => return Ok(Some(permit)),
            Ticket::Queued(line) => line,
        };
        let admission = line.0.clone();
        let acquire = admission.slots.clone().acquire_owned();
        let permit = match admission.queue_timeout {
            None => acquire.await,
            Some(wait) => match tokio::time::timeout(wait, acquire).await {
                Ok(permit) => permit,
                Err(_) => {
                    admission.queue_timeouts.fetch_add(1, Ordering::Relaxed);
                    return Err(Failure::QueueTimeout {
                        limit: admission.limit,
                        waited: wait,
                    });
                }
            },
        };
        drop(line);
        admission.note_held();
        // the semaphore is never closed
        Ok(permit.ok())
    }
}
