// Notices on a confirmation card: what a check found in the call ("contains an email
// address") and where its URL came from. The flagged part of the query or URL is wrapped in
// <mark> elements built from text nodes; nothing from the model or the web becomes markup.

import { h } from "./dom.js";

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
 * Fill `target` with `literal`, the flagged spans marked. Offsets count Unicode code points
 * (as Python does), so the text is split into code points before slicing.
 */
export function fillHighlighted(target, literal, notices, argument) {
  const chars = Array.from(literal);
  const spans = spansFor(notices, argument, chars.length);
  const nodes = [];
  let at = 0;
  for (const span of spans) {
    if (span.start > at) nodes.push(document.createTextNode(chars.slice(at, span.start).join("")));
    const mark = h("mark", { class: "confirm-mark", title: "flagged by the privacy check", text: chars.slice(span.start, span.end).join("") });
    mark.dataset.kinds = span.kinds.join(" ");
    nodes.push(mark);
    at = span.end;
  }
  if (at < chars.length) nodes.push(document.createTextNode(chars.slice(at).join("")));
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
    const privacy = kind.startsWith("privacy.");
    const item = h("li", { class: `confirm-notice ${privacy ? "confirm-notice-privacy" : "confirm-notice-info"}` },
      h("span", { class: "confirm-notice-icon", "aria-hidden": "true", text: privacy ? "⚠" : "ℹ" }),
      h("span", { text: describe(notice, privacy) }));
    item.dataset.kind = kind;
    list.append(item);
  }
  return list;
}

function describe(notice, privacy) {
  const message = String(notice.message);
  if (privacy) return `This ${notice.argument === "url" ? "address" : "query"} ${message}`;
  if (notice.kind === "provenance") return `From: ${message}`;
  return message.charAt(0).toUpperCase() + message.slice(1);
}
