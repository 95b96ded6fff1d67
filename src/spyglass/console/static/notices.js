// Notices on a confirmation card: what a check found in the call ("contains an email
// address") and where its URL came from. The flagged part of the query or URL is wrapped in
// <mark> elements built from text nodes; nothing from the model or the web becomes markup.

import { h } from "./dom.js";

// Characters that would not show as themselves (spyglass/untrusted/shown.py decides the same
// set on the server, and its notices name them): controls, format characters such as bidi
// overrides and zero-width ones, private-use and unassigned code points, line and paragraph
// separators, spaces other than U+0020, and letters and marks that draw nothing. Each is
// drawn as its escape (\n, \u202e) in its own element, so newlines cannot push the rest of
// a query out of view and an override cannot turn the text around.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\u{e0100}-\u{e01ef}]|(?! )\p{Zs}/u;
const SHORT = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** The escape a hidden character is drawn as: `\n`, `\u202e`, `\U000e0041`. */
export function escapeOf(char) {
  if (SHORT[char]) return SHORT[char];
  const point = char.codePointAt(0);
  return point <= 0xffff ? `\\u${point.toString(16).padStart(4, "0")}` : `\\U${point.toString(16).padStart(8, "0")}`;
}

/** `text` as nodes: its hidden characters as escapes, each marked as one (never markup). */
export function shownNodes(text) {
  const nodes = [];
  let run = "";
  for (const char of String(text)) {
    if (!HIDDEN.test(char)) {
      run += char;
      continue;
    }
    if (run) nodes.push(document.createTextNode(run));
    run = "";
    const point = `U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    nodes.push(h("span", { class: "shown-escape", title: `a character that does not show (${point})`, text: escapeOf(char) }));
  }
  if (run) nodes.push(document.createTextNode(run));
  return nodes;
}

/** Notices about `argument` that carry a span, merged where they overlap. */
export function spansFor(notices, argument, length) {
  const spans = [];
  for (const notice of notices ?? []) {
    if (notice?.argument !== argument) continue;
    const start = Number(notice.start);
    const end = Number(notice.end);
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end <= start || start >= length) continue;
    spans.push({ start, end: Math.min(end, length), kinds: [String(notice.kind ?? "")] });
  }
  spans.sort((a, b) => a.start - b.start);
  const merged = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      last.kinds.push(...span.kinds);
    } else merged.push({ ...span });
  }
  return merged;
}

/**
 * Fill `target` with `literal`, the flagged spans marked and hidden characters drawn as
 * escapes (`shownNodes`). Offsets count Unicode code points
 * (as Python does), so the text is split into code points before slicing.
 */
export function fillHighlighted(target, literal, notices, argument) {
  const chars = Array.from(literal);
  const spans = spansFor(notices, argument, chars.length);
  const nodes = [];
  let at = 0;
  for (const span of spans) {
    if (span.start > at) nodes.push(...shownNodes(chars.slice(at, span.start).join("")));
    const mark = h("mark", { class: "confirm-mark", title: "flagged by the privacy check" }, ...shownNodes(chars.slice(span.start, span.end).join("")));
    mark.dataset.kinds = span.kinds.join(" ");
    nodes.push(mark);
    at = span.end;
  }
  if (at < chars.length) nodes.push(...shownNodes(chars.slice(at).join("")));
  target.replaceChildren(...nodes);
}

/**
 * The list of notices shown under the value, privacy findings first; `reasons` (why a call
 * asks where the owner lets calls nothing flags run without a card) come before them all.
 */
export function noticeList(notices, reasons = []) {
  const items = [...(notices ?? [])].filter((n) => n && n.message);
  const why = (Array.isArray(reasons) ? reasons : []).filter((r) => typeof r === "string" && r);
  if (items.length === 0 && why.length === 0) return null;
  items.sort((a, b) => Number(!String(a.kind).startsWith("privacy.")) - Number(!String(b.kind).startsWith("privacy.")));
  const list = h("ul", { class: "confirm-notices" });
  for (const reason of why) {
    const item = h("li", { class: "confirm-notice confirm-reason" },
      h("span", { class: "confirm-notice-icon", "aria-hidden": "true", text: "?" }),
      h("span", { text: `Asks because ${reason}` }));
    list.append(item);
  }
  for (const notice of items) {
    const kind = String(notice.kind ?? "");
    // Hidden characters and look-alike hosts (shown.*) warn like the privacy findings.
    const privacy = kind.startsWith("privacy.") || kind.startsWith("shown.");
    const item = h("li", { class: `confirm-notice ${privacy ? "confirm-notice-privacy" : "confirm-notice-info"}` },
      h("span", { class: "confirm-notice-icon", "aria-hidden": "true", text: privacy ? "⚠" : "ℹ" }),
      h("span", { text: describe(notice, privacy) }));
    item.dataset.kind = kind;
    list.append(item);
  }
  return list;
}

const SUBJECTS = { url: "address", query: "query", focus: "text to look for", include_domains: "list of sites to search", exclude_domains: "list of sites to leave out" };

function describe(notice, privacy) {
  const message = String(notice.message);
  if (privacy) return `This ${SUBJECTS[notice.argument] ?? notice.argument ?? "call"} ${message}`;
  if (notice.kind === "provenance") return `From: ${message}`;
  return message.charAt(0).toUpperCase() + message.slice(1);
}
