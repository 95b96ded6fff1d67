"""``spyglass users``: the household's accounts, managed by the owner on this machine.

The CLI acts as the owner: whoever can run it can read ``SPYGLASS_HOME`` anyway.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from spyglass.cli.commands import summary
from spyglass.cli.invoke import load_runtime
from spyglass.cli.output import EXIT_FAILED, EXIT_USAGE, fail, json_option, print_json, stdout
from spyglass.errors import StorageError, StoreUnavailable

if TYPE_CHECKING:
    from spyglass.accounts.model import Account
    from spyglass.runtime import Runtime

T = TypeVar("T")


@click.group("users", help=summary("users"), no_args_is_help=True)
def users() -> None:
    pass


#: The NAME argument every ``users`` command takes.
name_argument = click.argument("name", help="The account's name (letters, digits, '.', '_', '-').")


def _run(work: Callable[[Runtime], Awaitable[T]]) -> tuple[Runtime, T]:
    """``work`` on the upgraded stores, with every account problem said plainly."""
    from spyglass.accounts.model import AccountError

    runtime = load_runtime()

    async def go() -> T:
        try:
            await asyncio.to_thread(runtime.stores.upgrade)
            return await work(runtime)
        finally:
            await runtime.stores.aclose()

    try:
        return runtime, asyncio.run(go())
    except AccountError as exc:
        fail(str(exc), EXIT_USAGE)
    except (StoreUnavailable, StorageError) as exc:
        fail(str(exc), EXIT_FAILED, hint="check [state] in the settings, or that the server runs")


def _link(runtime: Runtime, code: str) -> str:
    from spyglass.service.worker import url_host

    server = runtime.settings.server
    return f"http://{url_host(server.host)}:{server.port}/login?code={code}"


def _show(account: Account, json_output: bool, **extra: Any) -> None:
    if json_output:
        print_json({**account.to_dict(), **extra})
        return
    console = stdout()
    data = account.to_dict()
    state = "disabled" if account.disabled else "enabled"
    console.print(f"{account.name}: {account.role.value}, {state}", markup=False)
    budget = data["daily_budget"]
    console.print(f"  may use: {', '.join(data['capabilities']) or 'nothing'}", markup=False)
    console.print(
        f"  calls per day: {'no limit' if budget is None else budget}; "
        f"owner's keys: {'yes' if data['owner_keys'] else 'no'}; "
        f"calls wait for an owner or parent: {'yes' if data['needs_approval'] else 'no'}"
        + ("; parent" if data["parent"] else ""),
        markup=False,
    )
    for key in ("allow_domains", "deny_domains"):
        if data[key]:
            console.print(f"  {key}: {', '.join(data[key])}", markup=False)
    own = account.approvals
    if own:
        modes = ", ".join(f"{key} {mode}" for key, mode in own.items())
        note = (
            " (ignored: their calls wait for an owner or parent)" if account.needs_approval else ""
        )
        console.print(f"  own approval modes: {modes}{note}", markup=False)


@users.command()
@name_argument
@click.option("--role", default="member", help="owner, member, child or guest.")
@click.option("--parent", is_flag=True, help="This person approves other people's waiting calls.")
@json_option
def add(name: str, role: str, parent: bool, json_output: bool) -> None:
    """Add a person and print a one-time console link for them (works once, 10 minutes)."""
    from spyglass.accounts import manage

    async def work(runtime: Runtime) -> manage.Added:
        return await manage.add(runtime.accounts, name, manage.role_of(role), parent=parent)

    runtime, added = _run(work)
    link = _link(runtime, added.login_code)
    if json_output:
        print_json({**added.account.to_dict(), "login_url": link, "expires_in_seconds": 600})
        return
    _show(added.account, False)
    stdout().print(
        f"Give {added.account.name} this console link (works once, for 10 minutes):\n  {link}",
        markup=False,
    )


@users.command("list")
@json_option
def list_(json_output: bool) -> None:
    """Every account, with its role and what it may do."""

    async def work(runtime: Runtime) -> list[Account]:
        return await runtime.accounts.all()

    _, accounts = _run(work)
    if json_output:
        print_json([a.to_dict() for a in accounts])
        return
    for account in accounts:
        _show(account, False)


@users.command("set-role")
@name_argument
@click.argument("role", help="owner, member, child or guest.")
@json_option
def set_role(name: str, role: str, json_output: bool) -> None:
    """Change a person's role (what they may do follows the role table)."""
    from spyglass.accounts import manage

    async def work(runtime: Runtime) -> Account:
        account = await manage.named(runtime.accounts, name)
        return await runtime.accounts.update(account.id, role=manage.role_of(role))

    _show(_run(work)[1], json_output)


