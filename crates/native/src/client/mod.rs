//! A connected client's shared state ([`Inner`]: its crate client, wire pools, policies and
//! closing flag), its upkeep, and the runtimes and pools its calls run on (`routes`).

pub mod routes;
mod state;

pub use state::{maintain, Inner, NEXT_CLIENT_ID};
