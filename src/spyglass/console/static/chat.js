// The conversation: sending a message, streaming the turn into the transcript, asking the owner
// about a round's pending calls (one card), stopping, starting over and reopening a stored
// conversation.

// After Stop, the service ends the turn and sends `done`; past this the stream is cut instead.
const STOP_GRACE_MS = 3000;

import { ApiError, stopTurn, streamMessage } from "./api.js";
import { showConfirmations } from "./confirm.js";
import { AssistantMessage, userMessage } from "./message.js";
import { runningText } from "./tools.js";

const NEAR_BOTTOM_PX = 80;

export class Chat {
  /**
   * @param {object} ui  the page's elements
   * @param {{onTurnSaved: (id: string) => void, onError: (message: string) => void}} hooks
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.conversationId = null;
    this.controller = null;
    this.card = null;
    this.busy = false;
    this.locked = false;

    ui.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    ui.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    ui.input.addEventListener("input", () => this.autosize());
    ui.stop.addEventListener("click", () => this.stopTurn());
    this.updateComposer();
  }

  autosize() {
    const input = this.ui.input;
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
  }

  /** Clear the transcript for a new conversation. */
  reset() {
    this.stop();
    this.dismissCard();
    this.conversationId = null;
    this.ui.messages.replaceChildren();
    this.ui.emptyState.hidden = false;
    this.setStatus("");
    this.ui.input.value = "";
    this.autosize();
    this.ui.input.focus();
  }

  /** Show a stored conversation and continue it. */
  show(conversation) {
    this.stop();
    this.dismissCard();
    this.conversationId = conversation.id;
    this.ui.messages.replaceChildren();
    for (const message of conversation.messages ?? []) {
      if (message.role === "user") this.ui.messages.append(userMessage(String(message.text ?? "")));
      else this.ui.messages.append(AssistantMessage.fromHistory(message).element);
    }
    this.ui.emptyState.hidden = this.ui.messages.childElementCount > 0;
    this.setStatus("");
    this.ui.transcript.scrollTop = this.ui.transcript.scrollHeight;
  }

  submit() {
    const text = this.ui.input.value.trim();
    if (!text || this.busy || this.locked) return;
    this.ui.input.value = "";
    this.autosize();
    this.ui.emptyState.hidden = true;
    this.ui.messages.append(userMessage(text));
    const view = new AssistantMessage();
    this.ui.messages.append(view.element);
    this.scrollToEnd(true);
    const body = { text };
    if (this.conversationId) body.conversation_id = this.conversationId;
    this.runTurn(body, view);
  }

  /** Cut the running turn's stream at once (the service ends a turn whose client went). */
  stop() {
    if (this.controller) this.controller.abort();
  }

  /**
   * The Stop button: ask the service to end the turn, so that what was made so far arrives
   * with `done`; where no turn of this conversation runs in the process that answered (or
   * nothing answers), cut the stream instead.
   */
  async stopTurn() {
    const controller = this.controller;
    if (!controller) return;
    this.ui.stop.disabled = true;
    this.setStatus("Stopping…");
    const cut = () => {
      if (this.controller === controller) controller.abort();
    };
    if (!this.conversationId) return cut();
    try {
      const answer = await stopTurn(this.conversationId);
      if (!answer?.stopped) return cut();
      setTimeout(cut, STOP_GRACE_MS);
    } catch {
      cut();
    }
  }

  async runTurn(body, view, status = "Thinking…") {
    const controller = new AbortController();
    this.controller = controller;
    this.setBusy(true);
    view.setPending(true);
    this.setStatus(status);
    let pending = [];
    let done = null;
    let noticed = false;
    try {
      done = await streamMessage(body, (name, data) => {
        if (name === "pending_confirmation" && pending.length === 0) pending = [data];
        if (name === "pending_confirmations" && Array.isArray(data.pending_confirmations)) pending = data.pending_confirmations;
        if (name === "notice") noticed = true;
        this.onEvent(view, name, data);
      }, controller.signal);
      view.reconcile(done);
      // A service that answered JSON instead of a stream sent its notices only in `done`.
      if (!noticed) for (const notice of done?.notices ?? []) view.note(String(notice.message ?? ""), "info");
      if (Array.isArray(done?.pending_confirmations)) pending = done.pending_confirmations;
      else if (done?.pending_confirmation) pending = [done.pending_confirmation];
      if (!done && pending.length === 0 && !controller.signal.aborted) view.note("The answer ended early: the connection to Spyglass closed. Ask again to retry.", "error");
    } catch (error) {
      if (controller.signal.aborted) {
        view.note("Stopped. What was written so far is kept.", "info");
      } else if (error instanceof ApiError && error.code === "INVALID_CONFIRMATION") {
        view.note(`That approval is no longer valid: ${error.message} Ask again if you still want it.`, "error");
      } else if (error instanceof ApiError) {
        view.note(error.message, "error");
      } else {
        view.note("Something went wrong while reading the answer. Ask again to retry.", "error");
      }
    } finally {
      view.setPending(false);
      if (this.controller === controller) this.controller = null;
      this.ui.stop.disabled = false;
      this.setBusy(false);
      this.setStatus("");
      this.scrollToEnd(false);
    }
    if (this.conversationId) this.hooks.onTurnSaved(this.conversationId);
    if (pending.length > 0 && !controller.signal.aborted) await this.confirm(pending, view);
  }

