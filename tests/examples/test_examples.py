"""Run every example program and execute the notebook against the embedded server.

Each example starts its own embedded server (or uses ``AEROSPIKE_HOST`` when set, which this
suite passes through). A test is skipped only when an optional package an example needs is not
installed (see ``examples/requirements.txt``); the skip names the package.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
NOTEBOOK = EXAMPLES / "notebooks" / "quickstart.ipynb"
TIMEOUT = 240


@dataclass(frozen=True)
class Example:
    script: str
    args: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    expect: tuple[str, ...] = field(default=())


CASES = [
    Example("quickstart.py", (), expect=("put ann and bob",)),
    Example("expressions.py", expect=("adults in US", "filtered out")),
    Example("cdt_documents.py", expect=("top 3", "best seller")),
    Example("batch_load.py", ("--count", "5000"), needs=("tqdm",), expect=("wrote 5,000",)),
    Example(
        "query_to_dataframe.py",
        ("--count", "3000"),
        needs=("pandas", "pyarrow"),
        expect=("Arrow table",),
    ),
    Example("trio_app.py", needs=("trio",), expect=("events written and counted",)),
    Example("cluster_failover.py", expect=("lost acknowledged writes: 0", "on 3 nodes")),
    Example("transfers.py", expect=("committed", "total 1000 (opened with 1000)")),
    Example("fastapi_service.py", needs=("fastapi", "httpx"), expect=("paged through",)),
    Example(
        "tls_auth.py",
        needs=("cryptography",),
        expect=("over TLS, logged in as app", "wrong password refused", "no login"),
    ),
]


def _require(*modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(
            f"optional package(s) {', '.join(missing)} not installed "
            "(pip install -r examples/requirements.txt)"
        )


def test_every_example_is_exercised() -> None:
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == {c.script for c in CASES}, "add new examples to CASES"


@pytest.mark.timeout(TIMEOUT + 30)
@pytest.mark.parametrize("case", CASES, ids=[c.script for c in CASES])
def test_example_runs(case: Example) -> None:
    _require(*case.needs)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / case.script), *case.args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    report = f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    assert proc.returncode == 0, f"{case.script} exited with {proc.returncode}\n{report}"
    for text in case.expect:
        assert text in proc.stdout, f"{case.script}: {text!r} not printed\n{report}"


def _load(script: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{Path(script).stem}", EXAMPLES / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(TIMEOUT)
@pytest.mark.filterwarnings("ignore::DeprecationWarning:fastapi.testclient")
def test_fastapi_service_in_process() -> None:
    _require("fastapi", "httpx")
    from fastapi.testclient import TestClient

    service = _load("fastapi_service.py")
    with TestClient(service.app) as http:
        created = http.put("/users/t1", json={"name": "Tess", "age": 40, "country": "NZ"})
        assert created.status_code == 201, created.text
        assert http.get("/users/t1").json()["name"] == "Tess"
        assert http.post("/users/t1/visits").json() == {"visits": 1}
        assert http.post("/users/t1/visits").json() == {"visits": 2}
        assert http.get("/users/t1").json()["visits"] == 2
        assert http.post("/users/nobody/visits").status_code == 404
        assert http.get("/users/nobody").status_code == 404
        invalid = {"name": "", "age": -1, "country": "X"}
        assert http.put("/users/t2", json=invalid).status_code == 422
        assert http.get("/users/count", params={"where": "$.age >="}).status_code == 400
        assert http.get("/users/count", params={"where": "$.age == 40"}).json()["count"] >= 1
        page = http.get("/users", params={"min_age": 39, "limit": 10}).json()
        assert "t1" in [u["id"] for u in page["users"]]
        assert http.get("/users", params={"cursor": "@@not-base64@@"}).status_code == 400
        assert http.delete("/users/t1").status_code == 204
        assert http.delete("/users/t1").status_code == 404


def _notebook_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return data


def test_notebook_is_committed_with_outputs_and_a_plot() -> None:
    cells = [c for c in _notebook_json()["cells"] if c["cell_type"] == "code"]
    assert cells, "the notebook has no code cells"
    assert all(c.get("outputs") is not None for c in cells)
    assert sum(1 for c in cells if c["outputs"]) >= len(cells) // 2, "outputs were stripped"
    images = [o for c in cells for o in c["outputs"] if "image/png" in o.get("data", {})]
    assert images, "the notebook should show its plot"


@pytest.mark.timeout(TIMEOUT + 60)
def test_notebook_executes() -> None:
    _require("nbclient", "nbformat", "ipykernel", "matplotlib", "pandas")
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call, unused-ignore]
    fresh = copy.deepcopy(nb)
    client = NotebookClient(
        fresh,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    errors = [
        o
        for c in fresh.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, errors
    pngs = [
        o
        for c in fresh.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    assert pngs, "the plot cell produced no image"
