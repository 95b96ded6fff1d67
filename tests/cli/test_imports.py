"""Commands import what they use: the web framework and the HTML extractor stay out of the
start-up path of every command that does not need them (issue 10, item 14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths
from tests.mcp.processes import INITIALIZE
from tests.support.probe import last_json, run_python

#: Runs the real CLI in this interpreter, then reports which of the heavy packages it loaded.
PROBE = """
import json, runpy, sys
sys.argv = ["spyglass", *json.loads(sys.argv[1])]
try:
    runpy.run_module("spyglass", run_name="__main__")
except SystemExit:
    pass
# A None entry marks a module as absent (spyglass does so for httpx's command-line tool).
loaded = sorted({name.split(".")[0] for name, module in sys.modules.items() if module})
print(json.dumps(loaded), file=sys.__stderr__)
"""

#: Packages that cost tenths of a second to import and that only some commands need.
HEAVY = {"fastapi", "trafilatura", "uvicorn", "lxml", "pypdf", "mcp", "starlette"}

#: What a call refused before anyone is asked never needs: the HTTP client and the fetch
#: stack (httpx, tldextract and requests under it, charset detection, robots.txt), the privacy
#: detectors (phone numbers), the shared state servers' clients and rich.
NOT_FOR_A_REFUSAL = HEAVY | {
    "httpx",
    "httpcore",
    "h11",
    "anyio",
    "tldextract",
    "requests",
    "charset_normalizer",
    "protego",
    "phonenumbers",
    "redis",
    "psycopg",
    "rich",
    "pygments",
    # Arguments that plainly fit their schema are accepted without loading jsonschema.
    "jsonschema",
    # The command line is click itself: typer (and the pydantic coercion it adds) is gone.
    "typer",
    # The executor runs a command's call without an event loop until it needs one
    # (spyglass.core.drive): a refused call never does.
    "asyncio",
    "concurrent",
    "ssl",
}
#: Our own modules a refusal never needs.
SPYGLASS_NOT_FOR_A_REFUSAL = {
    "spyglass.fetch.fetcher",
    "spyglass.extract.document",
    "spyglass.extract.html",
    "spyglass.net.transport",
    "spyglass.privacy.check",
    "spyglass.privacy.detectors",
    "spyglass.state.redis",
    "spyglass.state.postgres",
    "spyglass.service",
}
#: Our own packages and modules a refusal never needs, with everything under them: the
#: household's accounts (a call the owner typed is made for nobody), the conversation code,
#: the providers' clients and readiness checks, the hosted readers and the search stack.
SPYGLASS_TREES_NOT_FOR_A_REFUSAL = (
    "spyglass.accounts",
    "spyglass.conversation",
    "spyglass.history",
    "spyglass.llm",
    "spyglass.mcp",
    "spyglass.providers",
    "spyglass.fetch.hosted",
    "spyglass.search",
)
#: The guard's rules, address tables and paging: only a call whose URL is looked at needs them.
URL_RULES = {
    "spyglass.net.guard",
    "spyglass.net.addresses",
    "spyglass.net.private",
    "spyglass.fetch.paging",
}
#: The command modules of every command but ``fetch``: ``spyglass fetch`` loads none of them.
OTHER_COMMANDS = {
    "spyglass.cli.audit",
    "spyglass.cli.capabilities",
    "spyglass.cli.config",
    "spyglass.cli.db",
    "spyglass.cli.mcp",
    "spyglass.cli.policy",
    "spyglass.cli.search",
    "spyglass.cli.serve",
    "spyglass.cli.users",
}


def _in_trees(modules: set[str], trees: tuple[str, ...]) -> set[str]:
    """The modules that are one of ``trees`` or inside one of them."""
    return {name for name in modules if any(name == t or name.startswith(t + ".") for t in trees)}


def _modules(home: Path, *args: str) -> set[str]:
    """Every module the real CLI imported for ``spyglass ARGS``."""
    return _run_probe(home, args, FULL_PROBE)


def _loaded(home: Path, *args: str) -> set[str]:
    """Every top-level package the real CLI imported for ``spyglass ARGS``."""
    return _run_probe(home, args, PROBE)


#: Like PROBE, with every module's full name.
FULL_PROBE = PROBE.replace('{name.split(".")[0] for name, module', "{name for name, module")


def _run_probe(home: Path, args: tuple[str, ...], probe: str, stdin: str = "") -> set[str]:
    # The probe reports on the real standard error: the CLI owns standard output.
    done = run_python(home, probe, json.dumps(args), stdin=stdin)
    return set(last_json(done.stderr))


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("fetch", "http://127.0.0.1/"),
        ("search", "harbour tides"),
        ("policy", "show"),
        ("capabilities",),
        ("config", "show"),
        ("mcp", "config", "--client", "claude"),
        ("audit", "tail"),
    ],
    ids=lambda args: " ".join(args),
)
def test_a_command_that_needs_no_web_framework_or_extractor_does_not_import_them(
    home: Path, args: tuple[str, ...]
) -> None:
    assert _loaded(home, *args) & HEAVY == set()


def test_a_refused_fetch_with_web_access_on_still_skips_the_extractor(home: Path) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    loaded = _loaded(home, "fetch", "http://127.0.0.1/")
    assert loaded & HEAVY == set()


def test_the_mcp_server_path_loads_neither_the_web_framework_nor_the_extractor(
    home: Path,
) -> None:
    # What `spyglass mcp` imports before it can answer a host's first tools/list.
    probe = (
        "import json, sys\n"
        "import spyglass.cli, spyglass.cli.mcp, spyglass.mcp.transport\n"
        "from spyglass.runtime import build_runtime\n"
        "from spyglass.mcp.server import build_server\n"
        "build_server(build_runtime())\n"
        "print(json.dumps(sorted({n.split('.')[0] for n, m in sys.modules.items() if m})))\n"
    )
    done = run_python(home, probe)
    assert done.returncode == 0, done.stderr
    loaded = set(last_json(done.stdout))
    assert loaded & {"fastapi", "trafilatura", "lxml", "pypdf"} == set()


def _packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_a_fetch_refused_because_web_access_is_off_loads_only_validation_and_policy(
    home: Path,
) -> None:
    modules = _modules(home, "fetch", "http://127.0.0.1/")
    assert _packages(modules) & NOT_FOR_A_REFUSAL == set()
    assert modules & SPYGLASS_NOT_FOR_A_REFUSAL == set()
    assert _in_trees(modules, SPYGLASS_TREES_NOT_FOR_A_REFUSAL) == set()
    # The URL is never looked at: the guard's rules and address tables stay unloaded.
    assert modules & URL_RULES == set()


#: What only validating settings needs: pydantic's plugin scan (with importlib.metadata, which
#: it imports) runs when the first validator is built.
VALIDATION_ONLY = {"pydantic.plugin._loader", "importlib.metadata"}


@pytest.mark.parametrize("web_access", [False, True], ids=["web access off", "on"])
def test_a_refusal_with_no_settings_set_builds_no_settings_validator(
    home: Path, web_access: bool
) -> None:
    # Nothing in config.toml, the environment or the flags: the defaults are constructed.
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, web_access)
    assert _modules(home, "fetch", "http://127.0.0.1/") & VALIDATION_ONLY == set()


def test_a_refusal_with_settings_set_validates_them(home: Path) -> None:
    (home / "config.toml").write_text("[fetch]\nhttps_only = false\n")
    assert _modules(home, "fetch", "http://127.0.0.1/") >= VALIDATION_ONLY


def test_a_fetch_refused_by_policy_opens_neither_the_accounts_nor_the_paused_turns(
    home: Path,
) -> None:
    # The state database is opened (pending approvals live there), but a call the owner
    # typed is made for nobody: no account, approval queue or paused turn is ever read.
    modules = _modules(home, "fetch", "http://127.0.0.1/")
    assert "spyglass.state.stores" in modules  # the stores were opened
    assert (
        modules
        & {
            "spyglass.accounts.store",
            "spyglass.accounts.people",
            "spyglass.accounts.queue",
            "spyglass.conversation.pending",
        }
        == set()
    )


def test_spyglass_fetch_loads_no_other_command_s_module(home: Path) -> None:
    modules = _modules(home, "fetch", "http://127.0.0.1/")
    assert "spyglass.cli.fetch" in modules
    assert modules & OTHER_COMMANDS == set()


def test_a_fetch_the_guard_refuses_before_asking_loads_no_fetch_stack_or_detectors(
    home: Path,
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    # Any URL the guard refuses: httpx's own parser (the one the fetcher dials with) may load
    # to read it; nothing that reads, extracts or detects may.
    modules = _modules(home, "fetch", "http://localhost/")
    allowed = {"httpx", "httpcore", "h11", "anyio", "asyncio", "concurrent", "ssl"}
    assert _packages(modules) & (NOT_FOR_A_REFUSAL - allowed) == set()
    assert modules & SPYGLASS_NOT_FOR_A_REFUSAL == set()
    assert _in_trees(modules, SPYGLASS_TREES_NOT_FOR_A_REFUSAL) == set()
    assert modules & OTHER_COMMANDS == set()


def test_a_fetch_of_a_plain_private_address_is_refused_without_loading_httpx(
    home: Path,
) -> None:
    # http://<dotted quad>/ leaves a URL parser nothing to interpret: the guard refuses it
    # from that reading, with the same words, and httpx never loads.
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    modules = _modules(home, "fetch", "http://127.0.0.1/")
    assert _packages(modules) & NOT_FOR_A_REFUSAL == set()
    assert modules & SPYGLASS_NOT_FOR_A_REFUSAL == set()
    assert _in_trees(modules, SPYGLASS_TREES_NOT_FOR_A_REFUSAL) == set()
    assert modules & OTHER_COMMANDS == set()


def test_importing_httpx_for_the_guard_does_not_load_httpx_s_own_command_line_tool(
    home: Path,
) -> None:
    # httpx's __init__ imports its command-line tool (click, rich, pygments) when they are
    # installed, as they are here; the guard imports httpx on a refusal with web access on.
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    modules = _modules(home, "fetch", "http://127.1/")
    assert "httpx" in modules  # the guard did parse the URL with httpx
    assert _packages(modules) & {"rich", "pygments"} == set()
    assert "httpx._main" not in modules


def test_httpx_imported_after_the_command_line_parses_urls_without_its_own_tool(
    home: Path,
) -> None:
    code = (
        "import json, sys, spyglass.cli, httpx\n"
        "host = httpx.URL('https://Example.org:8443/a').host\n"
        "tool = sorted({m.split('.')[0] for m, v in sys.modules.items() if v} & "
        "{'rich', 'pygments'})\n"
        "print(json.dumps([host, tool, sys.modules['httpx._main'] is None]))"
    )
    done = run_python(home, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '["example.org", [], true]'


def test_a_search_refused_because_web_access_is_off_loads_no_provider_client(home: Path) -> None:
    modules = _modules(home, "search", "harbour tides")
    assert _packages(modules) & NOT_FOR_A_REFUSAL == set()
    assert modules & SPYGLASS_NOT_FOR_A_REFUSAL == set()
    assert _in_trees(modules, SPYGLASS_TREES_NOT_FOR_A_REFUSAL) == set()


def test_help_loads_neither_the_settings_model_nor_the_capabilities(home: Path) -> None:
    modules = _modules(home, "--help")
    assert _packages(modules) & (NOT_FOR_A_REFUSAL | {"pydantic"}) == set()
    assert not any(name.startswith("spyglass.capabilities") for name in modules)
    assert "spyglass.settings" not in modules


def test_help_lists_the_commands_without_importing_any_of_them(home: Path) -> None:
    modules = _modules(home, "--help")
    assert modules & (OTHER_COMMANDS | {"spyglass.cli.fetch", "spyglass.cli.invoke"}) == set()


#: The real ``spyglass mcp`` in this interpreter, with a host on a thread: it sends the
#: handshake and ``tools/list``, notes every module loaded at the moment the answer arrives,
#: then closes the server's input. Prints that answer and module list on the real stderr.
ANSWER_PROBE = """
import json, os, runpy, sys, threading
requests = sys.argv[1]
# Two pipes become this process's stdin and stdout, as a host's pipes would.
server_in, host_writes = os.pipe()
host_reads, server_out = os.pipe()
os.dup2(server_in, 0)
os.dup2(server_out, 1)
os.close(server_in)
os.close(server_out)
seen = {}

