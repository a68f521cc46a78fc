"""Resume tokens mark what the caller consumed: every record exactly once across a stream broken
off early and across pages of any size."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync

from ._flavor import Flavor

N = 1000


@pytest.fixture
def loaded(seeds: str, set_name: str) -> str:
    with af_sync.connect(seeds) as db:
        records: dict[str | int | bytes, dict[str, int]] = {i: {"i": i} for i in range(N)}
        db.namespace("test").set(set_name).put_many(records).raise_on_error()
    return set_name


@pytest.mark.parametrize("chunk", [7, 256, 1000])
async def test_a_stream_broken_off_resumes_after_what_it_returned(
    fl: Flavor, loaded: str, chunk: int
) -> None:
    s = fl.db.namespace("test").set(loaded)
    first: list[int] = []
    async with fl.stream(s.query().chunk_size(chunk)) as stream:
        async for r in stream:
            first.append(r["i"])
            if len(first) == 10:
                break
        token = stream.resume_token()
    rest = [r["i"] async for r in fl.iterate(s.query().resume(token).chunk_size(chunk))]
    assert len(first) == 10
    assert sorted(first + rest) == list(range(N))


async def test_a_finished_stream_gives_a_token_that_resumes_to_nothing(
    fl: Flavor, loaded: str
) -> None:
    s = fl.db.namespace("test").set(loaded)
    async with fl.stream(s.query()) as stream:
        assert len([r async for r in stream]) == N
        token = stream.resume_token()
    assert [r async for r in fl.iterate(s.query().resume(token))] == []


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
    seeds: str, loaded: str, sizes: list[int], chunk: int
) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(loaded)
        seen: list[int] = []
        token: bytes | None = None
        for k in range(N + 1):
            size = sizes[k % len(sizes)]
            q = s.query().chunk_size(chunk)
            page = (q.resume(token) if token else q).page(size)
            assert len(page.records) <= size
            seen += [r["i"] for r in page]
            token = page.token
            if token is None:
                break
    assert sorted(seen) == list(range(N))


async def test_page_after_limit_is_refused(fl: Flavor, set_name: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="limit"):
        _ = fl.db.namespace("test").set(set_name).query().limit(5).page(100)


def _indexed(db: af.Client[af.Sync], set_name: str) -> tuple[dict[int, int], str]:
    """N records whose indexed value `v` orders them unlike their digests; the index name."""
    s = db.namespace("test").set(set_name)
    values = {i: (i * 37) % N - N // 2 for i in range(N)}
    s.put_many({i: {"i": i, "v": v} for i, v in values.items()}).raise_on_error()
    return values, s.create_index("v", "numeric", name=f"{set_name}_v")


@pytest.mark.parametrize("size", [1, 7, 64])
def test_index_query_pages_yield_every_record_once(seeds: str, set_name: str, size: int) -> None:
    # Index order (value, digest) differs from digest order, and a real server resumes an
    # index query after the (value, digest) the token carries.
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        values, index = _indexed(db, set_name)
        try:
            seen: list[int] = []
            token: bytes | None = None
            for _ in range(N + 1):
                q = s.query().where_index("v").between(-100, 299).chunk_size(5)
                page = (q.resume(token) if token else q).page(size)
                seen += [r["i"] for r in page]
                token = page.token
                if token is None:
                    break
        finally:
            s.drop_index(index)
    assert sorted(seen) == sorted(i for i, v in values.items() if -100 <= v <= 299)


def test_an_index_stream_broken_off_resumes_after_what_it_returned(
    seeds: str, set_name: str
) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        values, index = _indexed(db, set_name)
        q = s.query().where_index("v").between(-300, 300).chunk_size(16)
        try:
            first: list[int] = []
            with q.stream() as stream:
                for r in stream:
                    first.append(r["i"])
                    if len(first) == 123:
                        break
                token = stream.resume_token()
            rest = [r["i"] for r in q.resume(token).stream()]
        finally:
            s.drop_index(index)
    assert sorted(first + rest) == sorted(i for i, v in values.items() if -300 <= v <= 300)


def _afq1(token: bytes) -> bytes:
    """The token in the layout of earlier versions: pid and digest per partition, no bval."""
    assert token[:4] == b"AFQ2"
    n = int.from_bytes(token[9:11], "little")
    body = token[11:]
    size = (len(body) // n) if n else 22
    entries = b"".join(body[k * size : k * size + 22] for k in range(n))
    return b"AFQ1" + token[5:11] + entries


def test_an_old_token_resumes_a_scan(seeds: str, loaded: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(loaded)
        first = s.query().chunk_size(10).page(250)
        assert first.token is not None
        rest = [r["i"] for r in s.query().resume(_afq1(first.token)).stream()]
    assert sorted([r["i"] for r in first] + rest) == list(range(N))


def test_an_old_token_cannot_resume_an_index_query(seeds: str, set_name: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(set_name)
        _, index = _indexed(db, set_name)
        q = s.query().where_index("v").between(-100, 299)
        try:
            page = q.page(10)
            assert page.token is not None
            with pytest.raises(errors.ResumeTokenError, match="earlier version"):
                q.resume(_afq1(page.token)).page(10)
        finally:
            s.drop_index(index)


def test_a_scan_token_cannot_resume_an_index_query(seeds: str, loaded: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set(loaded)
        token = s.query().page(10).token
        assert token is not None
        with pytest.raises(errors.ResumeTokenError, match="scan"):
            s.query().where_index("i").between(0, 9).resume(token).page(10)
