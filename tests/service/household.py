"""Signing people of a household in to the test service: one HTTP client per person."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI

from spyglass.accounts import manage
from spyglass.accounts.model import Account
from spyglass.accounts.roles import Role
from tests.support.service import BASE_URL


async def add(app: FastAPI, name: str, role: Role, **overrides: object) -> Account:
    accounts = app.state.spyglass.accounts
    added = await manage.add(accounts, name, role)
    if overrides:
        return await accounts.update(added.account.id, overrides=manage.overrides(overrides))
    return added.account


@asynccontextmanager
async def token_client(app: FastAPI, token: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client sending the API token ``token``."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url=BASE_URL,
        headers={"Authorization": f"Bearer {token}"},
    ) as client:
        yield client


@asynccontextmanager
async def bearer(app: FastAPI, account: Account) -> AsyncIterator[httpx.AsyncClient]:
    """A client sending ``account``'s own API token."""
    token = await manage.api_token(app.state.spyglass.accounts, account)
    async with token_client(app, token) as client:
        yield client


@asynccontextmanager
async def console(app: FastAPI, account: Account) -> AsyncIterator[httpx.AsyncClient]:
    """A client signed in to the console through ``account``'s one-time link (cookie and
    CSRF header, as the console page sends them)."""
    code = await manage.login_code(app.state.spyglass.accounts, account)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=BASE_URL
    ) as client:
        signed_in = await client.get(f"/login?code={code}")
        assert signed_in.status_code == 303, signed_in.text
        csrf = (await client.get("/api/v1/session")).json()["csrf_token"]
        client.headers["X-CSRF-Token"] = csrf
        yield client
