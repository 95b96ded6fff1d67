// The household in the console: the approvers' queue (calls of a child waiting for an owner
// or a parent), the wait on a child's own card, and Settings → People for the owner.
// Every string goes in through textContent (dom.js): names, queries and URLs stay text.

import { addPerson, answerApproval, changePerson, listApprovals, listPeople, personLoginCode } from "./api.js";
import { h } from "./dom.js";
import { noticeList, shownNodes } from "./notices.js";

const POLL_MS = 2000;
const ROLES = ["owner", "member", "child", "guest"];

function literal(call) {
  const args = call.arguments ?? {};
  if (call.capability === "web.search") return String(args.query ?? "");
  if (call.capability === "web.fetch") return String(args.url ?? "");
  return JSON.stringify(args);
}

const sameCall = (call, pending) =>
  call.capability === pending.capability && JSON.stringify(call.arguments) === JSON.stringify(pending.arguments ?? {});

/**
 * Wait until an owner or a parent answered the person's own waiting call.
 * @returns {Promise<"approve"|"deny">}
 */
export async function waitForApprover(pending, isDone) {
  for (;;) {
    if (isDone()) return "deny";
    try {
      const { calls } = await listApprovals();
      const mine = calls.filter((call) => sameCall(call, pending)).pop();
      if (mine && mine.decision === "approved") return "approve";
      if (mine && mine.decision === "denied") return "deny";
    } catch {
      // A failed poll is tried again; the card's own countdown still ends the wait.
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A panel that slides over the page (full screen on a phone), with a title and a close button. */
export class Panel {
  constructor(root, onClose) {
    this.root = root;
    this.body = root.querySelector(".panel-body");
    root.querySelector(".panel-close").addEventListener("click", () => this.close());
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.close();
    });
    this.onClose = onClose;
  }

  open() {
    this.root.hidden = false;
    this.root.querySelector(".panel-close").focus();
  }

  close() {
    this.root.hidden = true;
    this.onClose?.();
  }

  get isOpen() {
    return !this.root.hidden;
  }
}

/** The approvers' queue: who asks, the literal query or URL, the privacy findings. */
export class ApprovalQueue {
  constructor(panel, badge, hooks) {
    this.panel = panel;
    this.badge = badge;
    this.hooks = hooks;
    this.timer = 0;
  }

  start() {
    this.refresh();
    this.timer = setInterval(() => this.refresh(), POLL_MS * 2);
  }

  async refresh() {
    let calls;
    try {
      ({ calls } = await listApprovals());
    } catch (error) {
      if (this.panel.isOpen) this.hooks.onError(`Could not read the waiting calls: ${error.message}`);
      return;
    }
    const waiting = calls.filter((call) => call.decision === "waiting");
    this.badge.textContent = waiting.length ? String(waiting.length) : "";
    this.badge.hidden = waiting.length === 0;
    this.render(waiting);
  }

  render(waiting) {
    const list = h("ul", { class: "approval-list" });
    for (const call of waiting) list.append(this.item(call));
    const empty = h("p", { class: "panel-empty", text: "Nothing is waiting for you." });
    this.panel.body.replaceChildren(waiting.length ? list : empty);
  }

  item(call) {
    const approve = h("button", { type: "button", class: "button button-primary", text: "Approve" });
    const deny = h("button", { type: "button", class: "button button-secondary", text: "Decline" });
    // Also lets this person's later calls of this kind in this conversation run, unless a
    // check flags one (a search carrying private data, an address from elsewhere).
    const allow = h("button", { type: "button", class: "button button-secondary", text: "Allow for this conversation" });
    const what = call.capability === "web.fetch" ? "wants to open" : call.capability === "web.search" ? "wants to search for" : `wants ${call.capability}`;
    approve.setAttribute("aria-label", `Approve ${call.person}: ${literal(call)}`);
    deny.setAttribute("aria-label", `Decline ${call.person}: ${literal(call)}`);
    allow.setAttribute("aria-label", `Allow for this conversation, ${call.person}: ${literal(call)}`);
    const answer = async (yes, scope = "call") => {
      approve.disabled = deny.disabled = allow.disabled = true;
      try {
        await answerApproval(call.id, yes, scope);
      } catch (error) {
        this.hooks.onError(`Could not answer: ${error.message}`);
      }
      this.refresh();
    };
    approve.addEventListener("click", () => answer(true));
    deny.addEventListener("click", () => answer(false));
    allow.addEventListener("click", () => answer(true, "conversation"));
    return h(
      "li",
      { class: "approval" },
      h("p", { class: "approval-who" }, h("strong", { text: call.person }), ` ${what}`),
      h("div", { class: "confirm-value" }, ...shownNodes(literal(call))),
      noticeList(call.notices),
      h("p", { class: "approval-expiry", text: `${call.expires_in_seconds} s left` }),
      h("div", { class: "confirm-actions" }, deny, call.in_conversation ? allow : null, approve),
    );
  }
}

/** Settings → People: the owner adds people (with their one-time link) and changes roles. */
export class PeoplePanel {
  constructor(panel, hooks) {
    this.panel = panel;
    this.hooks = hooks;
  }

  async refresh() {
    let people;
    try {
      ({ people } = await listPeople());
    } catch (error) {
      this.hooks.onError(`Could not read the people: ${error.message}`);
      return;
    }
    const list = h("ul", { class: "people-list" });
    for (const person of people) list.append(this.row(person));
    this.panel.body.replaceChildren(this.addForm(), list);
  }

  roleSelect(value, label) {
    const select = h("select", { "aria-label": label });
    for (const role of ROLES) select.append(h("option", { value: role, text: role, selected: role === value }));
    return select;
  }

  addForm() {
    const name = h("input", { type: "text", placeholder: "Name", "aria-label": "New person's name", autocomplete: "off" });
    const role = this.roleSelect("member", "New person's role");
    const link = h("p", { class: "people-link", role: "status" });
    const form = h("form", { class: "people-add" }, name, role, h("button", { type: "submit", class: "button button-primary", text: "Add" }), link);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const added = await addPerson(name.value, role.value);
        await this.refresh();
        this.showLink(added.name, added.login_path);
      } catch (error) {
        this.hooks.onError(error.message);
      }
    });
    return form;
  }

  showLink(name, path) {
    const target = this.panel.body.querySelector(".people-link");
    target.replaceChildren(`Give ${name} this link (works once, for 10 minutes): `, h("code", { text: `${location.origin}${path}` }));
  }

  row(person) {
    const role = this.roleSelect(person.role, `Role of ${person.name}`);
    role.addEventListener("change", () => this.change(person, { role: role.value }));
    const disabled = h("button", { type: "button", class: "button button-quiet", text: person.disabled ? "Enable" : "Disable" });
    disabled.addEventListener("click", () => this.change(person, { disabled: !person.disabled }));
    const link = h("button", { type: "button", class: "button button-quiet", text: "Login link" });
    link.addEventListener("click", async () => {
      try {
        const made = await personLoginCode(person.id);
        this.showLink(person.name, made.path);
      } catch (error) {
        this.hooks.onError(error.message);
      }
    });
    const facts = [
      person.needs_approval ? "calls wait for an approver" : null,
      person.daily_budget === null ? null : `${person.daily_budget} calls a day`,
      person.disabled ? "disabled" : null,
    ].filter(Boolean);
    return h(
      "li",
      { class: "person", "data-name": person.name },
      h("strong", { text: person.name }),
      role,
      h("span", { class: "person-facts", text: facts.join(" · ") }),
      disabled,
      link,
      person.role === "owner" ? null : this.limits(person),
    );
  }

  /** What this person may do beyond their role: sites, calls a day, approval, parent. */
  limits(person) {
    const sites = (list) => (list ?? []).join(", ");
    const split = (text) => text.split(",").map((part) => part.trim()).filter(Boolean);
    const deny = h("input", { type: "text", value: sites(person.deny_domains), "aria-label": `Sites ${person.name} may not use`, placeholder: "example.com, …" });
    const allow = h("input", { type: "text", value: sites(person.allow_domains), "aria-label": `Only sites ${person.name} may read`, placeholder: "any site" });
    const budget = h("input", { type: "number", min: "0", value: person.daily_budget ?? "", "aria-label": `Calls a day for ${person.name}`, placeholder: "no limit" });
    const waits = h("input", { type: "checkbox", checked: person.needs_approval, "aria-label": `${person.name}'s calls wait for an approver` });
    const parent = h("input", { type: "checkbox", checked: person.parent, "aria-label": `${person.name} approves others' calls` });
    const modes = {
      approvals_search: this.modeSelect(person.approvals_search, `When ${person.name}'s searches ask`),
      approvals_fetch: this.modeSelect(person.approvals_fetch, `When ${person.name}'s page reads ask`),
    };
    const save = h("button", { type: "submit", class: "button button-secondary", text: "Save" });
    const form = h(
      "form",
      { class: "person-limits" },
      h("label", {}, "Never these sites ", deny),
      h("label", {}, "Only these sites ", allow),
      h("label", {}, "Calls a day ", budget),
      h("label", {}, waits, " Calls wait for an approver"),
      person.role === "member" ? h("label", {}, parent, " Parent (approves others' calls)") : null,
      // A child's calls, and a person's whose calls wait, keep waiting whatever is set here.
      h("label", {}, "Searches ask ", modes.approvals_search),
      h("label", {}, "Page reads ask ", modes.approvals_fetch),
      save,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const changes = {
        deny_domains: split(deny.value),
        allow_domains: split(allow.value),
        needs_approval: waits.checked,
      };
      if (budget.value === "") changes.no_daily_limit = true;
      else changes.daily_budget = Number(budget.value);
      if (person.role === "member") changes.parent = parent.checked;
      for (const [key, select] of Object.entries(modes)) changes[key] = select.value;
      this.change(person, changes);
    });
    return h("details", { class: "person-more" }, h("summary", { text: "Limits" }), form);
  }

  /** How often a person's calls of one kind ask: the household's choice, or their own. */
  modeSelect(value, label) {
    const select = h("select", { "aria-label": label });
    const choices = [
      ["household", "as the household"],
      ["each", "each time"],
      ["flagged", "only when flagged"],
    ];
    for (const [mode, text] of choices) select.append(h("option", { value: mode, text, selected: mode === (value ?? "household") }));
    return select;
  }

  async change(person, changes) {
    try {
      await changePerson(person.id, changes);
    } catch (error) {
      this.hooks.onError(error.message);
    }
    this.refresh();
  }
}
