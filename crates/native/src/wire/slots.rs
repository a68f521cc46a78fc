//! The connections a client's wire scans hold per node, bounded like the crate's pools: an open
//! stream holds one per node until it ends, and a scan that finds none free by its deadline
//! fails naming `max_conns_per_node`.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

pub struct Slots {
    per_node: usize,
    nodes: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl Slots {
    pub fn new(per_node: usize) -> Self {
        Slots {
            per_node: per_node.max(1),
            nodes: Mutex::new(HashMap::new()),
        }
    }

    pub fn per_node(&self) -> usize {
        self.per_node
    }

    /// A connection slot for `node`, waiting until `until` at most (`None` when none came).
    pub async fn take(&self, node: &str, until: Option<Instant>) -> Option<OwnedSemaphorePermit> {
        let sem = self
            .nodes
            .lock()
            .entry(node.to_owned())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_node)))
            .clone();
        match until {
            Some(at) => tokio::time::timeout_at(at, sem.acquire_owned())
                .await
                .ok()?
                .ok(),
            None => sem.acquire_owned().await.ok(),
        }
    }
}
