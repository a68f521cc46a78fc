//! [`Failure`], what a native operation fails with until it is raised in Python under the GIL.

use std::sync::Arc;

use aerospike::Key;
use pyo3::intern;
use pyo3::prelude::*;

use super::{from_key, TooDeep};

/// Why an operation failed (converted to a Python exception under the GIL).
pub enum Failure {
    /// An error from the aerospike crate, with the key involved when there is one.
    Native(aerospike::Error, Option<Box<Key>>),
    /// A ready Python exception.
    Py(PyErr),
    /// The client was closed before or while the operation ran (`in_doubt`: a write may have
    /// been applied).
    Closed(&'static str, bool),
    /// No connection of the node's pool came free before the deadline (the pool's size given).
    PoolExhausted(aerospike::Error, usize),
    /// A value read was nested deeper than the client reads (with the record's key, if known).
    TooDeep(TooDeep, Option<Box<Key>>),
    /// A result code (server codes >= 0, client codes < 0) and its message, from a path
    /// that talks to the server itself (see `wire`).
    Coded(i32, String),
    /// A result code about `key`, from the wire path (see `super::keyed`).
    Keyed {
        code: i32,
        message: String,
        in_doubt: bool,
        key: Box<Key>,
    },
    /// A write's failure after an earlier attempt of it went unanswered: it may have been
    /// applied whatever the failure says.
    InDoubt(Box<Failure>),
    /// No slot of `max_in_flight` came free within `queue_timeout`: nothing was sent.
    QueueTimeout {
        limit: usize,
        waited: std::time::Duration,
    },
}

impl Failure {
    /// Wrap a crate error about `key`.
    pub fn keyed(key: &Key) -> impl FnOnce(aerospike::Error) -> Failure + '_ {
        move |e| Failure::Native(e, Some(Box::new(key.clone())))
    }

    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Native(e, key) => {
                let k = key
                    .and_then(|k| from_key(py, &k).ok())
                    .map(|t| t.into_any());
                super::to_py(py, &e, k)
            }
            Failure::Py(e) => e,
            Failure::Closed(msg, in_doubt) => super::closed_error(py, msg, in_doubt),
            Failure::PoolExhausted(e, size) => super::pool_exhausted(py, &e, size),
            Failure::Coded(code, message) => {
                let class = super::class_for_code(py, code);
                match super::error_instance(class, Some(code), &message, false, None) {
                    Ok(exc) => PyErr::from_value(exc),
                    Err(e) => e,
                }
            }
            Failure::TooDeep(t, key) => {
                let k = key
                    .and_then(|k| from_key(py, &k).ok())
                    .map(|t| t.into_any());
                super::too_deep(py, &t, k)
            }
            Failure::Keyed {
                code,
                message,
                in_doubt,
                key,
            } => {
                let k = from_key(py, &key).ok().map(|t| t.into_any());
                super::keyed(py, code, &message, in_doubt, k)
            }
            Failure::QueueTimeout { limit, waited } => super::queue_timeout(py, limit, waited),
            Failure::InDoubt(f) => {
                let e = f.into_pyerr(py);
                let _ = e.value(py).setattr(intern!(py, "in_doubt"), true);
                e
            }
        }
    }

    /// Name a timeout spent waiting for a free connection for what it is: a node that does
    /// not answer (its last tend failed, or the cluster dropped it), else an exhausted pool.
    pub fn pool_checked(self, pool_size: usize, nodes: &[Arc<aerospike::Node>]) -> Failure {
        match self {
            Failure::Native(e, key) if super::waited_for_a_connection(&e) => {
                let named = e.node();
                let node = named.and_then(|n| nodes.iter().find(|x| n.starts_with(x.name())));
                let silent = match node {
                    Some(n) => n.failures() > 0,
                    None => named.is_some() || nodes.iter().all(|n| n.failures() > 0),
                };
                if !silent {
                    return Failure::PoolExhausted(e, pool_size);
                }
                let message = format!(
                    "Server not available: node {} does not answer (the client's last check of \
                     it failed)",
                    named.unwrap_or("of the cluster")
                );
                match key {
                    Some(key) => Failure::Keyed {
                        code: -8,
                        message,
                        in_doubt: false,
                        key,
                    },
                    None => Failure::Coded(-8, message),
                }
            }
            f => f,
        }
    }

    /// Whether the server answered (or the failure is not the network's): a close racing
    /// the call does not change what it means.
    pub fn answered(&self) -> bool {
        match self {
            Failure::Native(e, _) => matches!(
                e.kind(),
                aerospike::ErrorKind::Server { .. } | aerospike::ErrorKind::UdfBadResponse
            ),
            Failure::Py(_)
            | Failure::Closed(..)
            | Failure::PoolExhausted(..)
            | Failure::QueueTimeout { .. }
            | Failure::TooDeep(..) => true,
            // a lost node or a timeout is the network's
            Failure::Coded(code, _) => *code >= 0 && *code != 9,
            Failure::Keyed { code, .. } => *code >= 0 && *code != 9,
            Failure::InDoubt(_) => false,
        }
    }

    /// The result code this failure is counted under: the server's (>= 0, a deadline the
    /// client enforced counted as the protocol's timeout, 9) or the client's (< 0).
    pub fn code(&self) -> i32 {
        match self {
            Failure::Native(e, _) => super::code_of(e),
            Failure::PoolExhausted(..) => 9,
            Failure::TooDeep(..) => -2,
            Failure::Coded(code, _) | Failure::Keyed { code, .. } => *code,
            Failure::InDoubt(f) => f.code(),
            Failure::Py(_) | Failure::Closed(..) | Failure::QueueTimeout { .. } => -1,
        }
    }

    /// The address of the node whose circuit breaker refused this call on the crate's road.
    pub fn refused_by_crate_breaker(&self) -> Option<&str> {
        let Failure::Native(e, _) = self else {
            return self.inner_refused();
        };
        [Some(e), e.cause()]
            .into_iter()
            .flatten()
            .find(|e| matches!(e.kind(), aerospike::ErrorKind::MaxErrorRate))
            .and_then(aerospike::Error::node)
    }

    fn inner_refused(&self) -> Option<&str> {
        match self {
            Failure::InDoubt(f) => f.refused_by_crate_breaker(),
            _ => None,
        }
    }

    /// The attempts after the first the crate made before failing this way.
    pub fn crate_retries(&self) -> u64 {
        match self {
            Failure::Native(e, _) | Failure::PoolExhausted(e, _) => {
                e.iteration().map_or(0, |n| u64::from(n).saturating_sub(1))
            }
            Failure::InDoubt(f) => f.crate_retries(),
            _ => 0,
        }
    }

    /// Whether a write that failed this way may have been applied.
    pub fn in_doubt(&self) -> bool {
        match self {
            Failure::Native(e, _) => super::in_doubt(e),
            Failure::Py(_) => false,
            Failure::Closed(_, in_doubt) => *in_doubt,
            Failure::PoolExhausted(..)
            | Failure::QueueTimeout { .. }
            | Failure::TooDeep(..)
            | Failure::Coded(..) => false,
            Failure::Keyed { in_doubt, .. } => *in_doubt,
            Failure::InDoubt(_) => true,
        }
    }
}

impl From<aerospike::Error> for Failure {
    fn from(e: aerospike::Error) -> Self {
        Failure::Native(e, None)
    }
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

/// Result of a native operation.
pub type OpResult<T> = Result<T, Failure>;
