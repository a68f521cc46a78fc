//! The exception hierarchy and the one mapping from result codes / crate errors to it.

use aerospike::{Error as AsError, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(
    aerospike_fluent.errors,
    AerospikeError,
    PyException,
    "Base of every error raised by this SDK."
);
create_exception!(aerospike_fluent.errors, ClientError, AerospikeError);
create_exception!(aerospike_fluent.errors, ClientClosedError, ClientError);
create_exception!(aerospike_fluent.errors, ConnectionError, ClientError);
create_exception!(
    aerospike_fluent.errors,
    DeserializeError,
    ClientError,
    "A reply the client cannot turn into Python values (e.g. lists/maps nested too deeply)."
);
create_exception!(
    aerospike_fluent.errors,
    ArrowSchemaError,
    ClientError,
    "Records that do not fit an Arrow schema (given, or inferred from the first chunk)."
);
create_exception!(
    aerospike_fluent.errors,
    ResumeTokenError,
    ClientError,
    "A resume token this query cannot continue from, or cannot be given."
);
create_exception!(
    aerospike_fluent.errors,
    ModelError,
    ClientError,
    "A record that does not fit the model it is read into (names the key, the field and the \
     bin value's type), or a model that cannot be stored."
);
create_exception!(aerospike_fluent.errors, ServerError, AerospikeError);
create_exception!(
    aerospike_fluent.errors,
    BackgroundTaskError,
    ServerError,
    "A background query finished with records it could not apply its work to (`.succeeded`, `.failed`)."
);
create_exception!(aerospike_fluent.errors, RecordNotFoundError, ServerError);
create_exception!(aerospike_fluent.errors, RecordExistsError, ServerError);
create_exception!(aerospike_fluent.errors, GenerationError, ServerError);
create_exception!(aerospike_fluent.errors, ParameterError, ServerError);
create_exception!(aerospike_fluent.errors, RecordTooBigError, ServerError);
create_exception!(aerospike_fluent.errors, BinTypeError, ServerError);
create_exception!(aerospike_fluent.errors, BinNotFoundError, ServerError);
create_exception!(aerospike_fluent.errors, KeyBusyError, ServerError);
create_exception!(aerospike_fluent.errors, NamespaceNotFoundError, ServerError);
create_exception!(aerospike_fluent.errors, FilteredOutError, ServerError);
create_exception!(aerospike_fluent.errors, ElementNotFoundError, ServerError);
create_exception!(aerospike_fluent.errors, ElementExistsError, ServerError);
create_exception!(aerospike_fluent.errors, OpNotApplicableError, ServerError);
create_exception!(aerospike_fluent.errors, EnterpriseOnlyError, ServerError);
create_exception!(aerospike_fluent.errors, ForbiddenError, ServerError);
create_exception!(aerospike_fluent.errors, SecondaryIndexError, ServerError);
create_exception!(
    aerospike_fluent.errors,
    IndexAlreadyExistsError,
    SecondaryIndexError
);
create_exception!(
    aerospike_fluent.errors,
    IndexNotFoundError,
    SecondaryIndexError
);
create_exception!(aerospike_fluent.errors, UdfError, ServerError);
create_exception!(aerospike_fluent.errors, AuthenticationError, ServerError);
create_exception!(aerospike_fluent.errors, QuotaExceededError, ServerError);
create_exception!(
    aerospike_fluent.errors,
    TransactionError,
    AerospikeError,
    "A multi-record transaction was refused or failed (see the subclasses)."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionBlockedError,
    TransactionError,
    "The record is being written by another transaction (120): retry the whole transaction."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionVersionMismatchError,
    TransactionError,
    "A record the transaction read changed before it committed (121)."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionExpiredError,
    TransactionError,
    "The transaction's deadline passed; the server rolls it back (122)."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionTooManyWritesError,
    TransactionError,
    "The transaction wrote more records than its monitor can hold (123)."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionCommittedError,
    TransactionError,
    "The transaction was already committed (124)."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionAbortedError,
    TransactionError,
    "The transaction was already aborted (125)."
);
create_exception!(
    aerospike_fluent.errors,
    TransactionFinishedError,
    TransactionError,
    "A call on a transaction that was committed or aborted: nothing was sent."
);
create_exception!(
    aerospike_fluent.errors,
    CommitError,
    TransactionError,
    "A commit that failed: `stage` (verify, mark_roll_forward, roll_forward, abort, close), \
     `in_doubt` (retry `commit()`; `abort()` is refused), `records` (key, result code) of the \
     stage that failed, and `cause`."
);

/// The two classes with two bases (`create_exception!` takes one), built with `type()`.
struct Dual {
    invalid_argument: Py<PyType>,
    timeout: Py<PyType>,
}

static DUAL: PyOnceLock<Dual> = PyOnceLock::new();

fn dual(py: Python<'_>) -> PyResult<&Dual> {
    DUAL.get_or_try_init(py, || {
        let make = |name: &str, a: Bound<'_, PyType>, b: Bound<'_, PyType>, doc: &str| {
            let ns = PyDict::new(py);
            ns.set_item("__module__", "aerospike_fluent.errors")
                .and_then(|()| ns.set_item("__doc__", doc))
                .and_then(|()| {
                    py.get_type::<PyType>()
                        .call1((name, PyTuple::new(py, [a, b])?, ns))
                })
                .and_then(|t| Ok(t.cast_into::<PyType>()?.unbind()))
        };
        Ok(Dual {
            invalid_argument: make(
                "InvalidArgumentError",
                py.get_type::<ClientError>(),
                py.get_type::<PyValueError>(),
                "An argument was rejected before anything was sent.",
            )?,
            timeout: make(
                "TimeoutError",
                py.get_type::<AerospikeError>(),
                py.get_type::<PyTimeoutError>(),
                "The operation did not finish within its deadline.",
            )?,
        })
    })
}

/// The `InvalidArgumentError` class.
pub fn invalid_argument_type(py: Python<'_>) -> Bound<'_, PyType> {
    match dual(py) {
        Ok(d) => d.invalid_argument.bind(py).clone(),
        Err(_) => py.get_type::<ClientError>(),
    }
}

/// The `TimeoutError` class.
pub fn timeout_type(py: Python<'_>) -> Bound<'_, PyType> {
    match dual(py) {
        Ok(d) => d.timeout.bind(py).clone(),
        Err(_) => py.get_type::<AerospikeError>(),
    }
}

/// An `InvalidArgumentError` with `msg`.
pub fn invalid_argument(msg: impl Into<String>) -> PyErr {
    let msg = msg.into();
    Python::attach(|py| PyErr::from_type(invalid_argument_type(py), msg))
}

/// Class for a result code: the one mapping (server codes >= 0, client codes < 0).
pub fn class_for_code(py: Python<'_>, code: i32) -> Bound<'_, PyType> {
    match code {
        2 => py.get_type::<RecordNotFoundError>(),
        3 => py.get_type::<GenerationError>(),
        4 => py.get_type::<ParameterError>(),
        5 => py.get_type::<RecordExistsError>(),
        9 => timeout_type(py),
        10 | 22 | 81 | 82 => py.get_type::<ForbiddenError>(),
        12 => py.get_type::<BinTypeError>(),
        13 => py.get_type::<RecordTooBigError>(),
        14 => py.get_type::<KeyBusyError>(),
        20 => py.get_type::<NamespaceNotFoundError>(),
        17 => py.get_type::<BinNotFoundError>(),
        23 => py.get_type::<ElementNotFoundError>(),
        24 => py.get_type::<ElementExistsError>(),
        25 => py.get_type::<EnterpriseOnlyError>(),
        26 => py.get_type::<OpNotApplicableError>(),
        27 => py.get_type::<FilteredOutError>(),
        60..=67 | 80 => py.get_type::<AuthenticationError>(),
        83 => py.get_type::<QuotaExceededError>(),
        100 => py.get_type::<UdfError>(),
        120 => py.get_type::<TransactionBlockedError>(),
        121 => py.get_type::<TransactionVersionMismatchError>(),
        122 => py.get_type::<TransactionExpiredError>(),
        123 => py.get_type::<TransactionTooManyWritesError>(),
        124 | -18 => py.get_type::<TransactionCommittedError>(),
        125 | -19 => py.get_type::<TransactionAbortedError>(),
        126 | 127 | -17 => py.get_type::<TransactionError>(),
        200 => py.get_type::<IndexAlreadyExistsError>(),
        201 => py.get_type::<IndexNotFoundError>(),
        202..=206 => py.get_type::<SecondaryIndexError>(),
        -2 => py.get_type::<DeserializeError>(),
        // client side: invalid node / no more connections / server not available
        -3 | -7 | -8 => py.get_type::<ConnectionError>(),
        c if c < 0 => py.get_type::<ClientError>(),
        _ => py.get_type::<ServerError>(),
    }
}

/// Build the exception instance for `code` with its attributes set.
pub fn error_instance<'py>(
    class: Bound<'py, PyType>,
    code: Option<i32>,
    message: &str,
    in_doubt: bool,
    key: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let exc = class.call1((doubt_told(message, in_doubt),))?;
    exc.setattr("result_code", code)?;
    exc.setattr("in_doubt", in_doubt)?;
    exc.setattr("key", key)?;
    Ok(exc)
}

/// `message` saying what `in_doubt` says, and only that: the crate's text marks attempts "In
/// Doubt: true" by its own rule (even a UDF's error, which the server answered), while the
/// exception's `in_doubt` is this SDK's verdict.
fn doubt_told(message: &str, in_doubt: bool) -> String {
    let text = message.replace(", In Doubt: true", "");
    if in_doubt {
        format!("{text} (in doubt: the write may have been applied)")
    } else {
        text
    }
}

/// The exception instance the SDK raises for a server result code.
#[pyfunction]
#[pyo3(signature = (result_code, message, in_doubt = false, key = None))]
pub fn error_for_code<'py>(
    py: Python<'py>,
    result_code: i32,
    message: &str,
    in_doubt: bool,
    key: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    error_instance(
        class_for_code(py, result_code),
        Some(result_code),
        message,
        in_doubt,
        key,
    )
}

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

/// `message` followed by the record it is about: namespace, set and user key (or digest).
fn with_key(message: &str, key: Option<&Bound<'_, PyAny>>) -> String {
    let part = |k: &Bound<'_, PyAny>, i: usize| -> Option<String> {
        let v = k.get_item(i).ok().filter(|v| !v.is_none())?;
        Some(v.repr().ok()?.to_string())
    };
    let Some(k) = key else {
        return message.to_owned();
    };
    let (Some(ns), Some(set)) = (part(k, 0), part(k, 1)) else {
        return message.to_owned();
    };
    match (part(k, 2), part(k, 3)) {
        (Some(user_key), _) => format!("{message} [namespace {ns}, set {set}, key {user_key}]"),
        (None, Some(digest)) => format!("{message} [namespace {ns}, set {set}, digest {digest}]"),
        (None, None) => format!("{message} [namespace {ns}, set {set}]"),
    }
}

/// The protocol's result code for a timeout.
const SERVER_TIMEOUT: u8 = 9;

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
                k if lost_connection(k) => {
                    Some((py.get_type::<ConnectionError>(), cause.result_code()))
                }
                _ => None,
            };
            if let Some((class, code)) = class {
                let message = with_key(&err.to_string(), key.as_ref());
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
        let class = py.get_type::<AuthenticationError>();
        return match error_instance(class, Some(code), &err.to_string(), false, key) {
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
        k if lost_connection(k) => py.get_type::<ConnectionError>(),
        ErrorKind::InvalidArgument => invalid_argument_type(py),
        ErrorKind::UdfBadResponse => py.get_type::<UdfError>(),
        ErrorKind::InvalidNamespace => py.get_type::<NamespaceNotFoundError>(),
        ErrorKind::Server { .. } => class_for_code(py, code),
        _ => class_for_code(py, code.min(-1)),
    };
    let message = with_key(&err.to_string(), key.as_ref());
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
                failed.push((crate::convert::values::from_key(py, &r.key)?, code));
            }
        }
        let in_doubt = err.in_doubt();
        let exc = error_instance(
            py.get_type::<CommitError>(),
            Some(err.result_code()),
            &err.to_string(),
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

/// The server's security code when connecting failed because every seed refused the login.
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
    let is_auth = |c: i32| matches!(c, 60..=67 | 80);
    (is_auth(first) && codes.all(|c| c.is_some_and(is_auth))).then_some(first)
}