def host():
    with open(host_writes, "w", encoding="utf-8") as sending:
        sending.write(requests)
        sending.flush()
        for line in open(host_reads, encoding="utf-8"):
            if json.loads(line).get("id") == 2:
                seen["modules"] = sorted(n for n, m in list(sys.modules.items()) if m)
                seen["answer"] = json.loads(line)
                return

thread = threading.Thread(target=host, daemon=True)
thread.start()
sys.argv = ["spyglass", "mcp"]
try:
    runpy.run_module("spyglass", run_name="__main__")
except SystemExit:
    pass
thread.join(60)
print(json.dumps(seen), file=sys.stderr)
"""

#: What the stdio server has not loaded when its first tools/list answer goes out: the
#: SDK's client and high-level server (spyglass.mcp.sdk skips the package __init__s that
#: import them), uvicorn (which only the SDK's HTTP transport would patch), requestState
#: sealing with its cryptography (built on the first call that can carry requestState),
#: and the hosted readers with the fetch guard (nothing to check while Spyglass alone
#: reads pages).
NOT_BEFORE_THE_FIRST_ANSWER = (
    "mcp.client",
    "mcp.server.mcpserver",
    "mcp.server.request_state",
    "uvicorn",
    "cryptography",
    "spyglass.fetch.hosted",
    "spyglass.net.guard",
    "spyglass.net.addresses",
)


def test_the_stdio_server_answers_its_first_tools_list_with_only_the_sdk_s_server_modules(
    home: Path,
) -> None:
    PolicyFile(Paths(home).policy_file).set(WEB_ACCESS, True)
    messages = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    requests = "".join(json.dumps(message) + "\n" for message in messages)
    done = run_python(home, ANSWER_PROBE, requests)
    report = last_json(done.stderr)
    assert [tool["name"] for tool in report["answer"]["result"]["tools"]] == [
        "web_fetch",
        "web_search",
    ]
    modules = set(report["modules"])
    assert "mcp.server.lowlevel.server" in modules
    assert _in_trees(modules, NOT_BEFORE_THE_FIRST_ANSWER) == set()


def test_the_real_mcp_stdio_server_answers_tools_list_without_the_fetch_stack(
    home: Path,
) -> None:
    # The real `spyglass mcp` over stdio: a handshake and tools/list, then end of input.
    messages = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    stdin = "".join(json.dumps(message) + "\n" for message in messages)
    modules = _run_probe(home, ("mcp",), FULL_PROBE, stdin=stdin)
    assert "spyglass.mcp.server" in modules  # it did serve
    # Spyglass's own HTTP client (the SDK brings its own), the fetch stack, the extractor,
    # the detectors, the web framework and rich stay out until a tool is called.
    unwanted = {
        "fastapi",
        "trafilatura",
        "lxml",
        "pypdf",
        "httpx",
        "tldextract",
        "phonenumbers",
        "typer",
    }
    assert _packages(modules) & (unwanted | {"charset_normalizer", "rich", "redis"}) == set()
    assert modules & SPYGLASS_NOT_FOR_A_REFUSAL == set()
