// The conversation list: newest first, full-text search, open and delete.

import { deleteConversation, listConversations } from "./api.js";
import { h, icon } from "./dom.js";

const SEARCH_DELAY_MS = 200;
const CONFIRM_DELETE_MS = 4000;

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const now = new Date();
  if (date.toDateString() === now.toDateString()) return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return date.toLocaleDateString([], { month: "short", day: "numeric" });
}

export class History {
  /**
   * @param {{list: HTMLElement, empty: HTMLElement, search: HTMLInputElement}} ui
   * @param {{onOpen: (id: string) => void, onDeleted: (id: string) => void, onError: (message: string) => void}} hooks
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.activeId = null;
    this.timer = 0;
    this.generation = 0;
    ui.search.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), SEARCH_DELAY_MS);
    });
  }

  setActive(id) {
    this.activeId = id;
    for (const item of this.ui.list.children) item.classList.toggle("active", item.dataset.id === id);
  }

  async refresh() {
    const generation = ++this.generation;
    const query = this.ui.search.value;
    let data;
    try {
      data = await listConversations(query);
    } catch (error) {
      if (generation === this.generation) this.hooks.onError(`Could not load conversations: ${error.message}`);
      return;
    }
    if (generation !== this.generation) return; // a newer search already answered
    const conversations = data.conversations ?? [];
    this.ui.list.replaceChildren(...conversations.map((c) => this.item(c)));
    this.ui.empty.hidden = conversations.length > 0;
    this.ui.empty.textContent = query.trim() ? `Nothing matches “${query.trim()}”.` : "No conversations yet.";
  }

  item(conversation) {
    const id = String(conversation.id);
    const title = String(conversation.title || "Untitled conversation");
    const open = h("button", { type: "button", class: "history-open", title }, h("span", { class: "history-title", text: title }), h("span", { class: "history-when", text: when(conversation.updated_at) }));
    open.addEventListener("click", () => this.hooks.onOpen(id));
    const remove = h("button", { type: "button", class: "icon-button history-delete", "aria-label": `Delete conversation: ${title}` }, icon(["M5 7h14", "M10 11v6M14 11v6", "M7 7l1 12h8l1-12", "M9 7V4h6v3"]));
    let armed = 0;
    remove.addEventListener("click", async () => {
      if (!armed) {
        // A second click within a few seconds deletes; one stray click never does.
        remove.classList.add("armed");
        remove.setAttribute("aria-label", `Click again to delete: ${title}`);
        remove.replaceChildren(h("span", { text: "Delete?" }));
        armed = setTimeout(() => {
          armed = 0;
          remove.classList.remove("armed");
          remove.setAttribute("aria-label", `Delete conversation: ${title}`);
          remove.replaceChildren(icon(["M5 7h14", "M10 11v6M14 11v6", "M7 7l1 12h8l1-12", "M9 7V4h6v3"]));
        }, CONFIRM_DELETE_MS);
        return;
      }
      clearTimeout(armed);
      try {
        await deleteConversation(id);
      } catch (error) {
        this.hooks.onError(`Could not delete the conversation: ${error.message}`);
        return;
      }
      row.remove();
      this.hooks.onDeleted(id);
      this.refresh();
    });
    const row = h("li", { class: "history-item" }, open, remove);
    row.dataset.id = id;
    if (id === this.activeId) row.classList.add("active");
    return row;
  }
}
