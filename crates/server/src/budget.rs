//! One memory budget for all of a server's connections: request buffers and reply buffers,
//! beyond a small base each, are charged against [`GLOBAL_BUFFER_CAP`]; a connection whose
//! buffer would pass it is closed.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::Shared;

/// Most bytes all connections together may hold in request and reply buffers beyond their
/// base buffers.
pub const GLOBAL_BUFFER_CAP: usize = 1024 * 1024 * 1024;

/// What one buffer holds of the budget; given back when dropped.
pub struct Charge {
    shared: Arc<Shared>,
    /// Capacity the buffer may have without charge.
    base: usize,
    charged: usize,
}

impl Charge {
    pub fn new(shared: Arc<Shared>, base: usize) -> Charge {
        Charge {
            shared,
            base,
            charged: 0,
        }
    }

    /// Makes the charge cover a buffer of `capacity` bytes (growing or shrinking it); false,
    /// leaving the charge as it was, when the budget cannot cover the growth.
    pub fn cover(&mut self, capacity: usize) -> bool {
        let wanted = capacity.saturating_sub(self.base);
        let total = &self.shared.buffered;
        if wanted <= self.charged {
            total.fetch_sub(self.charged - wanted, Ordering::Relaxed);
        } else {
            let extra = wanted - self.charged;
            let before = total.fetch_add(extra, Ordering::Relaxed);
            if before + extra > GLOBAL_BUFFER_CAP {
                total.fetch_sub(extra, Ordering::Relaxed);
                return false;
            }
        }
        self.charged = wanted;
        true
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.cover(0);
    }
}
