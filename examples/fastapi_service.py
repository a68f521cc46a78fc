"""A REST service on FastAPI (anyio) sharing one async client across requests.

Serve it::

    uvicorn examples.fastapi_service:app            # or: python examples/fastapi_service.py --serve

or run the built-in demo, which calls the app in-process (no port) with Starlette's TestClient::

    python examples/fastapi_service.py

The client is opened in the app's lifespan against the embedded server, or the cluster in
``AEROSPIKE_HOST`` (``host:port``) when set. Needs ``fastapi`` (``httpx`` for the demo and tests,
``uvicorn`` to serve).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import Depends, FastAPI, HTTPException, Query, Request, Response
from pydantic import BaseModel, Field

import aerospike_fluent as af
from aerospike_fluent import RecordSet, errors
from aerospike_fluent.models import Key


def seeds() -> str:
    """The cluster in ``AEROSPIKE_HOST``, else an in-process embedded server."""
    return os.environ.get("AEROSPIKE_HOST") or "embedded://"


class User(BaseModel):
    """A user: the body of ``PUT /users/{id}``, the stored record and the response, all one.

    ``id`` is the record's key (stored with it), not a bin; ``visits`` is counted by the server.
    """

    id: Annotated[str, Key] = ""
    name: str = Field(min_length=1, max_length=100)
    age: int = Field(ge=0, le=150)
    country: str = Field(min_length=2, max_length=2)
    visits: int = 0


class UserPage(BaseModel):
    """One page of users and the cursor of the next one (``None`` at the end)."""

    users: list[User]
    next: str | None


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open one client for the whole application; close it on shutdown.

    ``auto_batch``: the plain gets of requests served at the same time go out together as
    batch reads, each request still getting its own record (docs: Batches).
    """
    async with af.connect(seeds(), auto_batch=True) as db:
        app.state.db = db
        yield


app = FastAPI(title="aerospike_fluent example", lifespan=lifespan)


def users_set(request: Request) -> RecordSet[af.Async]:
    """Dependency: the ``users`` set of the shared client."""
    db: af.AsyncClient = request.app.state.db
    return db.namespace("test").set("ex_fastapi")


Users = Annotated[RecordSet[af.Async], Depends(users_set)]


@app.put("/users/{user_id}", status_code=201)
async def put_user(user_id: str, user: User, users: Users) -> User:
    """Create or replace a user (the body's model is written as the record)."""
    user = user.model_copy(update={"id": user_id})
    await users.replace(user)
    return user


@app.get("/users/count")
async def count_users(
    users: Users, where: Annotated[str, Query(description="AEL filter")] = "true"
) -> dict[str, int]:
    """Count the users matching an AEL filter, e.g. ``$.age >= 18 and $.country == 'US'``."""
    try:
        query = users.query() if where.strip() == "true" else users.query().where(where)
    except errors.InvalidArgumentError as exc:  # AelSyntaxError included
        raise HTTPException(status_code=400, detail=str(exc)) from None
    return {"count": await query.count()}


@app.get("/users/{user_id}")
async def get_user(user_id: str, users: Users) -> User:
    """Read one user."""
    user = await users.key(user_id).get(as_=User)
    if user is None:
        raise HTTPException(status_code=404, detail="no such user")
    return user


@app.post("/users/{user_id}/visits")
async def add_visit(user_id: str, users: Users) -> dict[str, int]:
    """Count a visit: increment and read back in one atomic operate."""
    try:
        rec = await users.key(user_id).add("visits", 1).read("visits").execute(exists="update")
    except errors.RecordNotFoundError:
        raise HTTPException(status_code=404, detail="no such user") from None
    return {"visits": rec["visits"] if rec else 0}


@app.delete("/users/{user_id}", status_code=204)
async def delete_user(user_id: str, users: Users) -> Response:
    """Delete a user."""
    if not await users.key(user_id).delete():
        raise HTTPException(status_code=404, detail="no such user")
    return Response(status_code=204)


@app.get("/users")
async def list_users(
    users: Users,
    min_age: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> UserPage:
    """Page through users (``next`` is the cursor of the following page)."""
    query = users.query().where(af.F.int_bin("age") >= min_age)
    if cursor:
        try:
            query = query.resume(base64.urlsafe_b64decode(cursor.encode()))
        except (binascii.Error, ValueError):
            raise HTTPException(status_code=400, detail="bad cursor") from None
    page = await query.as_(User).page(limit)
    token = base64.urlsafe_b64encode(page.token).decode() if page.token else None
    return UserPage(users=page.records, next=token)


def demo() -> None:
    """Exercise the API in-process, the way the tests do."""
    from fastapi.testclient import TestClient

    people = [("ann", "Ann", 34, "US"), ("bob", "Bob", 17, "US"), ("cid", "Cid", 42, "FR")]
    with TestClient(app) as http:
        for uid, name, age, country in people:
            r = http.put(f"/users/{uid}", json={"name": name, "age": age, "country": country})
            assert r.status_code == 201, r.text
        ann = http.get("/users/ann").json()
        print("GET /users/ann        ->", ann)
        assert ann == {"id": "ann", "name": "Ann", "age": 34, "country": "US", "visits": 0}
        print("POST visits x2        ->", [http.post("/users/ann/visits").json() for _ in range(2)])
        print("GET /users/nobody     ->", http.get("/users/nobody").status_code)
        adults = http.get("/users/count", params={"where": "$.age >= 18"}).json()
        print("count age >= 18       ->", adults)
        assert adults == {"count": 2}
        bad = http.get("/users/count", params={"where": "$.age >>"})
        print("count with a bad AEL  ->", bad.status_code, bad.json()["detail"].splitlines()[0])

        seen: list[str] = []
        cursor: str | None = None
        while True:
            params: dict[str, str | int] = {"limit": 2}
            if cursor:
                params["cursor"] = cursor
            page = http.get("/users", params=params).json()
            seen.extend(u["id"] for u in page["users"])
            cursor = page["next"]
            if cursor is None:
                break
        print("paged through         ->", sorted(seen))
        assert sorted(seen) == ["ann", "bob", "cid"]
        for uid, *_ in people:
            assert http.delete(f"/users/{uid}").status_code == 204


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="FastAPI + aerospike_fluent example.")
    parser.add_argument("--serve", action="store_true", help="serve with uvicorn on --port")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    if args.serve:
        import uvicorn

        uvicorn.run(app, host="127.0.0.1", port=args.port)
    else:
        demo()
