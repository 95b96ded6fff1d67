// A small, safe Markdown renderer for model output.
//
// It builds DOM nodes directly: text only ever enters through text nodes, raw HTML is shown as
// the literal characters it is, links are kept only for absolute http/https/mailto URLs, and
// images are never loaded — each becomes a button that shows its full URL first. It covers
// what chat models write (headings, paragraphs, emphasis, code, lists, quotes, tables, rules,
// links); anything it does not understand stays plain text.

import { h, externalLink, safeHref } from "./dom.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;
const MAX_DEPTH = 8;

/**
 * Render Markdown source into a fragment of safe DOM nodes.
 * @param {string} source
 * @returns {DocumentFragment}
 */
export function renderMarkdown(source) {
  const fragment = document.createDocumentFragment();
  renderBlocks(String(source).replace(/\r\n?/g, "\n").split("\n"), fragment, 0);
  return fragment;
}

function renderBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    let match;
    if ((match = FENCE.exec(line))) {
      const fence = match[1];
      const body = [];
      i += 1;
      while (i < lines.length && !isClosingFence(lines[i], fence)) body.push(lines[i++]);
      i += 1; // the closing fence (or the end, while a reply is still streaming)
      const code = h("code", { text: body.join("\n") });
      if (match[2]) code.dataset.language = match[2];
      parent.append(h("pre", { class: "md-code" }, code));
      continue;
    }
    if ((match = HEADING.exec(line))) {
      // Model headings sit under the page's own: "#" becomes h3.
      const level = Math.min(6, match[1].length + 2);
      parent.append(renderInline(match[2], h(`h${level}`), depth));
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      parent.append(h("hr"));
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && lines[i].trim() !== "") {
        const quoted = QUOTE.exec(lines[i]);
        if (!quoted) break;
        inner.push(quoted[1]);
        i += 1;
      }
      const quote = h("blockquote");
      if (depth < MAX_DEPTH) renderBlocks(inner, quote, depth + 1);
      else quote.textContent = inner.join("\n");
      parent.append(quote);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      i = renderList(lines, i, parent, depth);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_DIVIDER.test(lines[i + 1]) && lines[i + 1].includes("-")) {
      i = renderTable(lines, i, parent, depth);
      continue;
    }
    const paragraph = [];
    while (i < lines.length && lines[i].trim() !== "" && !startsBlock(lines, i)) paragraph.push(lines[i++].trim());
    if (paragraph.length === 0) paragraph.push(lines[i++].trim());
    parent.append(renderInline(paragraph.join("\n"), h("p"), depth));
  }
}

