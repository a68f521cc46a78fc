//! Crate errors as this SDK's exceptions: the class, the code, whether a write is in doubt,
//! and the message in this SDK's words ([`describe`]).

use aerospike::{Error as AsError, ErrorKind};
use pyo3::prelude::*;

use super::*;

/// Whether the failure connecting or talking to a node is client-side (no answer came).
fn lost_connection(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Connection
            | ErrorKind::ConnectionPoolEmpty
            | ErrorKind::NoMoreConnections
            | ErrorKind::InvalidNode
            | ErrorKind::MaxErrorRate
            | ErrorKind::Io(_)
    )
}

/// Whether the server answered every attempt with a refusal other than its own timeout: it
/// applied nothing, whatever the crate's in-doubt rule says about the retry wrapper.
fn refused_every_attempt(err: &AsError) -> bool {
    let refused = |e: &AsError| match e.kind() {
        ErrorKind::Server { .. } => e.result_code() != 9,
        ErrorKind::UdfBadResponse => true,
        _ => false,
    };
    match err.kind() {
        ErrorKind::Timeout => {
            let attempts: Vec<&AsError> = err.sub_errors().iter().chain(err.cause()).collect();
            !attempts.is_empty() && attempts.into_iter().all(refused)
        }
        _ => refused(err),
    }
}

/// The protocol's result code for a timeout.
const SERVER_TIMEOUT: u8 = 9;

/// The admin protocol's answer to a login on a server without security (Community edition).
const SECURITY_NOT_SUPPORTED: u8 = 51;

/// A crate error in this SDK's words: what happened, after how many attempts. A server's
/// refusal reads the same whichever road carried it (the key follows; no node: the crate names
/// nodes by name or by address, our road by name).
/// The crate's own decoration (`Error -8`, `iter=`, `In Doubt`, its kind prefixes, the chain of
/// earlier attempts) never reaches a message; the code is the exception's `result_code`.
pub fn describe(err: &AsError) -> String {
    let base = err.base_message();
    let strip = |prefix: &str| base.strip_prefix(prefix).unwrap_or(&base).trim().to_owned();
    let mut text = match err.kind() {
        ErrorKind::Timeout => match err.cause() {
            // Retries ran out on the answer of the last attempt: that answer is the cause.
            Some(cause) if !matches!(cause.kind(), ErrorKind::Timeout) => {
                return attempts(describe(cause), err);
            }
            // The crate counts its tries in its text; `attempts` says how many, once.
            _ => match strip("Client Timeout:") {
                t if t.starts_with("Timeout after ") && t.ends_with(" tries") => {
                    "Timeout: no answer before the deadline".to_owned()
                }
                t => format!("Timeout: {t}"),
            },
        },
        ErrorKind::Connection => {
            let detail = strip("Unable to communicate with server cluster:");
            format!(
                "Server not available: {}",
                seeds_failed(&detail).unwrap_or(detail)
            )
        }
        ErrorKind::InvalidNode => format!(
            "Server not available: no node of the cluster serves this ({})",
            strip("Invalid cluster node:")
        ),
        ErrorKind::ConnectionPoolEmpty | ErrorKind::NoMoreConnections => {
            "Server not available: no connection to the node could be had".to_owned()
        }
        ErrorKind::InvalidNamespace => {
            let detail = strip("Invalid namespace:");
            if detail.starts_with("Namespace not found") {
                detail
            } else {
                format!("Namespace not found: {detail}")
            }
        }
        ErrorKind::InvalidArgument => strip("Invalid argument:"),
        ErrorKind::MaxErrorRate => format!(
            "Max error rate: node at {} had more errors than max_error_rate in its last \
             error_rate_window: calls to it are refused until the window turns",
            err.node().unwrap_or("<unknown>")
        ),
        ErrorKind::BadResponse => format!(
            "Parse error: the server's answer could not be read ({})",
            strip("Bad Server Response:")
        ),
        _ => base.clone(),
    };
    if text.trim_end().ends_with(':') || text.is_empty() {
        text = format!(
            "{} (result code {})",
            text.trim_end_matches(':'),
            err.result_code()
        );
    }
    attempts(text, err)
}

