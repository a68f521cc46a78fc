//! The one rule for what follows an attempt our path did not finish (`single::Miss`): try
//! again on our path, hand the call to the crate with what is left of its budget, or end it
//! with which error, and whether a write is in doubt. Every path asks it: single-record
//! calls through [`Tries`] (over [`after_read`] and [`after`]), batch rows and Arrow writes
//! through [`after`], scans between rounds through [`round_after`]. A call makes no more
//! attempts and takes no longer than its policy allows, counting every attempt on either path.
//! An attempt waits at most its socket timeout or, when none is set, an equal share of the
//! total among the attempts (`policy::attempt_ms`): a node that does not answer leaves time for the
//! next copy.
//!
//! - A read under the `sequence` replica policy whose attempt was lost, timed out, could not
//!   connect, or was refused with a code worth retrying goes again on our path, to the next
//!   copy of its partition (master, then each replica), as the crate's sequence does.
//! - Nothing sent: the crate's path runs the whole call (with what is left of the total
//!   timeout, or 1 ms when nothing is, so that it reports why, e.g. an exhausted pool).
//! - The server refused it: the refusal is the result, unless the code is worth retrying
//!   (timeout, partition unavailable, key busy, device overload) and a retry is left.
//! - No connection came free before the deadline: a `TimeoutError` naming the exhausted pool.
//! - The node's circuit breaker is open (`conn::breaker`): a read under `sequence` goes to the
//!   next copy while retries are left, as the official clients retry on another node; any
//!   other call fails at once with the breaker's refusal (never handed to the crate's road,
//!   which would send to the same node).
//! - The node could not be connected to, or no node holds the partition: the crate's path
//!   runs the call (its view may differ); if it too finds no connection, a `ConnectionError`
//!   naming the node and why, not an exhausted pool.
//! - Sent without an answer: a `TimeoutError` or `ConnectionError`, unless a retry and time
//!   are left. A write is then in doubt, also when the crate's retries fail.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use aerospike::policy::{BasePolicy, BatchPolicy, Replica};
use aerospike::{Key, ReadPolicy, ResultCode, WritePolicy};

use crate::conn::breaker::MAX_ERROR_RATE;
use crate::exec::completion::Failure;
use crate::request::single::Miss;

/// A single-record policy, seen through its base policy.
pub trait Based: Clone {
    fn base(&self) -> &BasePolicy;
    fn base_mut(&mut self) -> &mut BasePolicy;
}

impl Based for ReadPolicy {
    fn base(&self) -> &BasePolicy {
        &self.base_policy
    }
    fn base_mut(&mut self) -> &mut BasePolicy {
        &mut self.base_policy
    }
}

impl Based for WritePolicy {
    fn base(&self) -> &BasePolicy {
        &self.base_policy
    }
    fn base_mut(&mut self) -> &mut BasePolicy {
        &mut self.base_policy
    }
}

impl Based for BatchPolicy {
    fn base(&self) -> &BasePolicy {
        &self.base_policy
    }
    fn base_mut(&mut self) -> &mut BasePolicy {
        &mut self.base_policy
    }
}

/// A read tried again on our path: copy `sequence` of the partition, under `policy` (the
/// retries and time left), after `pause`.
pub struct Again<P: Based> {
    pub policy: P,
    pub sequence: usize,
    pub pause: Duration,
}

/// What follows a miss.
pub enum Next<'a, P: Based> {
    /// Run the call through the crate with this policy; `in_doubt`: a write's earlier attempt
    /// may have been applied, whatever the crate's run reports.
    Crate {
        policy: Cow<'a, P>,
        in_doubt: bool,
        /// The node the wire path could not connect to, and why: the crate's run, if it
        /// only waits for a connection, fails naming this rather than a busy pool.
        unreachable: Option<Refusal>,
    },
    Fail(Refusal),
}

/// The failure a miss ends the call with.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub code: i32,
    pub message: String,
    pub in_doubt: bool,
}