function isClosingFence(line, fence) {
  const trimmed = line.trim();
  return trimmed.startsWith(fence) && /^([`~])\1*$/.test(trimmed) && trimmed[0] === fence[0];
}

function startsBlock(lines, i) {
  const line = lines[i];
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

function renderList(lines, start, parent, depth) {
  const first = LIST_ITEM.exec(lines[start]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = h(ordered ? "ol" : "ul");
  if (ordered) {
    const number = parseInt(first[2], 10);
    if (number !== 1) list.setAttribute("start", String(number));
  }
  let i = start;
  while (i < lines.length) {
    const match = LIST_ITEM.exec(lines[i]);
    if (!match || match[1].length !== indent || /\d/.test(match[2]) !== ordered) break;
    const content = [match[3]];
    const contentIndent = match[1].length + match[2].length + 1;
    i += 1;
    // Continuation: indented lines (nested lists, wrapped text) and blank lines between them.
    while (i < lines.length) {
      const next = lines[i];
      if (next.trim() === "") {
        if (i + 1 < lines.length && leadingSpaces(lines[i + 1]) > indent) {
          content.push("");
          i += 1;
          continue;
        }
        break;
      }
      const nested = LIST_ITEM.exec(next);
      if (nested && nested[1].length <= indent) break;
      if (!nested && leadingSpaces(next) <= indent && startsBlock(lines, i)) break;
      content.push(next.slice(Math.min(leadingSpaces(next), contentIndent)));
      i += 1;
    }
    const item = h("li");
    if (depth < MAX_DEPTH) {
      renderBlocks(content, item, depth + 1);
      // A tight item renders as its text, not as a paragraph inside the bullet.
      if (item.childElementCount >= 1 && item.firstElementChild.tagName === "P" && !content.includes("")) {
        const p = item.firstElementChild;
        while (p.firstChild) item.insertBefore(p.firstChild, p);
        p.remove();
      }
    } else {
      item.textContent = content.join("\n");
    }
    list.append(item);
    while (i < lines.length && lines[i].trim() === "" && i + 1 < lines.length && LIST_ITEM.test(lines[i + 1]) && LIST_ITEM.exec(lines[i + 1])[1].length === indent) i += 1;
  }
  parent.append(list);
  return i;
}

function leadingSpaces(line) {
  return line.length - line.trimStart().length;
}

function splitRow(line) {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells = [];
  let current = "";
  for (let k = 0; k < text.length; k += 1) {
    if (text[k] === "\\" && text[k + 1] === "|") {
      current += "|";
      k += 1;
    } else if (text[k] === "|") {
      cells.push(current.trim());
      current = "";
    } else {
      current += text[k];
    }
  }
  cells.push(current.trim());
  return cells;
}

function renderTable(lines, start, parent, depth) {
  const header = splitRow(lines[start]);
  const aligns = splitRow(lines[start + 1]).map((cell) =>
    cell.startsWith(":") && cell.endsWith(":") ? "center" : cell.endsWith(":") ? "right" : "",
  );
  const table = h("table");
  const headRow = h("tr");
  header.forEach((cell, k) => headRow.append(renderInline(cell, h("th", { class: aligns[k] ? `align-${aligns[k]}` : undefined, scope: "col" }), depth)));
  table.append(h("thead", {}, headRow));
  const body = h("tbody");
  let i = start + 2;
  while (i < lines.length && lines[i].trim() !== "" && lines[i].includes("|")) {
    const cells = splitRow(lines[i]);
    const row = h("tr");
    header.forEach((_, k) => row.append(renderInline(cells[k] ?? "", h("td", { class: aligns[k] ? `align-${aligns[k]}` : undefined }), depth)));
    body.append(row);
    i += 1;
  }
  table.append(body);
  parent.append(h("div", { class: "md-table" }, table));
  return i;
}

// ---- inline ---------------------------------------------------------------------------

const ESCAPABLE = "\\`*_{}[]()#+-.!|~<>\"'";
const BARE_URL = /^(https?:\/\/[^\s<>"]+)/;
const TRAILING_PUNCTUATION = /[.,;:!?'")\]]+$/;

/** Parse inline Markdown in `text` and append the result to `target`; returns `target`. */
export function renderInline(text, target, depth = 0) {
  let plain = "";
  const flush = () => {
    if (plain) target.append(document.createTextNode(plain));
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const rest = text.slice(i);
    if (ch === "\\" && i + 1 < text.length && ESCAPABLE.includes(text[i + 1])) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "\n") {
      plain += " ";
      i += 1;
      continue;
    }
    if (ch === "`") {
      const run = /^`+/.exec(rest)[0];
      const close = text.indexOf(run, i + run.length);
      if (close !== -1) {
        flush();
        target.append(h("code", { text: text.slice(i + run.length, close).replace(/\n/g, " ") }));
        i = close + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (ch === "!" && text[i + 1] === "[") {
      const link = parseLink(text, i + 1);
      if (link) {
        flush();
        target.append(imagePlaceholder(link.label, link.url));
        i = link.end;
        continue;
      }
    }
    if (ch === "[") {
      const link = parseLink(text, i);
      if (link) {
        flush();
        const href = safeHref(link.url);
        if (href && depth < MAX_DEPTH) {
          const anchor = externalLink(href, "");
          renderInline(link.label, anchor, depth + 1);
          anchor.title = href;
          target.append(anchor);
        } else {
          // Not a safe link: show exactly what was written, as text.
          target.append(document.createTextNode(text.slice(i, link.end)));
        }
        i = link.end;
        continue;
      }
    }
    if (ch === "<") {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/.exec(rest);
      const href = auto && safeHref(auto[1]);
      if (href) {
        flush();
        target.append(externalLink(href, auto[1]));
        i += auto[0].length;
        continue;
      }
    }
    if ((ch === "h" || ch === "H") && (i === 0 || /[\s(]/.test(text[i - 1]))) {
      const bare = BARE_URL.exec(rest);
      if (bare) {
        const url = bare[1].replace(TRAILING_PUNCTUATION, "");
        const href = safeHref(url);
        if (href) {
          flush();
          target.append(externalLink(href, url));
          i += url.length;
          continue;
        }
      }
    }
    if ((ch === "*" || ch === "_" || ch === "~") && depth < MAX_DEPTH) {
      const span = parseEmphasis(text, i);
      if (span) {
        flush();
        target.append(renderInline(span.inner, h(span.tag), depth + 1));
        i = span.end;
        continue;
      }
    }
    plain += ch;
    i += 1;
  }
  flush();
  return target;
}

function parseLink(text, open) {
  // [label](url "optional title") with balanced brackets in the label.
  let level = 0;
  let k = open;
  for (; k < text.length; k += 1) {
    if (text[k] === "\\") {
      k += 1;
      continue;
    }
    if (text[k] === "[") level += 1;
    else if (text[k] === "]" && --level === 0) break;
  }
  if (k >= text.length || text[k + 1] !== "(") return null;
  const label = text.slice(open + 1, k);
  let m = k + 2;
  let parens = 0;
  let target = "";
  for (; m < text.length; m += 1) {
    const c = text[m];
    if (c === "(") parens += 1;
    else if (c === ")") {
      if (parens === 0) break;
      parens -= 1;
    }
    target += c;
  }
  if (m >= text.length) return null;
  const trimmed = target.trim();
  const titled = /^(\S+)\s+(?:"[^"]*"|'[^']*')$/.exec(trimmed);
  let url = titled ? titled[1] : trimmed;
  if (url.startsWith("<") && url.endsWith(">")) url = url.slice(1, -1);
  return { label, url, end: m + 1 };
}

function parseEmphasis(text, i) {
  const ch = text[i];
  const double = text[i + 1] === ch;
  if (ch === "~" && !double) return null;
  const marker = double ? ch + ch : ch;
  const start = i + marker.length;
  if (start >= text.length || /\s/.test(text[start])) return null;
  // Intra-word underscores (snake_case) are not emphasis.
  if (ch === "_" && i > 0 && /\w/.test(text[i - 1])) return null;
  let search = start;
  while (search < text.length) {
    const close = text.indexOf(marker, search);
    if (close === -1) return null;
    const after = text[close + marker.length];
    const goodClose = !/\s/.test(text[close - 1]) && close > start && (ch !== "_" || !after || !/\w/.test(after));
    // For single markers skip a double marker (it belongs to a nested strong span).
    if (goodClose && (double || text[close + 1] !== ch || text[close - 1] === ch)) {
      const tag = ch === "~" ? "del" : double ? "strong" : "em";
      return { tag, inner: text.slice(start, close), end: close + marker.length };
    }
    search = close + marker.length;
  }
  return null;
}

/** An image is never fetched automatically: show its full address and open it only on request. */
function imagePlaceholder(label, url) {
  const href = safeHref(url, ["http:", "https:"]);
  const description = label.trim() || "image";
  const box = h("span", { class: "md-image" });
  box.append(h("span", { class: "md-image-label", text: `Image not loaded: ${description}` }));
  box.append(h("span", { class: "md-image-url", text: url }));
  if (href) {
    const button = h("button", { type: "button", class: "button button-small", text: "Open image" });
    button.setAttribute("aria-label", `Open image from ${url} in a new tab`);
    button.addEventListener("click", () => {
      // The console's Content-Security-Policy keeps remote images out of the page itself,
      // so an approved image opens in its own tab with no referrer and no opener.
      const opened = window.open(href, "_blank", "noopener,noreferrer");
      if (opened) opened.opener = null;
    });
    box.append(button);
  }
  return box;
}
