// One message in the transcript. An assistant message holds, top to bottom: the model's
// reasoning (collapsed), a block per search or fetch, the answer as safe Markdown, notes such
// as "stopped" or an error, and the sources it drew on.

import { anyCited, byNumber, linkMarkers } from "./citations.js";
import { h, externalLink, hostOf } from "./dom.js";
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
    /** The turn's sources by number, once known: the answer's markers link to them. */
    this.sourcesByNumber = new Map();
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
    linkMarkers(this.body, this.sourcesByNumber);
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

  /**
   * The sources under the answer. When the answer cites some by number, those come first
   * (under "Sources", with their numbers) and the rest fold under "Also found"; an answer
   * that cites none by number lists every source, as found.
   */
  setCitations(citations) {
    this.sourcesByNumber = byNumber(citations);
    const cited = anyCited(citations);
    const used = [];
    const rest = [];
    for (const [n, source] of this.sourcesByNumber) (cited && source.cited !== true ? rest : used).push([n, source]);
    const item = ([n, source]) =>
      h(
        "li",
        { value: String(n) },
        externalLink(source.href, String(source.title || hostOf(source.href)), { class: "source-title" }),
        h("span", { class: "source-host", text: hostOf(source.href) }),
      );
    this.sources.hidden = this.sourcesByNumber.size === 0;
    const more = rest.length
      ? h("details", { class: "sources-more" }, h("summary", { text: `Also found (${rest.length})` }), h("ol", { class: "sources-list" }, ...rest.map(item)))
      : null;
    this.sources.replaceChildren(h("h3", { class: "sources-title", text: "Sources" }), h("ol", { class: "sources-list" }, ...used.map(item)), more);
    this.renderNow();
  }

  /** What left the device while this answer was made (text only). */
  setReceipt(receipt) {
    if (!receipt || typeof receipt.summary !== "string") return;
    this.receiptData = receipt;
    this.receipt.hidden = false;
    this.receipt.className = `receipt ${receipt.left_device ? "receipt-left" : "receipt-stayed"}`;
    this.receipt.replaceChildren(
      h("span", { class: "receipt-icon", "aria-hidden": "true", text: receipt.left_device ? "↗" : "⌂" }),
      h("span", { class: "receipt-text", text: receipt.summary }),
    );
  }

  /** The card of this answer's waiting call expired unanswered: its receipt says so. */
  expireWaiting() {
    const receipt = this.receiptData;
    if (!receipt) return;
    const items = (receipt.items ?? []).map((item) => (item.status === "pending_confirmation" ? { ...item, status: "denied", reason: "expired" } : item));
    // The service's own words for the two (spyglass.privacy.receipts), so a reload reads the same.
    const summary = receipt.summary.replaceAll("(waiting for your approval)", "(expired before it was approved)");
    this.setReceipt({ ...receipt, items, summary });
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