impl Refusal {
    /// The failure of a call about `key`.
    pub fn about(self, key: &Key) -> Failure {
        Failure::Keyed {
            code: self.code,
            message: self.message,
            in_doubt: self.in_doubt,
            key: Box::new(key.clone()),
        }
    }
}

/// What is left of a total timeout of `total_ms` (0: none) after `started` (`None`: nothing).
fn time_left(total_ms: u32, started: Instant) -> Option<u32> {
    if total_ms == 0 {
        return Some(0);
    }
    let spent = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    (spent < total_ms).then(|| total_ms - spent)
}

/// The attempts a call has made so far and the limits it was given, for the error ending it.
#[derive(Clone, Copy, Debug)]
pub struct Made {
    pub attempts: u32,
    pub total_ms: u32,
    pub socket_ms: u32,
    pub max_retries: usize,
}

impl Made {
    /// The first attempt of a call under `policy`.
    pub fn first<P: Based>(policy: &P) -> Self {
        let b = policy.base();
        Made {
            attempts: 1,
            total_ms: b.total_timeout,
            socket_ms: b.socket_timeout,
            max_retries: b.max_retries,
        }
    }

    fn limits(&self) -> String {
        let attempts = match self.attempts {
            1 => "1 attempt made".to_owned(),
            n => format!("{n} attempts made"),
        };
        let socket = match self.socket_ms {
            0 => "no socket timeout".to_owned(),
            s => format!("socket timeout {s} ms"),
        };
        format!(
            "total timeout {} ms, {socket}, {attempts} (max_retries={})",
            self.total_ms, self.max_retries
        )
    }
}

const SERVER_TIMEOUT: u8 = 9;

fn retried_by_the_crate(code: u8) -> bool {
    // timeout, partition unavailable, key busy, device overload
    matches!(code, 9 | 11 | 14 | 18)
}

/// What follows `miss` on a call under `policy` started at `started` (`write`: it writes),
/// after the attempts `made`.
pub fn after<'a, P: Based>(
    miss: Miss,
    policy: &'a P,
    started: Instant,
    write: bool,
    made: Made,
) -> Next<'a, P> {
    let base = policy.base();
    let left = time_left(made.total_ms, started);
    let fail = |code: i32, message: String, in_doubt: bool| {
        Next::Fail(Refusal {
            code,
            message,
            in_doubt,
        })
    };
    let mut unreachable = None;
    let in_doubt = match miss {
        Miss::NotSent | Miss::Unreachable { .. } | Miss::NoNode { .. } => {
            // Nothing was sent: the crate runs the whole call with what is left of the time.
            let mut p = Cow::Borrowed(policy);
            let total = left.unwrap_or(1);
            if total != base.total_timeout {
                p.to_mut().base_mut().total_timeout = total;
            }
            let unreachable = match miss {
                Miss::Unreachable { node, why } => Some(Refusal {
                    code: -8,
                    message: format!("Server not available: cannot connect to node {node}: {why}"),
                    in_doubt: false,
                }),
                Miss::NoNode { pid } => Some(Refusal {
                    code: -8,
                    message: format!(
                        "Server not available: no node of the cluster answers for partition \
                         {pid} (nodes down, or the cluster changing)"
                    ),
                    in_doubt: false,
                }),
                _ => None,
            };
            return Next::Crate {
                policy: p,
                in_doubt: false,
                unreachable,
            };
        }
        Miss::Refused { code, .. } => {
            let in_doubt = write && code == SERVER_TIMEOUT;
            if !retried_by_the_crate(code) || base.max_retries == 0 || left.is_none() {
                let text = ResultCode::from(code).to_string();
                return fail(i32::from(code), text, in_doubt);
            }
            in_doubt
        }
        Miss::Tripped(tripped) => {
            // The crate's road would send to the same node: the refusal is the result.
            return fail(MAX_ERROR_RATE, tripped.message(), false);
        }
        Miss::Unreadable { why } => {
            return fail(
                -2,
                format!("Parse error: the server's answer could not be read ({why})"),
                write,
            );
        }
        Miss::Busy { node, size } => {
            let text = format!(
                "Timeout: connection pool exhausted: every connection to node {node} stayed busy \
                 until the deadline (max_conns_per_node={size}, the client's budget for all its \
                 calls: raise it or lower the concurrency)"
            );
            return fail(9, text, false);
        }
        Miss::Lost { timed_out } => {
            if base.max_retries == 0 || left.is_none() {
                let limits = made.limits();
                let (code, text) = if timed_out {
                    (
                        9,
                        format!("Timeout: no answer before the deadline ({limits})"),
                    )
                } else {
                    (
                        -8,
                        format!(
                            "Server not available: the connection was lost before the answer \
                             ({limits})"
                        ),
                    )
                };
                return fail(code, text, write);
            }
            if !timed_out {
                unreachable = Some(Refusal {
                    code: -8,
                    message: "Server not available: the connection to the node was lost and no \
                              new one could be opened"
                        .to_owned(),
                    in_doubt: write,
                });
            }
            write
        }
    };
    let mut p = policy.clone();
    p.base_mut().max_retries -= 1;
    p.base_mut().total_timeout = left.unwrap_or(0);
    Next::Crate {
        policy: Cow::Owned(p),
        in_doubt,
        unreachable,
    }
}

