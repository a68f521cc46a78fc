"""Resume tokens mark what the caller consumed: every record exactly once across a stream broken
off early and across pages of any size."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
