// One message in the transcript. An assistant message holds, top to bottom: the model's
// reasoning (collapsed), a block per search or fetch, the answer as safe Markdown, notes such
// as "stopped" or an error, and the sources it drew on.

import { h, externalLink, hostOf, safeHref } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { ToolBlock, callKey } from "./tools.js";

/** A user's message: plain text, exactly as typed. */
export function userMessage(text) {
  return h("li", { class: "message message-user" }, h("div", { class: "bubble", text }));
}

export class AssistantMessage {
  constructor() {
    this.text = "";
    this.reasoningText = "";
    this.blocks = [];
    this.renderScheduled = false;
    this.reasoningBody = h("div", { class: "reasoning-body" });
    this.reasoning = h("details", { class: "reasoning", hidden: true }, h("summary", { text: "Reasoning" }), this.reasoningBody);
    this.tools = h("div", { class: "tools" });
    this.body = h("div", { class: "answer markdown" });
    this.notes = h("div", { class: "notes" });
    this.sources = h("div", { class: "sources", hidden: true });
    this.receipt = h("p", { class: "receipt", hidden: true });
    this.element = h("li", { class: "message message-assistant" }, this.reasoning, this.tools, this.body, this.notes, this.receipt, this.sources);
  }

  /** True once the answer has any text, a tool block or a note. */
  get hasOutput() {
    return this.text.length > 0 || this.blocks.length > 0 || this.notes.childElementCount > 0;
  }

  setPending(pending) {
    this.element.classList.toggle("message-pending", pending);
  }

  appendContent(delta) {
    this.text += delta;
    this.scheduleRender();
  }

  appendReasoning(delta) {
    this.reasoningText += delta;
    this.reasoning.hidden = false;
    this.scheduleRender();
  }

  /** Re-render at most once per frame: a long reply stays smooth while it streams. */
  scheduleRender() {
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    requestAnimationFrame(() => this.renderNow());
  }

  renderNow() {
    this.renderScheduled = false;
    this.body.replaceChildren(renderMarkdown(this.text));
    this.reasoningBody.textContent = this.reasoningText;
  }

  /** The block for this call: the one already waiting for it, or a new one. */
  block(capability, args) {
    const key = callKey(capability, args);
    for (let k = this.blocks.length - 1; k >= 0; k -= 1) {
      const existing = this.blocks[k];
      if (existing.key === key && !existing.settled) return existing;
    }
    const created = new ToolBlock(capability, args);
    this.blocks.push(created);
    this.tools.append(created.element);
    return created;
  }

  toolStart(capability, args) {
    this.block(capability, args).running();
  }

  toolEnd(event) {
    this.block(event.capability, event.arguments).finish(event);
  }

  setCitations(citations) {
    const links = [];
    const seen = new Set();
    for (const citation of citations ?? []) {
      const href = safeHref(citation.url, ["http:", "https:"]);
      if (!href || seen.has(href)) continue;
      seen.add(href);
      const title = String(citation.title || hostOf(href));
      links.push(h("li", {}, externalLink(href, title, { class: "source-title" }), h("span", { class: "source-host", text: hostOf(href) })));
    }
    this.sources.hidden = links.length === 0;
    this.sources.replaceChildren(h("h3", { class: "sources-title", text: "Sources" }), h("ol", { class: "sources-list" }, ...links));
  }

  /** What left the device while this answer was made (text only). */
  setReceipt(receipt) {
    if (!receipt || typeof receipt.summary !== "string") return;
    this.receipt.hidden = false;
    this.receipt.className = `receipt ${receipt.left_device ? "receipt-left" : "receipt-stayed"}`;
    this.receipt.replaceChildren(
      h("span", { class: "receipt-icon", "aria-hidden": "true", text: receipt.left_device ? "↗" : "⌂" }),
      h("span", { class: "receipt-text", text: receipt.summary }),
    );
  }

  note(text, kind = "info") {
    this.notes.append(h("p", { class: `note note-${kind}`, text }));
  }

  /** Fill in whatever the stream did not deliver from the final response object. */
  reconcile(response) {
    if (!response) return;
    if (!this.text && response.text) this.appendContent(String(response.text));
    if (!this.reasoningText && response.reasoning) this.appendReasoning(String(response.reasoning));
    for (const event of response.events ?? []) {
      const key = callKey(event.capability, event.arguments);
      const known = this.blocks.find((block) => block.key === key && (block.settled || event.status === "pending_confirmation"));
      if (!known) this.toolEnd(event);
    }
    if (Array.isArray(response.citations) && response.citations.length > 0) this.setCitations(response.citations);
    this.setReceipt(response.receipt);
    this.renderNow();
  }

  /** Render a stored message from history. */
  static fromHistory(stored) {
    const view = new AssistantMessage();
    if (stored.reasoning) view.appendReasoning(String(stored.reasoning));
    for (const event of stored.events ?? []) {
      // A stored request that was never answered cannot be approved from history any more.
      if (event.status === "pending_confirmation") view.toolEnd({ ...event, status: "denied", message: "left unanswered" });
      else view.toolEnd(event);
    }
    view.text = String(stored.text ?? "");
    view.setCitations(stored.citations ?? []);
    view.setReceipt(stored.receipt);
    view.renderNow();
    return view;
  }
}