/// What follows `miss` on a read under `policy` started at `started`, whose attempt went to
/// copy `sequence` of its partition: under the `sequence` replica policy a lost, timed-out,
/// unconnectable or retryable-refused attempt goes again on our path to the next copy, while
/// retries and time are left; anything else as [`after`] decides.
pub fn after_read<'a, P: Based>(
    miss: Miss,
    policy: &'a P,
    started: Instant,
    sequence: usize,
    made: Made,
) -> Result<Again<P>, Next<'a, P>> {
    let base = policy.base();
    let fails_over = matches!(base.replica, Replica::Sequence)
        && match &miss {
            Miss::Lost { .. } | Miss::Unreachable { .. } | Miss::Tripped(_) => true,
            Miss::Refused { code, .. } => retried_by_the_crate(*code),
            Miss::NotSent | Miss::Busy { .. } | Miss::NoNode { .. } | Miss::Unreadable { .. } => {
                false
            }
        };
    let left = time_left(made.total_ms, started);
    if !fails_over || base.max_retries == 0 || left.is_none() {
        return Err(after(miss, policy, started, false, made));
    }
    let mut p = policy.clone();
    p.base_mut().max_retries -= 1;
    p.base_mut().total_timeout = left.unwrap_or(0);
    let pause = Duration::from_millis(u64::from(base.sleep_between_retries));
    Ok(Again {
        policy: p,
        sequence: sequence + 1,
        pause,
    })
}

/// The attempts of one single-record call on our path, as the rule above decides them: the
/// policy and copy of the next attempt, and what the crate's path is handed if it takes over.
pub struct Tries<'a, P: Based> {
    policy: Cow<'a, P>,
    sequence: usize,
    started: Instant,
    write: bool,
    /// The call's total timeout.
    total: u32,
    /// The attempts so far, and the call's limits.
    made: Made,
    /// A write's earlier attempt may have been applied.
    pub in_doubt: bool,
    /// The node our path could not reach, for the crate's error if it only waits too.
    pub unreachable: Option<Refusal>,
}

impl<'a, P: Based> Tries<'a, P> {
    /// The first attempt of a call under `policy` (`write`: it writes).
    pub fn new(policy: &'a P, write: bool) -> Self {
        Tries {
            policy: Cow::Borrowed(policy),
            sequence: 0,
            started: Instant::now(),
            total: policy.base().total_timeout,
            made: Made::first(policy),
            write,
            in_doubt: false,
            unreachable: None,
        }
    }

    /// The policy of the next attempt (what is left of its retries and time).
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The copy of the partition the next attempt goes to (0: the master).
    pub fn sequence(&self) -> usize {
        self.sequence
    }