/// Register the classes on the module and give the base its attribute defaults.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    dual(py)?;
    let base = py.get_type::<AerospikeError>();
    base.setattr("result_code", py.None())?;
    base.setattr("in_doubt", false)?;
    base.setattr("key", py.None())?;
    let task = py.get_type::<BackgroundTaskError>();
    task.setattr("succeeded", 0)?;
    task.setattr("failed", 0)?;
    macro_rules! add {
        ($($t:ident),*) => { $( m.add(stringify!($t), py.get_type::<$t>())?; )* };
    }
    add!(
        AerospikeError,
        ClientError,
        ClientClosedError,
        ConnectionError,
        DeserializeError,
        ArrowSchemaError,
        ResumeTokenError,
        ModelError,
        ServerError,
        BackgroundTaskError,
        RecordNotFoundError,
        RecordExistsError,
        GenerationError,
        ParameterError,
        RecordTooBigError,
        BinTypeError,
        BinNotFoundError,
        KeyBusyError,
        NamespaceNotFoundError,
        FilteredOutError,
        ElementNotFoundError,
        ElementExistsError,
        OpNotApplicableError,
        EnterpriseOnlyError,
        ForbiddenError,
        SecondaryIndexError,
        IndexAlreadyExistsError,
        IndexNotFoundError,
        UdfError,
        AuthenticationError,
        QuotaExceededError,
        TransactionError,
        TransactionBlockedError,
        TransactionVersionMismatchError,
        TransactionExpiredError,
        TransactionTooManyWritesError,
        TransactionCommittedError,
        TransactionAbortedError,
        TransactionFinishedError,
        CommitError
    );
    let commit = py.get_type::<CommitError>();
    commit.setattr("stage", py.None())?;
    commit.setattr("records", PyTuple::empty(py))?;
    commit.setattr("cause", py.None())?;
    m.add("InvalidArgumentError", invalid_argument_type(py))?;
    m.add("TimeoutError", timeout_type(py))?;
    m.add_function(wrap_pyfunction!(error_for_code, m)?)?;
    Ok(())
}

