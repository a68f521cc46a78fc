//! Info protocol: `name\n...` requests answered with `name\tvalue\n` lines.
//!
//! The commands are those of an Aerospike 8.1.2 node ([`SPECS`]), each parsed, guarded and
//! answered as that node does: a name it does not know gets `ERROR:4:unrecognized command`, an
//! Enterprise-only command on a Community node `ERROR:25:enterprise only`, and the answers
//! keep the node's formats with values of this server.

use std::fmt::Write as _;

mod answer;
mod args;
mod commands;
mod config;
mod latencies;
mod logging;
mod namespace;
mod node;
mod peers;
mod query_jobs;
mod refusal;
mod replicas;
mod sindex;
mod statistics;
mod udf;

pub use config::cluster_name_is_valid;

use answer::answer;
use args::{
    atoi, each_namespace, flag, local_namespace, optional, optional_namespace, param, params,
    parse, required,
};
use commands::{EE, EMBEDDED_ONLY, MAX_NAME, PRIV, SPECS};
use refusal::{
    error, reply, unrecognized, CLUSTER_KEY_MISMATCH, ENTERPRISE_ONLY, NAMESPACE, NOT_FOUND,
    PARAMETER, UNKNOWN,
};

use crate::security::{self, Caller, Grants};
use crate::wire::{begin_frame, end_frame, PROTO_INFO};
use crate::Shared;

/// Whether the console log sink writes lines of `context` at `level` (0 = CRITICAL, 1 =
/// WARNING, ... as `log-set` names them).
pub fn log_enabled(shared: &Shared, context: &str, level: u8) -> bool {
    logging::LOG_CONTEXTS
        .iter()
        .position(|c| *c == context)
        .and_then(|i| config::log_levels(shared).get(i).copied())
        .is_some_and(|at| level <= at)
}

/// Version reported by `build` (the clients gate features on it).
pub const BUILD: &str = "8.1.2.0";

/// The reply to a privileged command on a connection that has not logged in.
const NOT_AUTHENTICATED: &str = "ERROR:80:not authenticated";
/// The reply to a privileged command the caller's roles do not allow.
const ROLE_VIOLATION: &str = "ERROR:81:role violation";
/// Longest info reply: the names after it are left unanswered, the first of them with
/// [`TOO_LARGE`].
const MAX_REPLY: usize = 8 * 1024 * 1024;
const TOO_LARGE: &str = "ERROR:4:reply too large";

/// Answers one info request body into `out` as a complete proto frame.
pub fn handle(body: &[u8], shared: &Shared, caller: &Caller, out: &mut Vec<u8>) {
    let at = begin_frame(out);
    let text = String::from_utf8_lossy(body);
    let mut names = text
        .split('\n')
        .map(str::trim_end)
        .filter(|n| !n.is_empty())
        .peekable();
    let mut reply = String::new();
    if names.peek().is_none() {
        // As a real node, an empty request gets the summary.
        for (name, _) in SPECS.iter().take_while(|(n, _)| *n != "admin-clear-std") {
            let _ = writeln!(reply, "{name}\t{}", answer(name, "", shared));
        }
    }
    for name in names {
        if reply.len() > MAX_REPLY {
            let _ = writeln!(reply, "{name}\t{TOO_LARGE}");
            break;
        }
        let _ = writeln!(reply, "{name}\t{}", run(name, shared, caller));
    }
    out.extend_from_slice(reply.as_bytes());
    end_frame(out, at, PROTO_INFO);
}

/// One command: found, guarded and answered in a real node's order.
fn run(text: &str, shared: &Shared, caller: &Caller) -> String {
    let (cmd, args) = parse(text);
    if EMBEDDED_ONLY.contains(&cmd) {
        return answer(cmd, args, shared);
    }
    let Some(&(name, flags)) = SPECS
        .iter()
        .find(|(n, _)| *n == cmd && cmd.len() <= MAX_NAME)
    else {
        return unrecognized();
    };
    if flags & EE != 0 && !enterprise_here(shared, name) {
        return error(ENTERPRISE_ONLY, "enterprise only");
    }
    if flags & PRIV != 0 && !caller.authed {
        return NOT_AUTHENTICATED.into();
    }
    let (perm, ns, set) = security::info_perm(name, args);
    if flags & PRIV != 0
        && Grants::of(shared, caller)
            .refusal(perm, ns.as_bytes(), set.as_bytes())
            .is_some()
    {
        return ROLE_VIOLATION.into();
    }
    answer(name, args, shared)
}

/// Whether an Enterprise-only command is served: on an Enterprise node, and for the TLS
/// lists on any node serving TLS (a node that serves TLS lists its TLS peers).
fn enterprise_here(shared: &Shared, name: &str) -> bool {
    shared.edition == crate::Edition::Enterprise || (shared.tls_on() && name.contains("-tls-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_name_is_the_configured_one_or_null() {
        let unnamed = Shared::new(&crate::ServerConfig::default()).expect("default config");
        assert_eq!(answer("cluster-name", "", &unnamed), "null");
        let config = crate::ServerConfig {
            cluster_name: Some("fluent-ci".into()),
            ..crate::ServerConfig::default()
        };
        let named = Shared::new(&config).expect("a valid name");
        assert_eq!(answer("cluster-name", "", &named), "fluent-ci");
        for bad in ["", &"x".repeat(64), "two words", "a;b"] {
            let config = crate::ServerConfig {
                cluster_name: Some(bad.into()),
                ..crate::ServerConfig::default()
            };
            assert!(Shared::new(&config).is_err(), "{bad:?}");
        }
        assert!(cluster_name_is_valid(&"x".repeat(63)));
    }
}
