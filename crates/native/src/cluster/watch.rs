//! The cluster's nodes as the client last saw them, compared at every tend interval: a node
//! that joined or left is counted in the metrics and logged under `aerospike_fluent.cluster`.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use crate::metrics::logs::CLUSTER;
use crate::metrics::Metrics;

#[derive(Default)]
pub struct Known {
    /// Node name -> address, as of the last look (`None`: not looked yet).
    nodes: Option<BTreeMap<String, String>>,
}

impl Known {
    /// Compare the cluster's nodes with the last look; whether a node joined or left.
    pub fn look(&mut self, client: &aerospike::Client, metrics: &Metrics) -> bool {
        let now: BTreeMap<String, String> = client
            .nodes()
            .iter()
            .map(|n| (n.name().to_owned(), n.address().to_owned()))
            .collect();
        let events = &metrics.events;
        events.tends.fetch_add(1, Ordering::Relaxed);
        match &self.nodes {
            None => log::info!(target: CLUSTER, "connected to {} node(s): {now:?}", now.len()),
            Some(before) => {
                for (name, address) in now.iter().filter(|(n, _)| !before.contains_key(*n)) {
                    events.nodes_joined.fetch_add(1, Ordering::Relaxed);
                    log::info!(target: CLUSTER, "node {name} at {address} joined the cluster");
                }
                for (name, address) in before.iter().filter(|(n, _)| !now.contains_key(*n)) {
                    events.nodes_left.fetch_add(1, Ordering::Relaxed);
                    log::warn!(
                        target: CLUSTER,
                        "node {name} at {address} left the cluster (it stopped answering or \
                         was removed); {} node(s) remain",
                        now.len()
                    );
                }
            }
        }
        let changed = self.nodes.as_ref().is_some_and(|before| *before != now);
        self.nodes = Some(now);
        changed
    }
}
