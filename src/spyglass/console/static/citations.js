// Citation markers in an answer: "[2]" (also "[1, 3]", "[^2]", "【2】") become links to the
// numbered source of the turn, and the sources split into the cited ones and the rest.

import { externalLink, safeHref } from "./dom.js";

const MARKER = /(?:\[\^?|【)(\d{1,3}(?:\s*[,;]\s*\^?\d{1,3})*)(?:\]|】)/;
// A fresh global copy per use: a shared one carries its lastIndex from one search to the next.
const markers = () => new RegExp(MARKER.source, "g");

/** The turn's sources by number: `n` as the service gave it, else the position from 1. */
export function byNumber(citations) {
  const sources = new Map();
  (citations ?? []).forEach((citation, index) => {
    const href = safeHref(citation.url, ["http:", "https:"]);
    const n = Number.isInteger(citation.n) ? citation.n : index + 1;
    if (href && !sources.has(n)) sources.set(n, { ...citation, href });
  });
  return sources;
}

/** Whether the answer cites any source by number (else every source is shown as found). */
export function anyCited(citations) {
  return (citations ?? []).some((citation) => citation.cited === true);
}

/**
 * Turn every marker naming a known source inside `root` into links to it. Text inside links,
 * code and preformatted blocks is left alone; unknown numbers stay plain text.
 */
export function linkMarkers(root, sources) {
  if (!sources.size) return;
  // The Markdown renderer may leave a marker split over adjacent text nodes ("[", "2]").
  root.normalize();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest("a, code, pre") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (MARKER.test(node.data)) nodes.push(node);
  }
  for (const node of nodes) node.replaceWith(linked(node.data, sources));
}

function linked(text, sources) {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(markers())) {
    const numbers = match[1].split(/[,;]/).map((part) => Number(part.trim().replace(/^\^/, "")));
    if (!numbers.some((n) => sources.has(n))) continue;
    fragment.append(text.slice(last, match.index));
    for (const n of numbers) {
      const source = sources.get(n);
      if (!source) {
        fragment.append(`[${n}]`);
        continue;
      }
      const label = source.title ? `Source ${n}: ${source.title}` : `Source ${n}`;
      fragment.append(externalLink(source.href, `[${n}]`, { class: "cite", title: label, "aria-label": label }));
    }
    last = match.index + match[0].length;
  }
  fragment.append(text.slice(last));
  return fragment;
}
