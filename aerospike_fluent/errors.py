"""The SDK's exceptions: the native hierarchy plus the client-side validation errors.

Every exception derives from :class:`AerospikeError` and carries ``result_code``, ``in_doubt`` and
``key``. Input rejected before anything is sent raises :class:`InvalidArgumentError` (also a
``ValueError``), or :class:`InvalidTypeError` (also a ``TypeError``) for values of the wrong type.
"""

from __future__ import annotations

from aerospike_fluent._native import (
    AccessControlError,
    AerospikeError,
    ArrowSchemaError,
    AuthenticationError,
    BackgroundTaskError,
    BinNotFoundError,
    BinTypeError,
    ClientClosedError,
    ClientError,
    CommitError,
    ConnectionError,
    DeserializeError,
    ElementExistsError,
    ElementNotFoundError,
    EnterpriseOnlyError,
    FilteredOutError,
    ForbiddenError,
    GenerationError,
    IndexAlreadyExistsError,
    IndexNotFoundError,
    InvalidArgumentError,
    KeyBusyError,
    MaxErrorRateError,
    ModelError,
    NamespaceNotFoundError,
    OpNotApplicableError,
    ParameterError,
    QueueTimeoutError,
    QuotaExceededError,
    RecordExistsError,
    RecordNotFoundError,
    RecordTooBigError,
    ResumeTokenError,
    RoleViolationError,
    SecondaryIndexError,
    ServerError,
    TimeoutError,
    TransactionAbortedError,
    TransactionBlockedError,
    TransactionCommittedError,
    TransactionError,
    TransactionExpiredError,
    TransactionFinishedError,
    TransactionTooManyWritesError,
    TransactionVersionMismatchError,
    UdfError,
    error_for_code,
)


class InvalidTypeError(InvalidArgumentError, TypeError):
    """A value, key or argument of a type the SDK cannot send."""


class AelSyntaxError(InvalidArgumentError):
    """An AEL filter string that does not parse.

    Attributes:
        text: the AEL source.
        position: 0-based offset of the offending character in ``text``.

    """

    def __init__(self, message: str, text: str, position: int) -> None:
        super().__init__(f"{message} at position {position}{_pointer(text, position)}")
        self.text = text
        self.position = position


_EXCERPT = 60
"""Characters of the AEL text shown either side of an error (long texts are cut)."""


def _pointer(text: str, position: int) -> str:
    """Show the text around ``position`` and a caret under it."""
    start = max(0, position - _EXCERPT)
    end = position + _EXCERPT
    before = "..." if start else ""
    after = "..." if end < len(text) else ""
    shown = f"{before}{text[start:end]}{after}"
    return f"\n  {shown}\n  {' ' * (len(before) + position - start)}^"


__all__ = [
    "AccessControlError",
    "AelSyntaxError",
    "AerospikeError",
    "ArrowSchemaError",
    "AuthenticationError",
    "BackgroundTaskError",
    "BinNotFoundError",
    "BinTypeError",
    "ClientClosedError",
    "ClientError",
    "CommitError",
    "ConnectionError",
    "DeserializeError",
    "ElementExistsError",
    "ElementNotFoundError",
    "EnterpriseOnlyError",
    "FilteredOutError",
    "ForbiddenError",
    "GenerationError",
    "IndexAlreadyExistsError",
    "IndexNotFoundError",
    "InvalidArgumentError",
    "InvalidTypeError",
    "KeyBusyError",
    "MaxErrorRateError",
    "ModelError",
    "NamespaceNotFoundError",
    "OpNotApplicableError",
    "ParameterError",
    "QueueTimeoutError",
    "QuotaExceededError",
    "RecordExistsError",
    "RecordNotFoundError",
    "RecordTooBigError",
    "ResumeTokenError",
    "RoleViolationError",
    "SecondaryIndexError",
    "ServerError",
    "TimeoutError",
    "TransactionAbortedError",
    "TransactionBlockedError",
    "TransactionCommittedError",
    "TransactionError",
    "TransactionExpiredError",
    "TransactionFinishedError",
    "TransactionTooManyWritesError",
    "TransactionVersionMismatchError",
    "UdfError",
    "error_for_code",
]