/// The crate's account of a failed seeding ("Failed to connect to [n] host(s):", then a line
/// per seed with its error in the crate's words) as one line: each seed and why.
fn seeds_failed(detail: &str) -> Option<String> {
    let mut lines = detail.lines();
    if !lines.next()?.starts_with("Failed to connect to [") {
        return None;
    }
    let each: Vec<String> = lines
        .filter_map(|line| line.trim().split_once(' '))
        .map(|(host, why)| format!("cannot connect to {host} ({})", plain_cause(why)))
        .collect();
    (!each.is_empty()).then(|| each.join("; "))
}

/// An I/O error as the crate words it (`Error -1: Error during an I/O operation: Connection
/// refused (os error 111)`), reduced to its cause (`Connection refused`).
fn plain_cause(why: &str) -> &str {
    let why = match why.strip_prefix("Error ") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, r)| r),
        None => why,
    };
    let why = why
        .strip_prefix("Error during an I/O operation: ")
        .unwrap_or(why);
    match why.rfind(" (os error ") {
        Some(at) if why.ends_with(')') => &why[..at],
        _ => why,
    }
}

/// `text`, saying how many attempts `err` was reached after when there were several.
fn attempts(text: String, err: &AsError) -> String {
    match err.iteration().filter(|n| *n > 1) {
        Some(n) => format!("{text} after {n} attempts"),
        None => text,
    }
}

/// Whether a write that failed with `err` may have been applied.
pub fn in_doubt(err: &AsError) -> bool {
    err.in_doubt() && !refused_every_attempt(err)
}

/// The result code an error is reported with (see [`to_py`]).
pub fn code_of(err: &AsError) -> i32 {
    match (err.kind(), err.cause()) {
        (ErrorKind::Timeout, Some(cause))
            if matches!(cause.kind(), ErrorKind::Server { .. }) && cause.result_code() != 9 =>
        {
            cause.result_code()
        }
        (ErrorKind::Timeout, Some(cause)) if matches!(cause.kind(), ErrorKind::MaxErrorRate) => {
            cause.result_code()
        }
        (ErrorKind::Timeout, _) => i32::from(SERVER_TIMEOUT),
        _ => err.result_code(),
    }
}

