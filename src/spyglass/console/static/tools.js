// How a search or a fetch looks in the transcript: one collapsible block per tool call that
// starts as "searching…", may wait for approval, and ends as a result or a failure.
// All web text (titles, snippets, URLs) goes in as text nodes.

import { h, externalLink, hostOf, safeHref } from "./dom.js";

const VERBS = {
  "web.search": { running: "searching", failed: "search failed", refused: "search refused", denied: "search not approved", waiting: "waiting for approval" },
  "web.fetch": { running: "reading", failed: "could not read", refused: "page refused", denied: "page not approved", waiting: "waiting for approval" },
};

/** What a capability call is about, as a person would say it. */
export function subjectOf(capability, args) {
  if (capability === "web.search") return String(args?.query ?? "");
  if (capability === "web.fetch") return String(args?.url ?? "");
  return capability;
}

/** How a call that ran without a card reads, by the rule it ran under. */
const UNASKED = { flagged: "not asked: nothing flagged it", conversation: "not asked: allowed for this conversation" };

/** The status-line text while a call runs. */
export function runningText(capability, args) {
  if (capability === "web.search") return `Searching the web for “${subjectOf(capability, args)}”…`;
  if (capability === "web.fetch") return `Reading ${hostOf(subjectOf(capability, args))}…`;
  return `Running ${capability}…`;
}

/** A key that identifies one call, so its later events update the same block. */
export function callKey(capability, args) {
  return `${capability}\u0000${stableJson(args ?? {})}`;
}

function stableJson(value) {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** One tool call in the transcript. */
export class ToolBlock {
  constructor(capability, args) {
    this.capability = capability;
    this.args = args ?? {};
    this.key = callKey(capability, this.args);
    this.settled = false;
    this.label = h("span", { class: "tool-label" });
    this.detail = h("span", { class: "tool-detail" });
    this.summary = h("summary", {}, h("span", { class: "tool-icon", "aria-hidden": "true" }), this.label, this.detail);
    this.body = h("div", { class: "tool-body" });
    this.element = h("details", { class: "tool tool-running" }, this.summary, this.body);
    this.running();
  }

  words() {
    return VERBS[this.capability] ?? { running: "running", failed: "failed", refused: "refused", denied: "not approved", waiting: "waiting for your approval" };
  }

  setState(state, label, detail) {
    this.element.className = `tool tool-${state}`;
    this.element.dataset.state = state;
    this.label.textContent = label;
    this.detail.textContent = detail;
  }

  running() {
    this.setState("running", `${this.words().running}:`, this.subjectShort());
    this.body.replaceChildren(this.argumentsView());
  }

  waiting() {
    this.setState("waiting", `${this.words().waiting}:`, this.subjectShort());
    this.body.replaceChildren(this.argumentsView());
  }

  /** Show the final ToolEvent. */
  finish(event) {
    this.settled = event.status !== "pending_confirmation";
    switch (event.status) {
      case "ok":
        if (this.capability === "web.search") this.showSearch(event.summary ?? {});
        else if (this.capability === "web.fetch") this.showFetch(event.summary ?? {});
        else this.setState("ok", "used:", this.capability);
        break;
      case "pending_confirmation":
        this.waiting();
        break;
      case "denied":
        this.showProblem("denied", this.words().denied, event);
        break;
      case "rejected":
        this.showProblem("rejected", this.words().refused, event);
        break;
      default:
        this.showProblem("failed", this.words().failed, event);
    }
    // A call that ran without a card says so, and by which rule (nothing runs unseen).
    const unasked = UNASKED[event.unasked];
    if (unasked) {
      this.element.dataset.unasked = event.unasked;
      this.detail.append(h("span", { class: "tool-unasked", text: ` · ${unasked}` }));
    }
  }

  subjectShort() {
    const subject = subjectOf(this.capability, this.args);
    return this.capability === "web.fetch" ? subject : subject ? `“${subject}”` : "";
  }

  argumentsView() {
    const subject = subjectOf(this.capability, this.args);
    return h("p", { class: "tool-subject", text: subject });
  }

  showSearch(summary) {
    const results = Array.isArray(summary.results) ? summary.results : [];
    const count = Number.isFinite(summary.result_count) ? summary.result_count : results.length;
    this.setState("ok", "searched:", `${this.subjectShort()} (${count} ${count === 1 ? "result" : "results"})`);
    if (results.length === 0) {
      this.body.replaceChildren(h("p", { class: "tool-note", text: "No results." }));
      return;
    }
    const list = h("ol", { class: "results" });
    for (const result of results) {
      const href = safeHref(result.url, ["http:", "https:"]);
      const title = String(result.title || result.url || "untitled");
      list.append(
        h(
          "li",
          { class: "result" },
          href ? externalLink(href, title, { class: "result-title" }) : h("span", { class: "result-title", text: title }),
          h("span", { class: "result-host", text: hostOf(String(result.url ?? "")) }),
          result.snippet ? h("p", { class: "result-snippet", text: String(result.snippet) }) : null,
        ),
      );
    }
    this.body.replaceChildren(list);
  }

  showFetch(summary) {
    const url = String(summary.url || this.args.url || "");
    const finalUrl = String(summary.final_url || url);
    const title = summary.title ? String(summary.title) : hostOf(finalUrl);
    const body = [];
    if (summary.redirected && finalUrl !== url) {
      this.setState("redirected", "redirected:", `${hostOf(url)} → ${hostOf(finalUrl)}`);
      body.push(h("p", { class: "tool-note", text: "The page sends visitors to another site. Spyglass did not follow; opening it needs a new approval." }));
    } else {
      this.setState("ok", "read:", `${title} — ${hostOf(finalUrl)}`);
    }
    const link = (value) => {
      const href = safeHref(value, ["http:", "https:"]);
      return href ? externalLink(href, value, { class: "tool-url" }) : h("span", { class: "tool-url", text: value });
    };
    body.push(h("p", { class: "tool-subject" }, link(url)));
    if (finalUrl !== url) body.push(h("p", { class: "tool-subject" }, "→ ", link(finalUrl)));
    this.body.replaceChildren(...body);
  }

  showProblem(state, words, event) {
    const message = event.message ? String(event.message) : "";
    this.setState(state, `${words}:`, message || this.subjectShort());
    const body = [this.argumentsView()];
    if (event.code) body.push(h("p", { class: "tool-code", text: String(event.code) }));
    this.body.replaceChildren(...body);
  }
}
