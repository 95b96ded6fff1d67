// Small DOM helpers. Every string goes in through textContent or setAttribute, never through
// innerHTML, so text from the model or the web can never become markup.

/**
 * Create an element.
 * @param {string} tag
 * @param {Record<string, string|boolean|undefined>} [attrs] attributes; `class` and `text` are
 *   shortcuts, `false`/`undefined` values are skipped.
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "class") node.className = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

/** Append nodes or strings (as text) to a parent, skipping empty values. */
export function append(parent, ...children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return parent;
}

/** An inline SVG icon built with DOM APIs (paths are our own constants, never data). */
export function icon(pathData) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  for (const d of pathData) {
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

/** The host of a URL for display, or the URL itself when it does not parse. */
export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return String(url);
  }
}

/** A URL that is safe to put in an href: absolute http, https or mailto; otherwise null. */
export function safeHref(raw, schemes = ["http:", "https:", "mailto:"]) {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 4096) return null;
  let url;
  try {
    // No base URL: relative links are refused, so text cannot point at the console's own API.
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (!schemes.includes(url.protocol)) return null;
  if (url.protocol !== "mailto:" && url.username) return null;
  return url.href;
}

/** An external link that opens in a new tab and tells the target nothing about us. */
export function externalLink(href, text, attrs = {}) {
  return h("a", { href, target: "_blank", rel: "noopener noreferrer", text, ...attrs });
}