  onEvent(view, name, data) {
    const follow = this.isNearBottom();
    switch (name) {
      case "turn":
        if (data.conversation_id) this.conversationId = String(data.conversation_id);
        break;
      case "reasoning":
        view.appendReasoning(String(data.delta ?? ""));
        break;
      case "content":
        view.appendContent(String(data.delta ?? ""));
        this.setStatus("");
        break;
      case "tool_start":
        view.toolStart(data.capability, data.arguments);
        this.setStatus(runningText(data.capability, data.arguments));
        break;
      case "tool_end":
        view.toolEnd(data);
        this.setStatus("Thinking…");
        break;
      case "pending_confirmation":
      case "pending_confirmations":
        this.setStatus("Waiting for your approval.");
        break;
      case "citations":
        view.setCitations(data.citations);
        break;
      case "error":
        view.note(String(data.error?.message ?? "The turn failed."), "error");
        break;
      case "notice":
        // Spyglass's own word about the turn (a model that cannot use tools, an empty answer).
        view.note(String(data.message ?? ""), "info");
        break;
      case "done":
        if (data.conversation_id) this.conversationId = String(data.conversation_id);
        break;
      default:
        break;
    }
    if (follow) this.scrollToEnd(false);
  }

  /** Ask about the round's waiting calls on one card, then send every answer at once. */
  async confirm(pendings, view) {
    this.setLocked(true);
    const waitingFor = pendings.find((p) => p.waiting_for)?.waiting_for;
    this.setStatus(waitingFor ? `Waiting for ${waitingFor}.` : "Waiting for your approval.");
    const card = showConfirmations(this.ui.confirmSlot, pendings);
    this.card = card;
    this.scrollToEnd(false);
    const decision = await card.decision;
    if (this.card !== card) return; // dismissed by a new conversation
    this.card = null;
    if (decision.result === "expired") {
      this.setLocked(false);
      this.setStatus("");
      for (const block of view.blocks) {
        if (!block.settled) block.finish({ status: "denied", message: "the request expired before it was approved" });
      }
      view.expireWaiting();
      this.ui.input.focus();
      return;
    }
    if (decision.result !== "answered") return;
    card.element.remove();
    this.setLocked(false);
    const answers = decision.answers;
    // An approved call runs at once, so it shows as running before the service says more.
    let status = "Thinking…";
    answers.forEach((answer, k) => {
      if (!answer.approve) return;
      view.block(pendings[k].capability, pendings[k].arguments).running();
      status = runningText(pendings[k].capability, pendings[k].arguments);
    });
    const wire = answers.map(({ token, approve, scope }) => (scope === "conversation" ? { token, approve, scope } : { token, approve }));
    const body = { conversation_id: this.conversationId };
    // One card keeps the one-answer form every version of the service takes.
    if (wire.length === 1) body.confirmation = wire[0];
    else body.confirmations = wire;
    await this.runTurn(body, view, status);
    this.ui.input.focus();
  }

  dismissCard() {
    if (this.card) {
      const card = this.card;
      this.card = null;
      card.remove();
    }
    this.setLocked(false);
  }

  setBusy(busy) {
    this.busy = busy;
    this.updateComposer();
  }

  setLocked(locked) {
    this.locked = locked;
    this.updateComposer();
  }

  updateComposer() {
    const { input, send, stop, composer } = this.ui;
    input.disabled = this.locked;
    input.placeholder = this.locked ? "Answer the request above first" : "Ask anything";
    composer.classList.toggle("composer-locked", this.locked);
    send.hidden = this.busy;
    send.disabled = this.locked;
    stop.hidden = !this.busy;
  }

  setStatus(text) {
    this.ui.status.textContent = text;
    this.ui.status.classList.toggle("status-active", Boolean(text));
  }

  isNearBottom() {
    const t = this.ui.transcript;
    return t.scrollHeight - t.scrollTop - t.clientHeight < NEAR_BOTTOM_PX;
  }

  scrollToEnd(force) {
    if (!force && !this.isNearBottom()) return;
    requestAnimationFrame(() => {
      this.ui.transcript.scrollTop = this.ui.transcript.scrollHeight;
    });
  }
}
