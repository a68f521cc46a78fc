"""What users see of native objects: Python spellings in reprs, public module names on errors."""

from __future__ import annotations

import pickle

import pytest

from aerospike_fluent import _native as n
from aerospike_fluent import errors


def test_policy_repr_uses_python_spellings() -> None:
    assert repr(n.Policy(ttl=100, generation=3, exists=4)) == (
        "Policy(exists='create_only', generation=3, ttl=100, filter=False)"
    )
    assert repr(n.Policy()) == "Policy(exists='update', generation=None, ttl=None, filter=False)"


def test_client_config_repr_uses_python_spellings_and_hides_the_password() -> None:
    text = repr(n.ClientConfig("h:3000", user="app", password="s3cret", cluster_name="c1"))
    assert text == "ClientConfig(seeds='h:3000', cluster_name='c1', user='app', tls=False)"
    assert "Some(" not in text and "s3cret" not in text


@pytest.mark.parametrize(
    "cls",
    [
        errors.AerospikeError,
        errors.RecordNotFoundError,
        errors.ClientClosedError,
        errors.TimeoutError,
        errors.InvalidArgumentError,
    ],
)
def test_errors_live_in_the_public_module(cls: type[BaseException]) -> None:
    assert cls.__module__ == "aerospike_fluent.errors"
    assert getattr(errors, cls.__name__) is cls


def test_errors_pickle_with_their_attributes() -> None:
    exc = errors.error_for_code(2, "not found", in_doubt=False)
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is errors.RecordNotFoundError
    assert back.result_code == 2 and back.in_doubt is False