    /// After `miss`: `Ok(true)` to try again on our path (the pause slept), `Ok(false)` to
    /// hand the call to the crate with [`Self::policy`], `Err` to end it.
    pub async fn again(&mut self, miss: Miss) -> Result<bool, Refusal> {
        let next = if self.write {
            Err(after(
                miss,
                self.policy.as_ref(),
                self.started,
                true,
                self.made,
            ))
        } else {
            after_read(
                miss,
                self.policy.as_ref(),
                self.started,
                self.sequence,
                self.made,
            )
        };
        let (policy, go_on) = match next {
            Ok(again) => {
                if !again.pause.is_zero() {
                    tokio::time::sleep(again.pause).await;
                }
                self.sequence = again.sequence;
                self.made.attempts += 1;
                crate::metrics::retried();
                (again.policy, true)
            }
            Err(Next::Crate {
                policy,
                in_doubt,
                unreachable,
            }) => {
                self.in_doubt = in_doubt;
                self.unreachable = unreachable;
                (policy.into_owned(), false)
            }
            Err(Next::Fail(f)) => return Err(f),
        };
        self.policy = Cow::Owned(policy);
        Ok(go_on)
    }
}

impl<P: Based> Tries<'_, P> {
    /// After `miss`, for a call only our path serves: `Ok` to try again (the pause slept), or
    /// the failure that ends it. What the crate's path would have been handed is tried again
    /// here while retries and time are left (nothing sent, or a lost attempt the policy lets
    /// be retried); the failure is in doubt when any attempt of a write may have applied.
    pub async fn again_own(&mut self, miss: Miss) -> Result<(), Refusal> {
        let counted = matches!(miss, Miss::Lost { .. } | Miss::Refused { .. });
        let generic = Refusal {
            code: -8,
            message: "Server not available: the request could not be sent to the node".to_owned(),
            in_doubt: false,
        };
        let doubt = self.in_doubt;
        let handed = match self.again(miss).await {
            Ok(true) => return Ok(()),
            Ok(false) => true,
            Err(mut f) => {
                f.in_doubt |= doubt || self.in_doubt;
                return Err(f);
            }
        };
        debug_assert!(handed);
        let left = time_left(self.total, self.started);
        let mut policy = self.policy.clone().into_owned();
        let base = policy.base_mut();
        if !counted {
            if base.max_retries == 0 || left.is_none() {
                let mut f = self.unreachable.take().unwrap_or(generic);
                f.in_doubt |= doubt || self.in_doubt;
                return Err(f);
            }
            base.max_retries -= 1;
        }
        base.total_timeout = left.unwrap_or(0);
        let pause = Duration::from_millis(u64::from(base.sleep_between_retries.max(1)));
        self.policy = Cow::Owned(policy);
        self.in_doubt |= doubt;
        self.made.attempts += 1;
        crate::metrics::retried();
        tokio::time::sleep(pause).await;
        Ok(())
    }
}

/// Whether a scan goes on after `attempts` rounds that left partitions unread, under at most
/// `max_retries` retries and a deadline it is `late` for.
pub fn round_after(attempts: usize, max_retries: usize, late: bool) -> bool {
    attempts <= max_retries && !late
}

/// The crate's failure `e` on `key` after the wire path found the node `unreachable`: that,
/// when the crate only waited for a connection that never came.
pub fn explained(unreachable: Option<Refusal>, e: aerospike::Error, key: Key) -> Failure {
    match unreachable {
        Some(r) if crate::errors::waited_for_a_connection(&e) => r.about(&key),
        _ => Failure::Native(e, Some(Box::new(key))),
    }
}

/// `f`, in doubt when an earlier attempt may have been applied.
pub fn in_doubt_if(in_doubt: bool, f: Failure) -> Failure {
    if in_doubt {
        Failure::InDoubt(Box::new(f))
    } else {
        f
    }
}
