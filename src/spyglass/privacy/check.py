"""The privacy check of an outgoing search query or fetch URL, run before anyone is asked.

Findings become :class:`~spyglass.core.outcome.Notice` s (``privacy.<kind>``) that travel with
the pending call, so the approving person sees what the call would carry and where. Where
nobody approves each call (a delegated channel), or when the owner chose ``block``, a call with
findings is refused with ``PRIVACY_BLOCKED`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from spyglass.core.context import InvocationContext
from spyglass.core.outcome import Notice
from spyglass.errors import CapabilityError
from spyglass.privacy import detectors
from spyglass.privacy.copied import CopiedText
from spyglass.privacy.detectors import Detector, Finding
from spyglass.privacy.provenance import TRACKING
from spyglass.privacy.views import View, decodes_to_text, text_views, url_views
from spyglass.settings import PrivacySettings

PRIVACY_BLOCKED = "PRIVACY_BLOCKED"
_USERINFO = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/?#@]*)@")
NOTICE_PREFIX = "privacy."


class PrivacyCheck:
    """All detectors configured from the owner's settings and the conversation's text."""

    def __init__(self, settings: PrivacySettings, private_texts: Sequence[str] = ()) -> None:
        self.shape_detectors: list[Detector] = [
            detectors.emails,
            detectors.phone_numbers(settings.phone_region),
            detectors.payment_cards,
            detectors.ibans,
            detectors.government_ids,
            detectors.secrets,
        ]
        if settings.personal_terms:
            self.shape_detectors.append(detectors.personal_terms(settings.personal_terms))
        self.copied = CopiedText(private_texts, settings.copied_words)

    def query(self, text: str) -> list[Finding]:
        """Findings in a search query, as spans of ``text``."""
        views = text_views(text)
        found = list(self._in_views(views))
        found += [
            f
            for f in detectors.random_tokens(text)
            if not _covered(f, found) and not decodes_to_text(text[f.start : f.end])
        ]
        return _distinct(found)

    def url(self, url: str) -> list[Finding]:
        """Findings in a URL (host, path and query; never the fragment), as spans of ``url``."""
        views = url_views(url)
        found = list(self._in_views(views))
        for view in views[:2]:
            found += [_mapped(view, f) for f in detectors.url_secrets(view.text)]
            query_at = view.text.find("?")
            if query_at >= 0:
                tail = view.slice(query_at, len(view.text))
                found += [
                    _mapped(tail, f)
                    for f in detectors.random_tokens(tail.text)
                    if not _covered(_mapped(tail, f), found)
                    and not decodes_to_text(tail.text[f.start : f.end])
                    and not _tracking_value(tail.text, f.start)
                ]
        userinfo = _USERINFO.match(url)
        if userinfo and ":" in userinfo.group(1):
            # user:password@host is a password in the address, not an email address.
            found = [f for f in found if not (f.kind == "email" and f.start < userinfo.end())]
        return _distinct(found)

    def _in_views(self, views: Sequence[View]) -> Iterator[Finding]:
        for view in views:
            for detect in self.shape_detectors:
                for finding in detect(view.text):
                    yield _mapped(view, finding)
            for finding in self.copied(view.text):
                yield _mapped(view, finding)


def _mapped(view: View, finding: Finding) -> Finding:
    start, end = view.span(finding.start, finding.end)
    return Finding(finding.kind, start, end, finding.what)


def _tracking_value(query: str, start: int) -> bool:
    """Whether the token at ``start`` is the value of a click-tracking parameter (``gclid``,
    ``srsltid``...): an id a site or search engine minted, not something carried out."""
    name = re.search(r"([\w.-]+)=$", query[max(0, start - 40) : start])
    return bool(name and TRACKING.match(name.group(1)))


def _covered(finding: Finding, others: Sequence[Finding]) -> bool:
    return any(o.start <= finding.start and finding.end <= o.end for o in others)


def _distinct(found: list[Finding]) -> list[Finding]:
    """One finding per kind and place: the widest when several overlap."""
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[Finding] = []
    for finding in found:
        if any(k.kind == finding.kind and k.start < finding.end and finding.start < k.end
               for k in kept):  # fmt: skip
            continue
        kept.append(finding)
    return kept


def notices(findings: Sequence[Finding], argument: str) -> list[Notice]:
    return [
        Notice(
            kind=NOTICE_PREFIX + f.kind,
            message=f"contains {f.what}",
            argument=argument,
            start=f.start,
            end=f.end,
        )
        for f in findings
    ]


def blocks(context: InvocationContext) -> bool:
    """Whether findings refuse the call rather than warn the person approving it."""
    mode = context.settings.privacy.on_finding
    return mode == "block" or (mode == "default" and context.delegated)


def enforce(context: InvocationContext, findings: Sequence[Finding], argument: str) -> list[Notice]:
    """The notices for ``findings``, or ``PRIVACY_BLOCKED`` when the policy says block."""
    if not findings:
        return []
    if blocks(context):
        kinds = list(dict.fromkeys(f.kind for f in findings))
        named = _listed([detectors.KIND_NAMES.get(kind, kind) for kind in kinds])
        why = (
            "nobody approves each call on this channel, so calls that carry private data "
            "are blocked"
            if context.delegated and context.settings.privacy.on_finding == "default"
            else "the owner's privacy setting blocks calls that carry private data"
        )
        raise CapabilityError(
            PRIVACY_BLOCKED,
            f"not sent: the {argument} contains {named} ({', '.join(kinds)}); {why}. "
            f"Leave the private part out of the {argument} and try again.",
            reason=kinds[0],
            status="rejected",
            findings=kinds,
        )
    return notices(findings, argument)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def checker(context: InvocationContext) -> PrivacyCheck:
    return PrivacyCheck(context.settings.privacy, context.turn.private_texts)


#: ``web.search``'s arguments besides the query that reach the provider (as ``site:`` terms).
DOMAIN_FILTERS = ("include_domains", "exclude_domains")


async def check_query(context: InvocationContext) -> list[Notice]:
    """``web.search``'s privacy check of its ``query`` argument, and of its domain filters:
    they reach the provider too, so a host name spelled from private words is flagged."""
    query: str = context.arguments["query"]
    check = checker(context)
    notices = enforce(context, check.query(query), "query")
    for name in DOMAIN_FILTERS:
        values = context.arguments.get(name) or []
        found = [f for value in values if isinstance(value, str) for f in check.query(value)]
        # A finding's span is within one entry, not the list: the notice names the filter.
        notices += [replace(n, start=None, end=None) for n in enforce(context, found, name)]
    return notices


async def check_url(context: InvocationContext) -> list[Notice]:
    """``web.fetch``'s privacy check of its ``url`` argument."""
    url: str = context.arguments["url"]
    return enforce(context, checker(context).url(url), "url")
