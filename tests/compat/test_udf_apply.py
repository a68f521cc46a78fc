"""Record UDFs of the official client against the server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from aerospike import exception as ex
from aerospike_helpers import expressions as xp  # type: ignore[import-untyped]
from aerospike_helpers.batch import records as br  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

MODULE = """
function add(rec, bin, n)
  rec[bin] = (rec[bin] or 0) + n
  if aerospike:exists(rec) then aerospike:update(rec) else aerospike:create(rec) end
  return rec[bin]
end

function fail(rec, msg)
  error(msg)
end

function logged(rec, n)
  trace("trace %d", n)
  debug("debug %s", "text")
  info("info %d %s", n, tostring(record.digest(rec)))
  warn("warn")
  return n
end

function bad_log(rec)
  info("missing %d")
end

function library(rec)
  local d = map.diff(map{a = 1, b = 2}, map{b = 3, c = 4})
  local m = map.merge(map{a = 1, b = 2}, map{b = 3, c = 4}, math.sum)
  return list{d, m, math.product(6, 7)}
end

function collect(rec, ...)
  local l = rec['names'] or list()
  for i = 1, select('#', ...) do list.append(l, (select(i, ...))) end
  rec['names'] = l
  if aerospike:exists(rec) then aerospike:update(rec) else aerospike:create(rec) end
  return list.size(l)
end

function build(rec)
  local l = list{1, 2}
  list.append(l, 3)
  local m = map()
  m['k'] = l
  return m
end
"""


@pytest.fixture(scope="module")
def udf_module(client: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = Path(tmp_path_factory.mktemp("udf")) / "engine_compat.lua"
    path.write_text(MODULE)
    client.udf_put(str(path))
    for _ in range(50):
        if any(m["name"] == "engine_compat.lua" for m in client.udf_list()):
            break
        time.sleep(0.1)
    return "engine_compat"


def test_apply_creates_and_updates(client: Any, set_name: str, udf_module: str) -> None:
    key = ("test", set_name, "u1")
    assert client.apply(key, udf_module, "add", ["n", 5]) == 5
    assert client.apply(key, udf_module, "add", ["n", 2]) == 7
    _, _, got = client.get(key)
    assert got == {"n": 7}


def test_a_nil_argument_is_kept_in_a_list(client: Any, set_name: str, udf_module: str) -> None:
    key = ("test", set_name, "nil_arg")
    assert client.apply(key, udf_module, "collect", ["name1", None]) == 2
    assert client.apply(key, udf_module, "collect", ["name2"]) == 3
    _, _, got = client.get(key)
    assert got == {"names": ["name1", None, "name2"]}


def test_apply_returns_list_and_map(client: Any, set_name: str, udf_module: str) -> None:
    key = ("test", set_name, "u2")
    client.put(key, {"a": 1})
    assert client.apply(key, udf_module, "build", []) == {"k": [1, 2, 3]}


def test_apply_error(client: Any, set_name: str, udf_module: str) -> None:
    key = ("test", set_name, "u3")
    client.put(key, {"a": 1})
    with pytest.raises(ex.UDFError) as err:
        client.apply(key, udf_module, "fail", ["boom"])
    assert err.value.code == 100
    assert "boom" in str(err.value)


def _server_text(err: pytest.ExceptionInfo[Any]) -> str:
    """The text the server sent in bin FAILURE (the client puts the node's address first)."""
    return str(err.value.msg).split(" ", 1)[1]


def test_udf_errors_carry_a_real_nodes_text(client: Any, set_name: str, udf_module: str) -> None:
    key = ("test", set_name, "u-errors")
    client.put(key, {"a": 1})
    with pytest.raises(ex.UDFError) as err:
        client.apply(key, udf_module, "no_such_function", [])
    assert err.value.code == 100 and _server_text(err) == "function not found"
    with pytest.raises(ex.UDFError) as err:
        client.apply(key, "no_such_module", "add", ["n", 1])
    assert err.value.code == 100 and _server_text(err) == "UDF: Execution Error 1"
    with pytest.raises(ex.UDFError) as err:
        client.apply(key, udf_module, "fail", ["boom"])
    line = MODULE.splitlines().index("  error(msg)") + 1
    assert _server_text(err) == f"/opt/aerospike/usr/udf/lua/{udf_module}.lua:{line}: boom"


def test_the_log_functions_format_their_message(
    client: Any, set_name: str, udf_module: str
) -> None:
    key = ("test", set_name, "logged")
    client.put(key, {"a": 1})
    assert client.apply(key, udf_module, "logged", [7]) == 7
    with pytest.raises(ex.UDFError, match="format"):
        client.apply(key, udf_module, "bad_log", [])


def test_map_diff_merge_and_math_of_the_servers_library(
    client: Any, set_name: str, udf_module: str
) -> None:
    key = ("test", set_name, "library")
    client.put(key, {"a": 1})
    diff, merged, product = client.apply(key, udf_module, "library", [])
    assert diff == {"a": 1, "c": 4}
    assert merged == {"a": 1, "b": 5, "c": 4}
    assert product == 42


def test_udf_get_gives_the_module_text(client: Any, udf_module: str) -> None:
    assert client.udf_get(f"{udf_module}.lua") == MODULE


def test_a_filter_expression_applies_to_a_record_that_exists(
    client: Any, set_name: str, udf_module: str
) -> None:
    only_zero = {"expressions": xp.Eq(xp.IntBin("n"), 0).compile()}
    key = ("test", set_name, "filtered")
    client.put(key, {"n": 1})
    with pytest.raises(ex.FilteredOut):
        client.apply(key, udf_module, "add", ["n", 5], policy=only_zero)
    assert client.get(key)[2] == {"n": 1}
    created = ("test", set_name, "created")
    assert client.apply(created, udf_module, "add", ["n", 5], policy=only_zero) == 5
    client.put(key, {"n": 0})
    assert client.apply(key, udf_module, "add", ["n", 2], policy=only_zero) == 2


def test_a_filtered_out_batch_apply_row_says_so(
    client: Any, set_name: str, udf_module: str
) -> None:
    key = ("test", set_name, "batch_filtered")
    client.put(key, {"n": 1})
    row = br.Apply(key=key, module=udf_module, function="add", args=["n", 5])
    row.policy = {"expressions": xp.Eq(xp.IntBin("n"), 0).compile()}
    res = client.batch_write(br.BatchRecords([row]))
    assert res.batch_records[0].result == 27
    assert client.get(key)[2] == {"n": 1}
