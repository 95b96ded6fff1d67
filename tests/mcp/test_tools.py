"""Tools come from the registry: external capabilities only, with their own schemas."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client

from spyglass.capabilities.health import CAPABILITY as HEALTH
from spyglass.core.advertised import forbidden_keywords
from spyglass.core.capability import SideEffect
from spyglass.core.policy import WEB_ACCESS
from spyglass.core.registry import Registry
from spyglass.mcp.server import build_server
from spyglass.mcp.tools import ToolTable, exposed, tool_for
from spyglass.paths import Paths
from spyglass.runtime import build_runtime
from tests.mcp.support import ERAS, text_of
from tests.support.capabilities import make


def test_only_the_newest_external_capabilities_are_exposed_in_name_order() -> None:
    registry = Registry([make("web.zeta"), make("web.alpha"), make("web.alpha", version=2), HEALTH])
    assert [(c.name, c.version) for c in exposed(registry)] == [
        ("web.alpha", 2),
        ("web.zeta", 1),
    ]


def test_a_tool_carries_the_capability_schemas_title_and_honest_annotations() -> None:
    capability = make("web.echo")
    tool = tool_for(capability)
    assert tool.name == "web_echo"
    assert tool.title == capability.title
    assert tool.description == capability.description
    assert tool.input_schema == capability.advertised_arguments
    assert tool.output_schema is None
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True
    assert tool.annotations.open_world_hint is True


def test_a_mutating_capability_is_not_advertised_as_read_only() -> None:
    tool = tool_for(make("web.post", side_effect=SideEffect.MUTATING))
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is False


def test_the_table_maps_wire_names_back_and_refuses_others() -> None:
    table = ToolTable(Registry([make("web.echo"), HEALTH]))
    assert table.get("web_echo") is not None
    assert table.get("system_health") is None
    assert table.input_schema("web_echo") == make("web.echo").advertised_arguments
    assert table.input_schema("nope") is None


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_lists_the_tools_with_schemas_and_annotations(
    paths: Paths, era: str
) -> None:
    capability = make("web.echo")
    runtime = build_runtime(paths, registry=Registry([capability, HEALTH]))
    runtime.policy.set(WEB_ACCESS, True)
    async with Client(build_server(runtime), mode=era) as client:
        listed = await client.list_tools()
    (tool,) = listed.tools
    assert tool.name == "web_echo"
    assert tool.input_schema == capability.advertised_arguments
    assert tool.output_schema is None
    assert tool.annotations is not None
    assert (tool.annotations.read_only_hint, tool.annotations.open_world_hint) == (True, True)


@pytest.mark.parametrize("era", ERAS)
async def test_no_listed_input_schema_has_a_root_combinator_or_a_not_anywhere(
    paths: Paths, era: str
) -> None:
    runtime = build_runtime(paths)
    runtime.policy.set(WEB_ACCESS, True)
    async with Client(build_server(runtime), mode=era) as client:
        listed = await client.list_tools()
    assert {tool.name for tool in listed.tools} >= {"web_search", "web_fetch"}
    for tool in listed.tools:
        assert forbidden_keywords(tool.input_schema) == [], tool.name


async def test_a_call_breaking_a_rule_hosts_are_not_shown_is_refused_with_its_message(
    paths: Paths,
) -> None:
    runtime = build_runtime(paths)
    runtime.policy.set(WEB_ACCESS, True)
    arguments = {"query": "q", "include_domains": ["a.com"], "exclude_domains": ["b.com"]}
    async with Client(build_server(runtime)) as client:
        result = await client.call_tool("web_search", arguments)
    assert result.is_error
    assert "include_domains or exclude_domains, not both" in text_of(result)


def test_a_misconfigured_capability_is_not_offered_and_descriptions_follow_the_settings(
    paths: Paths,
) -> None:
    runtime = build_runtime(
        paths, overrides={"search.providers": "brave", "fetch.providers": "direct"}
    )
    table = ToolTable(runtime.registry, runtime.settings)
    assert "web_search" not in table.names and "web_fetch" in table.names

    working = build_runtime(paths, overrides={"search.providers": "duckduckgo"})
    (search,) = [
        t for t in ToolTable(working.registry, working.settings).tools if t.name == "web_search"
    ]
    assert search.description is not None and "site:" in search.description


async def test_the_malformed_argument_example_in_docs_mcp_is_what_a_client_is_told(
    paths: Paths,
) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")
    example = re.search(r"`(count must be at most (\d+) \[INVALID_ARGUMENTS\])`", docs)
    assert example is not None
    runtime = build_runtime(paths)
    runtime.policy.set(WEB_ACCESS, True)
    async with Client(build_server(runtime)) as client:
        too_many = int(example.group(2)) + 1
        result = await client.call_tool("web_search", {"query": "q", "count": too_many})
        allowed = await client.call_tool("web_search", {"query": "q", "count": too_many - 1})
    assert result.is_error and example.group(1) in text_of(result)
    # The example names the schema's own bound: one less is not malformed.
    assert "INVALID_ARGUMENTS" not in text_of(allowed)
