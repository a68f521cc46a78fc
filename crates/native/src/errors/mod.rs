//! The ground floor: the exception hierarchy and the one mapping from result codes to it;
//! crate errors are mapped in `from_crate`.

mod failure;
mod from_crate;
mod key_tuple;
mod too_deep;

pub use failure::{Failure, OpResult};
pub use from_crate::{code_of, describe, in_doubt, pool_exhausted, to_py, waited_for_a_connection};
pub use key_tuple::from_key;
pub use too_deep::{TooDeep, MAX_READ_DEPTH};

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
    MaxErrorRateError,
    ConnectionError,
    "The node's circuit breaker is open (`max_error_rate` errors in its `error_rate_window`): \
     nothing was sent, until the window turns (-12)."
);
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
create_exception!(
    aerospike_fluent.errors,
    RoleViolationError,
    ForbiddenError,
    "The user's roles do not allow the command on that namespace or set (81)."
);
create_exception!(
    aerospike_fluent.errors,
    AccessControlError,
    ServerError,
    "An admin command refused: a user that exists (61), an unknown role (70), a role that \
     exists (71), a bad privilege (72), allowlist (73) or quota (74, 75), or a command or field \
     the node does not take (54-56)."
);
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
    queue_timeout: Py<PyType>,
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
        let timeout = make(
            "TimeoutError",
            py.get_type::<AerospikeError>(),
            py.get_type::<PyTimeoutError>(),
            "The operation did not finish within its deadline.",
        )?;
        let queue_timeout = make(
            "QueueTimeoutError",
            py.get_type::<ClientError>(),
            timeout.bind(py).clone(),
            "No slot of the client's `max_in_flight` came free within `queue_timeout`: the \
             call was not sent.",
        )?;
        Ok(Dual {
            timeout,
            queue_timeout,
            invalid_argument: make(
                "InvalidArgumentError",
                py.get_type::<ClientError>(),
                py.get_type::<PyValueError>(),
                "An argument was rejected before anything was sent.",
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
        81 => py.get_type::<RoleViolationError>(),
        10 | 22 | 82 => py.get_type::<ForbiddenError>(),
        54..=56 | 61 | 70..=75 => py.get_type::<AccessControlError>(),
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
        51 | 60 | 62..=67 | 80 => py.get_type::<AuthenticationError>(),
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
        -12 => py.get_type::<MaxErrorRateError>(),
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

/// `message` followed by the record it is about: namespace, set and user key (or digest).
pub(crate) fn with_key(message: &str, key: Option<&Bound<'_, PyAny>>) -> String {
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

/// Register the classes on the module and give the base its attribute defaults.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    dual(py)?;
    let base = py.get_type::<AerospikeError>();
    base.setattr("result_code", py.None())?;
    base.setattr("in_doubt", false)?;
    base.setattr("key", py.None())?;
    base.setattr("partial", py.None())?;
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
        MaxErrorRateError,
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
        RoleViolationError,
        AccessControlError,
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
    if let Ok(d) = dual(py) {
        m.add("QueueTimeoutError", d.queue_timeout.bind(py))?;
    }
    m.add_function(wrap_pyfunction!(error_for_code, m)?)?;
    Ok(())
}

/// `DeserializeError` (code -2, PARSE_ERROR) for a value read nested too deeply.
pub fn too_deep(py: Python<'_>, t: &TooDeep, key: Option<Bound<'_, PyAny>>) -> PyErr {
    let message = with_key(&t.message(), key.as_ref());
    let class = py.get_type::<DeserializeError>();
    match error_instance(class, Some(-2), &message, false, key) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// `QueueTimeoutError` for a call that waited `waited` for one of the `limit` slots.
pub fn queue_timeout(py: Python<'_>, limit: usize, waited: std::time::Duration) -> PyErr {
    let class = match dual(py) {
        Ok(d) => d.queue_timeout.bind(py).clone(),
        Err(e) => return e,
    };
    let message = format!(
        "no slot free within queue_timeout={}s: all max_in_flight={limit} calls of the client \
         stayed in flight; this call was not sent (raise max_in_flight or queue_timeout, or \
         start fewer calls at once)",
        waited.as_secs_f64()
    );
    match error_instance(class, None, &message, false, None) {
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