def _switch(name: str, disabled: bool, json_output: bool) -> None:
    from spyglass.accounts import manage

    async def work(runtime: Runtime) -> Account:
        account = await manage.named(runtime.accounts, name)
        return await runtime.accounts.update(account.id, disabled=disabled)

    _show(_run(work)[1], json_output)


@users.command()
@name_argument
@json_option
def disable(name: str, json_output: bool) -> None:
    """Stop a person from signing in or calling anything (signed out everywhere at once)."""
    _switch(name, True, json_output)


@users.command()
@name_argument
@json_option
def enable(name: str, json_output: bool) -> None:
    """Let a disabled person sign in again (with a new link or token)."""
    _switch(name, False, json_output)


@users.command()
@name_argument
@click.option(
    "--keep-history", is_flag=True, help="Keep their conversations (they become the owner's)."
)
@click.option("--delete-history", is_flag=True, help="Delete their conversations with the account.")
@json_option
def remove(name: str, keep_history: bool, delete_history: bool, json_output: bool) -> None:
    """Remove a person; say whether their conversations are kept or deleted."""
    from spyglass.accounts import manage

    if keep_history == delete_history:
        fail(
            "say what happens to their conversations",
            EXIT_USAGE,
            hint="add --keep-history (the owner keeps them) or --delete-history",
        )

    async def work(runtime: Runtime) -> tuple[Account, int]:
        account = await manage.named(runtime.accounts, name)
        history = runtime.stores.history()
        try:
            count = await manage.remove(
                runtime.accounts, history, account, keep_history=keep_history
            )
        finally:
            await history.close()
        return account, count

    _, (account, count) = _run(work)
    what = "kept (now the owner's)" if keep_history else "deleted"
    if json_output:
        print_json({"removed": account.name, "conversations": count, "history": what})
        return
    stdout().print(f"Removed {account.name}; {count} conversation(s) {what}.", markup=False)


@users.command("api-token")
@name_argument
@json_option
def api_token(name: str, json_output: bool) -> None:
    """A new API token for the person's scripts and MCP clients; the old one stops working.
    Shown once, never again."""
    from spyglass.accounts import manage

    async def work(runtime: Runtime) -> tuple[Account, str]:
        account = await manage.named(runtime.accounts, name)
        return account, await manage.api_token(runtime.accounts, account)

    _, (account, token) = _run(work)
    if json_output:
        print_json({"name": account.name, "api_token": token})
        return
    stdout().print(
        f"API token for {account.name} (shown once; send it as Authorization: Bearer):\n  {token}",
        markup=False,
    )


@users.command("login-link")
@name_argument
@json_option
def login_link(name: str, json_output: bool) -> None:
    """A new one-time console link for the person (works once, for 10 minutes)."""
    from spyglass.accounts import manage

    async def work(runtime: Runtime) -> tuple[Account, str]:
        account = await manage.named(runtime.accounts, name)
        return account, await manage.login_code(runtime.accounts, account)

    runtime, (account, code) = _run(work)
    link = _link(runtime, code)
    if json_output:
        print_json({"name": account.name, "login_url": link, "expires_in_seconds": 600})
        return
    stdout().print(link, markup=False)


LIST_HELP = "Comma-separated; an empty value clears the list."