/// Convert a crate error to the Python exception (with `key` when known).
pub fn to_py(py: Python<'_>, err: &AsError, key: Option<Bound<'_, PyAny>>) -> PyErr {
    let in_doubt = in_doubt(err);
    if matches!(err.kind(), ErrorKind::Timeout) {
        if let Some(cause) = err.cause() {
            // Retries exhausted on a retryable server answer (e.g. key busy): report that
            // answer; on a lost connection, say so rather than "timeout".
            let class = match cause.kind() {
                ErrorKind::Server { .. } if cause.result_code() != 9 => {
                    Some((class_for_code(py, cause.result_code()), cause.result_code()))
                }
                ErrorKind::MaxErrorRate => {
                    Some((py.get_type::<MaxErrorRateError>(), cause.result_code()))
                }
                k if lost_connection(k) => {
                    Some((py.get_type::<ConnectionError>(), cause.result_code()))
                }
                _ => None,
            };
            if let Some((class, code)) = class {
                let message = with_key(&describe(err), key.as_ref());
                return match error_instance(class, Some(code), &message, in_doubt, key) {
                    Ok(exc) => PyErr::from_value(exc),
                    Err(e) => e,
                };
            }
        }
    }
    if let ErrorKind::Commit { .. } = err.kind() {
        return commit_error(py, err);
    }
    if let Some(code) = refused_login_code(err) {
        let class = class_for_code(py, code);
        let mut message = describe(err);
        if code == i32::from(SECURITY_NOT_SUPPORTED) {
            message = format!(
                "Security not supported: the server has no users to log in as (a Community \
                 server): connect without user= and password= ({message})"
            );
        }
        return match error_instance(class, Some(code), &message, false, key) {
            Ok(exc) => PyErr::from_value(exc),
            Err(e) => e,
        };
    }
    // A deadline the client enforced carries the protocol's timeout code, as a server's does
    // (and as the wire path and the C client report it), not the crate's own negative code.
    let code = match err.kind() {
        ErrorKind::Timeout => i32::from(SERVER_TIMEOUT),
        _ => err.result_code(),
    };
    let class = match err.kind() {
        ErrorKind::Timeout => timeout_type(py),
        ErrorKind::MaxErrorRate => py.get_type::<MaxErrorRateError>(),
        k if lost_connection(k) => py.get_type::<ConnectionError>(),
        ErrorKind::InvalidArgument => invalid_argument_type(py),
        ErrorKind::UdfBadResponse => py.get_type::<UdfError>(),
        ErrorKind::InvalidNamespace => py.get_type::<NamespaceNotFoundError>(),
        ErrorKind::Server { .. } => class_for_code(py, code),
        _ => class_for_code(py, code.min(-1)),
    };
    let message = with_key(&describe(err), key.as_ref());
    match error_instance(class, Some(code), &message, in_doubt, key) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// A `CommitError` naming the stage that failed, whether it is in doubt, the per-key outcomes of
/// that stage (the keys that failed) and the error that stopped it.
fn commit_error(py: Python<'_>, err: &AsError) -> PyErr {
    use aerospike::CommitErrorType as Stage;
    let ErrorKind::Commit {
        error_type,
        verify_records,
        roll_records,
    } = err.kind()
    else {
        return PyErr::new::<CommitError, _>(err.to_string());
    };
    let stage = match error_type {
        Stage::VerifyFail => "verify",
        Stage::VerifyFailCloseAbandoned => "close",
        Stage::VerifyFailAbortAbandoned => "abort",
        Stage::MarkRollForwardAbandoned => "mark_roll_forward",
        Stage::RollForwardAbandoned => "roll_forward",
    };
    let build = || -> PyResult<Bound<'_, PyAny>> {
        let records = if roll_records.is_empty() {
            verify_records
        } else {
            roll_records
        };
        let mut failed = Vec::new();
        for r in records {
            let code = r.result_code().map_or(-1, |c| i32::from(u8::from(c)));
            if code != 0 {
                failed.push((super::from_key(py, &r.key)?, code));
            }
        }
        let in_doubt = err.in_doubt();
        let exc = error_instance(
            py.get_type::<CommitError>(),
            Some(err.result_code()),
            &describe(err),
            in_doubt,
            None,
        )?;
        exc.setattr("stage", stage)?;
        exc.setattr("records", PyTuple::new(py, failed)?)?;
        let cause = match err.cause() {
            Some(c) => to_py(py, c, None).into_value(py).into_any(),
            None => py.None(),
        };
        exc.setattr("cause", cause)?;
        Ok(exc)
    };
    match build() {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// The server's security code when connecting failed because every seed refused the login
/// (82: the address is not on the user's allowlist).
///
/// The crate keeps only the text of each seed's error ("  host Error 65, node=...: ..."), so the
/// code is read back from those lines.
fn refused_login_code(err: &AsError) -> Option<i32> {
    if !matches!(err.kind(), ErrorKind::Connection) {
        return None;
    }
    let message = err.to_string();
    let mut codes = message
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (_, rest) = line.split_once(" Error ")?;
            let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
            digits.parse::<i32>().ok()
        });
    let first = codes.next()??;
    let is_auth = |c: i32| c == i32::from(SECURITY_NOT_SUPPORTED) || matches!(c, 60..=67 | 80 | 82);
    (is_auth(first) && codes.all(|c| c.is_some_and(is_auth))).then_some(first)
}

/// Whether a timeout was spent before any attempt: the command never got a connection.
pub fn waited_for_a_connection(err: &AsError) -> bool {
    matches!(err.kind(), ErrorKind::Timeout) && err.iteration() == Some(0) && err.cause().is_none()
}

/// `TimeoutError` for a command that found every connection of its node's pool busy until its
/// deadline.
pub fn pool_exhausted(py: Python<'_>, err: &AsError, size: usize) -> PyErr {
    let message = format!(
        "connection pool exhausted: every connection to the node stayed busy until the \
         deadline (max_conns_per_node={size}, the client's budget for all its calls: raise \
         it, lower the concurrency, or close open streams, which hold a connection per \
         node): {}",
        describe(err)
    );
    match error_instance(
        timeout_type(py),
        Some(err.result_code()),
        &message,
        false,
        None,
    ) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_seeding_names_each_seed_and_its_cause() {
        let detail = "Failed to connect to [2] host(s):\n  127.0.0.1:3100 Error -1: Error during \
                      an I/O operation: Connection refused (os error 111)\n  10.0.0.1:3000 \
                      Error -8: Timeout\n";
        assert_eq!(
            seeds_failed(detail).as_deref(),
            Some(
                "cannot connect to 127.0.0.1:3100 (Connection refused); cannot connect to \
                 10.0.0.1:3000 (Timeout)"
            )
        );
        assert_eq!(seeds_failed("no such node"), None);
    }
}
