"""``spyglass users``: the owner manages the household's accounts from this machine."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from spyglass.accounts.store import API_TOKEN, LOGIN
from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from tests.cli.support import SPYGLASS, run


def with_input(*args: str, home: Path, text: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"SPYGLASS_HOME": str(home), "NO_COLOR": "1"})
    return subprocess.run(
        [SPYGLASS, *args],
        input=text,
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )


def resolves(home: Path, kind: str, secret: str) -> str | None:
    runtime = build_runtime(Paths(home))

    async def go() -> str | None:
        found = await runtime.accounts.resolve(kind, secret)
        return None if found is None else found.name

    try:
        return asyncio.run(go())
    finally:
        asyncio.run(runtime.stores.aclose())


def test_add_prints_a_one_time_login_link_for_the_new_person(home: Path) -> None:
    result = run("users", "add", "Sam", "--role", "child", "--json", home=home)
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["name"], data["role"], data["needs_approval"]) == ("sam", "child", True)
    link = urlsplit(data["login_url"])
    assert (link.path, link.port) == ("/login", 8092)
    [code] = parse_qs(link.query)["code"]
    assert resolves(home, LOGIN, code) == "sam"
    people = json.loads(run("users", "list", "--json", home=home).stdout)
    assert [p["name"] for p in people] == ["owner", "sam"]


def test_a_bad_role_or_a_taken_name_is_refused_plainly(home: Path) -> None:
    bad = run("users", "add", "sam", "--role", "admin", home=home)
    assert bad.code == 2 and "not a role; choose one of owner, member, child, guest" in bad.stderr
    run("users", "add", "sam", home=home)
    taken = run("users", "add", "SAM", home=home)
    assert taken.code == 2 and "already an account called 'sam'" in taken.stderr
    assert "Traceback" not in bad.stderr + taken.stderr


def test_set_role_disable_and_set_change_what_the_person_may_do(home: Path) -> None:
    run("users", "add", "sam", home=home)
    assert (
        json.loads(run("users", "set-role", "sam", "guest", "--json", home=home).stdout)["role"]
        == "guest"
    )
    changed = run(
        "users",
        "set",
        "sam",
        "--deny-domains",
        "Example.COM,*.test.org",
        "--daily-budget",
        "3",
        "--json",
        home=home,
    )
    data = json.loads(changed.stdout)
    assert (data["deny_domains"], data["daily_budget"]) == (["example.com", "test.org"], 3)
    bad = run("users", "set", "sam", "--deny-domains", "localhost", home=home)
    assert bad.code == 2 and "deny_domains entry 1" in bad.stderr
    assert json.loads(run("users", "disable", "sam", "--json", home=home).stdout)["disabled"]


def test_the_only_owner_cannot_be_demoted(home: Path) -> None:
    result = run("users", "set-role", "owner", "member", home=home)
    assert result.code == 2 and "only owner" in result.stderr


def test_api_token_is_shown_once_and_the_new_one_replaces_the_old(home: Path) -> None:
    run("users", "add", "sam", home=home)
    first = json.loads(run("users", "api-token", "sam", "--json", home=home).stdout)["api_token"]
    second = json.loads(run("users", "api-token", "sam", "--json", home=home).stdout)["api_token"]
    assert resolves(home, API_TOKEN, first) is None
    assert resolves(home, API_TOKEN, second) == "sam"
    listing = run("users", "list", "--json", home=home).stdout
    assert second not in listing


def test_a_persons_own_key_is_stored_but_never_printed(home: Path) -> None:
    run("users", "add", "sam", home=home)
    stored = with_input("users", "key", "sam", "brave", home=home, text="sams-secret-key\n")
    assert stored.returncode == 0, stored.stderr
    assert "sams-secret-key" not in stored.stdout + stored.stderr
    listing = run("users", "list", "--json", home=home)
    assert "sams-secret-key" not in listing.stdout


def test_remove_needs_a_choice_about_history(home: Path) -> None:
    run("users", "add", "sam", home=home)
    undecided = run("users", "remove", "sam", home=home)
    assert undecided.code == 2 and "--keep-history" in undecided.stderr
    removed = run("users", "remove", "sam", "--delete-history", "--json", home=home)
    assert json.loads(removed.stdout) == {
        "removed": "sam",
        "conversations": 0,
        "history": "deleted",
    }
    assert [p["name"] for p in json.loads(run("users", "list", "--json", home=home).stdout)] == [
        "owner"
    ]


def test_a_password_is_kept_as_an_argon2_hash(home: Path) -> None:
    run("users", "add", "sam", home=home)
    short = with_input("users", "password", "sam", home=home, text="short\n")
    assert short.returncode == 2 and "at least 10 characters" in short.stderr
    done = with_input("users", "password", "sam", home=home, text="a long passphrase\n")
    assert done.returncode == 0, done.stderr
    raw = b"".join(p.read_bytes() for p in home.rglob("state.db*"))
    assert b"a long passphrase" not in raw and b"$argon2id$" in raw


def test_the_readme_s_household_commands_run_in_order_and_leave_mum_a_parent(
    home: Path,
) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("spyglass users add sam", 1)[1].split("```", 1)[0]
    lines = ["spyglass users add sam" + block.splitlines()[0], *block.splitlines()[1:]]
    commands = [line.split("#", 1)[0].split() for line in lines if line.strip()]
    assert ["spyglass", "users", "list"] in commands
    for command in commands:
        assert command[0] == "spyglass"
        done = run(*command[1:], home=home)
        assert done.code == 0, (command, done.stderr)
    people = {p["name"]: p for p in json.loads(run("users", "list", "--json", home=home).stdout)}
    assert people["mum"]["parent"] is True


def test_set_gives_a_person_their_own_approval_mode_and_household_takes_it_back(
    home: Path,
) -> None:
    run("users", "add", "sam", home=home)
    changed = run("users", "set", "sam", "--approvals-fetch", "flagged", "--json", home=home)
    assert changed.code == 0
    shown = json.loads(changed.stdout)
    assert (shown["approvals_fetch"], shown["approvals_search"]) == ("flagged", None)
    text = run("users", "set", "sam", "--approvals-search", "each", home=home).stdout
    assert "own approval modes: search each, fetch flagged" in text
    back = run("users", "set", "sam", "--approvals-fetch", "household", "--json", home=home)
    assert json.loads(back.stdout)["approvals_fetch"] is None
    wrong = run("users", "set", "sam", "--approvals-fetch", "never", home=home)
    assert wrong.code == 2
