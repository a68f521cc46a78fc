"""Resume tokens mark what the caller consumed: every record exactly once across a stream broken
off early, pages of any size, and sync and async clients alike."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync

N = 1000


@pytest.fixture
def loaded(seeds: str, set_name: str) -> str:
    with af_sync.connect(seeds) as db:
        db.namespace("test").set(set_name).put_many(
            {i: {"i": i} for i in range(N)}
        ).raise_on_error()
    return set_name


@pytest.mark.anyio
@pytest.mark.parametrize("chunk", [7, 256, 1000])
async def test_async_stream_broken_off_resumes_after_what_it_returned(
    db: af.AsyncClient, loaded: str, chunk: int
) -> None:
    s = db.namespace("test").set(loaded)
    first: list[int] = []
    async with s.query().chunk_size(chunk).stream() as stream:
        async for r in stream:
            first.append(r["i"])
            if len(first) == 10:
                break
        token = stream.resume_token()
    rest = [r["i"] async for r in s.query().resume(token).chunk_size(chunk)]
    assert len(first) == 10
    assert sorted(first + rest) == list(range(N))


@pytest.mark.parametrize("chunk", [7, 256, 1000])
def test_sync_stream_broken_off_resumes_after_what_it_returned(
    sdb: af.SyncClient, loaded: str, chunk: int
) -> None:
    s = sdb.namespace("test").set(loaded)
    first: list[int] = []
    with s.query().chunk_size(chunk).stream() as stream:
        for r in stream:
            first.append(r["i"])
            if len(first) == 10:
                break
        token = stream.resume_token()
    rest = [r["i"] for r in s.query().resume(token).chunk_size(chunk).stream()]
    assert sorted(first + rest) == list(range(N))


def test_a_finished_stream_gives_a_token_that_resumes_to_nothing(
    sdb: af.SyncClient, loaded: str
) -> None:
    s = sdb.namespace("test").set(loaded)
    with s.query().stream() as stream:
        assert len(list(stream)) == N
        token = stream.resume_token()
    assert list(s.query().resume(token).stream()) == []


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    sizes=st.lists(st.integers(1, 400), min_size=1, max_size=6),
    chunk=st.sampled_from([1, 5, 64, 300, 5000]),
)
def test_pages_of_any_size_yield_every_record_once(
    sdb: af.SyncClient, loaded: str, sizes: list[int], chunk: int
) -> None:
    s = sdb.namespace("test").set(loaded)
    seen: list[int] = []
    token: bytes | None = None
    k = 0
    while True:
        q = s.query().chunk_size(chunk)
        page = (q.resume(token) if token else q).page(sizes[k % len(sizes)])
        k += 1
        assert len(page.records) <= sizes[(k - 1) % len(sizes)]
        seen += [r["i"] for r in page]
        token = page.token
        if token is None:
            break
    assert sorted(seen) == list(range(N))


def test_page_after_limit_is_refused(sdb: af.SyncClient, loaded: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="limit"):
        sdb.namespace("test").set(loaded).query().limit(5).page(100)
