//! The client's one view of the cluster: the nodes (from the worker crate client's tend),
//! one partition table per namespace holding masters and replicas, shared by every runtime and
//! path, and the events a change of either is counted and logged as.

pub mod info;
pub mod partitions;
pub mod view;
pub mod watch;