/// `DeserializeError` (code -2, PARSE_ERROR) for a value read nested too deeply.
pub fn too_deep(
    py: Python<'_>,
    t: &crate::convert::depth::TooDeep,
    key: Option<Bound<'_, PyAny>>,
) -> PyErr {
    let message = with_key(&t.message(), key.as_ref());
    let class = py.get_type::<DeserializeError>();
    match error_instance(class, Some(-2), &message, false, key) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// Error for a spawned part of an operation that ended without a result.
pub fn join_error(e: &tokio::task::JoinError) -> PyErr {
    ClientError::new_err(format!("an operation task ended without a result: {e}"))
}

/// Error for a client used after `close()` (or created before `fork()`).
pub fn closed(msg: &str) -> PyErr {
    ClientClosedError::new_err(msg.to_owned())
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
         node): {err}"
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

/// `ClientClosedError` for an operation the close cut short (`in_doubt`: a write in flight).
pub fn closed_error(py: Python<'_>, msg: &str, in_doubt: bool) -> PyErr {
    let class = py.get_type::<ClientClosedError>();
    match error_instance(class, None, msg, in_doubt, None) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// A failure about `key` met by the wire path (server codes >= 0, client codes < 0), as the
/// crate's path would report it.
pub fn keyed(
    py: Python<'_>,
    code: i32,
    message: &str,
    in_doubt: bool,
    key: Option<Bound<'_, PyAny>>,
) -> PyErr {
    let message = with_key(message, key.as_ref());
    match error_instance(
        class_for_code(py, code),
        Some(code),
        &message,
        in_doubt,
        key,
    ) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}