@users.command("set")
@name_argument
@click.option(
    "--capabilities", help="Capabilities they may use (within their role's). " + LIST_HELP
)
@click.option("--allow-domains", help="The only sites they may read. " + LIST_HELP)
@click.option("--deny-domains", help="Sites they may never read or search. " + LIST_HELP)
@click.option("--daily-budget", help="Calls per day: a number, or 'none' for no limit.")
@click.option(
    "--owner-keys/--own-keys",
    default=None,
    help="May spend the owner's provider keys, or only their own.",
)
@click.option(
    "--needs-approval/--approves-own",
    default=None,
    help="Every call waits for an owner or a parent, or they approve their own.",
)
@click.option("--parent/--not-parent", default=None, help="Approves other people's waiting calls.")
@click.option(
    "--approvals-search",
    type=click.Choice(["each", "flagged", "household"]),
    help="How often their searches ask in the console and HTTP API; household follows "
    "`spyglass policy approvals`. A child's calls keep waiting for a parent.",
)
@click.option(
    "--approvals-fetch",
    type=click.Choice(["each", "flagged", "household"]),
    help="How often their page reads ask; household follows `spyglass policy approvals`.",
)
@json_option
def set_(
    name: str,
    capabilities: str | None,
    allow_domains: str | None,
    deny_domains: str | None,
    daily_budget: str | None,
    owner_keys: bool | None,
    needs_approval: bool | None,
    parent: bool | None,
    approvals_search: str | None,
    approvals_fetch: str | None,
    json_output: bool,
) -> None:
    """Change what one person may do (only within their role), and how often their calls
    ask."""
    from spyglass.accounts import manage
    from spyglass.accounts.model import AccountError

    changes: dict[str, Any] = {}
    for key, value in (
        ("capabilities", capabilities),
        ("allow_domains", allow_domains),
        ("deny_domains", deny_domains),
    ):
        if value is not None:
            changes[key] = [part.strip() for part in value.split(",") if part.strip()]
    if daily_budget is not None:
        if daily_budget.strip().lower() in ("none", "unlimited"):
            changes["daily_budget"] = None
        elif daily_budget.strip().isdigit():
            changes["daily_budget"] = int(daily_budget)
        else:
            fail("--daily-budget takes a number, or 'none' for no limit", EXIT_USAGE)
    if owner_keys is not None:
        changes["owner_keys"] = owner_keys
    if needs_approval is not None:
        changes["needs_approval"] = needs_approval
    for key, mode in (
        ("approvals_search", approvals_search),
        ("approvals_fetch", approvals_fetch),
    ):
        if mode is not None:
            changes[key] = None if mode == "household" else mode

    async def work(runtime: Runtime) -> Account:
        account = await manage.named(runtime.accounts, name)
        if parent and not account.permissions.may_be_parent:
            raise AccountError(f"a {account.role.value} cannot be a parent")
        return await runtime.accounts.update(
            account.id, overrides=manage.overrides(changes), parent=parent
        )

    _show(_run(work)[1], json_output)


@users.command()
@name_argument
@click.argument("provider", help="The provider the key is for (brave, tavily, …).")
@click.option("--clear", is_flag=True, help="Remove this person's key instead.")
@json_option
def key(name: str, provider: str, clear: bool, json_output: bool) -> None:
    """Store the person's own key for a provider, read from standard input (never shown
    again, never logged)."""
    from spyglass.accounts import manage

    secret = ""
    if not clear:
        secret = _read_secret(f"{provider} key: ")
        if not secret:
            fail("no key given", EXIT_USAGE, hint="type or pipe the key; --clear removes one")

    async def work(runtime: Runtime) -> Account:
        account = await manage.named(runtime.accounts, name)
        await runtime.accounts.set_key(account.id, manage.provider_name(provider), secret or None)
        return account

    _, account = _run(work)
    state = "removed" if clear else "stored"
    if json_output:
        print_json({"name": account.name, "provider": provider, "key": state})
        return
    stdout().print(f"{account.name}'s {provider} key {state}.", markup=False)


@users.command()
@name_argument
@click.option("--clear", is_flag=True, help="Remove the password (links only).")
@json_option
def password(name: str, clear: bool, json_output: bool) -> None:
    """Set a password the person can sign in with (read from standard input; at least 10
    characters; kept as an argon2 hash)."""
    from spyglass.accounts import manage
    from spyglass.accounts.passwords import hash_password

    hashed: str | None = None
    if not clear:
        from spyglass.accounts.model import AccountError

        try:
            hashed = hash_password(_read_secret("password: "))
        except AccountError as exc:
            fail(str(exc), EXIT_USAGE)

    async def work(runtime: Runtime) -> Account:
        account = await manage.named(runtime.accounts, name)
        await runtime.accounts.set_password(account.id, hashed)
        return account

    _, account = _run(work)
    state = "removed" if clear else "set"
    if json_output:
        print_json({"name": account.name, "password": state})
        return
    stdout().print(f"{account.name}'s password {state}.", markup=False)


def _read_secret(prompt: str) -> str:
    if sys.stdin.isatty():
        return str(click.prompt(prompt.rstrip(": "), hide_input=True)).strip()
    return sys.stdin.readline().strip()
