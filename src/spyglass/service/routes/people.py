"""Settings → People: the owner manages the household's accounts over the API; and each
person's own provider keys.

Every ``/people`` route is the owner's (``403 OWNER_ONLY`` for anyone else); an id that names
no account is ``404``. Credentials are shown once, when made, and never listed; keys are
never shown at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response

from spyglass.accounts import manage
from spyglass.accounts.model import Account, AccountError
from spyglass.service.auth import Principal
from spyglass.service.errors import ApiError
from spyglass.service.models import KeyBody, PersonChange, PersonNew
from spyglass.service.state import Caller, ServiceState, State, require_owner

router = APIRouter(tags=["people"])


@contextmanager
def _invalid_account() -> Iterator[None]:
    """What a route asks of the accounts: a refused change answers 422 with its reason."""
    try:
        yield
    except AccountError as exc:
        raise ApiError(422, "INVALID_ACCOUNT", str(exc)) from None


async def _person(principal: Principal, state: ServiceState, account_id: str) -> Account:
    """The account a ``/people/{account_id}`` route acts on, for the owner only."""
    require_owner(principal)
    account = await state.accounts.get(account_id[:64])
    if account is None:
        raise ApiError(404, "NOT_FOUND", "no such person")
    return account


@router.get("/api/v1/people", operation_id="listPeople", summary="Every account (owner only)")
async def list_people(principal: Caller, state: State) -> dict[str, Any]:
    require_owner(principal)
    return {"people": [a.to_dict() for a in await state.accounts.all()]}


@router.post(
    "/api/v1/people",
    operation_id="addPerson",
    summary="Add a person; answers their one-time console link (owner only)",
    status_code=201,
)
async def add_person(body: PersonNew, principal: Caller, state: State) -> dict[str, Any]:
    require_owner(principal)
    with _invalid_account():
        added = await manage.add(
            state.accounts, body.name, manage.role_of(body.role), parent=body.parent
        )
    return {
        **added.account.to_dict(),
        "login_path": f"/login?code={added.login_code}",
        "expires_in_seconds": 600,
    }


@router.patch(
    "/api/v1/people/{account_id}",
    operation_id="changePerson",
    summary="Change a person's role, switches or limits (owner only)",
)
async def change_person(
    account_id: str, body: PersonChange, principal: Caller, state: State
) -> dict[str, Any]:
    account = await _person(principal, state, account_id)
    changes: dict[str, Any] = {
        key: value
        for key in (
            "capabilities",
            "allow_domains",
            "deny_domains",
            "daily_budget",
            "owner_keys",
            "needs_approval",
        )
        if (value := getattr(body, key)) is not None
    }
    if body.no_daily_limit:
        changes["daily_budget"] = None
    for key in ("approvals_search", "approvals_fetch"):
        mode = getattr(body, key)
        if mode is not None:
            changes[key] = None if mode == "household" else mode
    with _invalid_account():
        if body.parent and not account.permissions.may_be_parent:
            raise AccountError(f"a {account.role.value} cannot be a parent")
        changed = await state.accounts.update(
            account.id,
            role=manage.role_of(body.role) if body.role is not None else None,
            disabled=body.disabled,
            parent=body.parent,
            overrides=manage.overrides(changes),
        )
    return changed.to_dict()


@router.delete(
    "/api/v1/people/{account_id}",
    operation_id="removePerson",
    summary="Remove a person; history=keep hands their conversations to the owner",
    status_code=204,
)
async def remove_person(
    account_id: str,
    principal: Caller,
    state: State,
    history: Annotated[Literal["keep", "delete"], Query()],
) -> Response:
    account = await _person(principal, state, account_id)
    with _invalid_account():
        await manage.remove(state.accounts, state.history, account, keep_history=history == "keep")
    return Response(status_code=204)


@router.post(
    "/api/v1/people/{account_id}/login-code",
    operation_id="createPersonLoginCode",
    summary="A new one-time console link for a person (owner only)",
)
async def person_login_code(account_id: str, principal: Caller, state: State) -> dict[str, Any]:
    account = await _person(principal, state, account_id)
    with _invalid_account():
        code = await manage.login_code(state.accounts, account)
    return {"path": f"/login?code={code}", "expires_in_seconds": 600}


@router.post(
    "/api/v1/people/{account_id}/api-token",
    operation_id="createPersonApiToken",
    summary="A new API token for a person, shown once; the old one stops working (owner only)",
)
async def person_api_token(account_id: str, principal: Caller, state: State) -> dict[str, Any]:
    account = await _person(principal, state, account_id)
    with _invalid_account():
        token = await manage.api_token(state.accounts, account)
    return {"api_token": token}


@router.get(
    "/api/v1/keys",
    operation_id="listOwnKeys",
    summary="The providers the caller has a key of their own for (names only, never keys)",
)
async def list_own_keys(principal: Caller, state: State) -> dict[str, Any]:
    keys = await state.accounts.keys(principal.account.id)
    return {"providers": sorted(keys)}


@router.put(
    "/api/v1/keys/{provider}",
    operation_id="setOwnKey",
    summary="Store the caller's own key for a provider (shown never again)",
    status_code=204,
)
async def set_own_key(provider: str, body: KeyBody, principal: Caller, state: State) -> Response:
    with _invalid_account():
        name = manage.provider_name(provider)
    await state.accounts.set_key(principal.account.id, name, body.secret.strip())
    return Response(status_code=204)


@router.delete(
    "/api/v1/keys/{provider}",
    operation_id="deleteOwnKey",
    summary="Remove the caller's own key for a provider",
    status_code=204,
)
async def delete_own_key(provider: str, principal: Caller, state: State) -> Response:
    with _invalid_account():
        name = manage.provider_name(provider)
    await state.accounts.set_key(principal.account.id, name, None)
    return Response(status_code=204)
