// The confirmation card: the one place where the owner says yes or no to calls that would
// leave the device. Every call of a round that needs asking is on ONE card, each with its own
// Approve / Deny / "Allow for this conversation" and the literal query or the full URL, plus
// "Approve all"; the card counts down to expiry, and is built only by this module — text from
// the model or the web can never produce one.

import { waitForApprover } from "./approvals.js";
import { h, hostOf } from "./dom.js";
import { fillHighlighted, noticeList, shownNodes } from "./notices.js";

// Enter approves only once the card has been on screen this long, as browsers arm their own
// permission prompts: the card takes focus the instant it appears, so an Enter already on
// its way (the user still typing) must not approve a call nobody has read. Clicks need no
// delay: a click lands where the pointer aims, at a button that is already visible.
const KEYBOARD_ARMS_AFTER_MS = 700;

const WORDS = {
  "web.search": { title: "Search the web for", note: "Approving sends this exact query to the search provider over the internet. It leaves this device." },
  "web.fetch": { title: "Open this page", note: "Approving makes Spyglass connect to this address over the internet and read the page. It leaves this device." },
};

/** The card's words for this call: who receives it (`pending.provider`), when known. */
function wordsFor(pending) {
  const words = WORDS[pending.capability] ?? { title: `Allow ${pending.capability}`, note: "This call may leave the device." };
  const provider = typeof pending.provider === "string" && pending.provider ? pending.provider : null;
  if (!provider) return words;
  if (pending.capability === "web.search") {
    return { title: `Search ${provider} for`, note: `Approving sends this exact query to ${provider} over the internet. It leaves this device.` };
  }
  if (pending.capability === "web.fetch") {
    if (provider === "direct") return { title: "Open this page (Spyglass reads it itself)", note: words.note };
    return { title: `Open this page through ${provider}`, note: `Approving sends this address to ${provider}, which reads the page from its own servers. It leaves this device.` };
  }
  return words;
}

const EXTRAS = {
  count: (n) => `up to ${n} results`,
  time_range: (range) => `from the past ${range}`,
  include_domains: (list) => `only on ${list.join(", ")}`,
  exclude_domains: (list) => `not on ${list.join(", ")}`,
  offset: (n) => `from character ${n}`,
  max_chars: (n) => `up to ${n} characters`,
  // web.fetch's focus picks passages from the page once it is read: it is never sent.
  focus: (text) => `Looking for: “${text}” (stays on this device, never sent)`,
};

/** The literal a call is judged by: the query, the URL, or its arguments as JSON. */
function literalOf(pending) {
  const args = pending.arguments ?? {};
  if (pending.capability === "web.search") return String(args.query ?? "");
  if (pending.capability === "web.fetch") return String(args.url ?? "");
  return JSON.stringify(args, null, 2);
}

/** What the person reads about one call: its value, notices, host, extras and note. */
function callDetails(pending, words, noteId) {
  const args = pending.arguments ?? {};
  const literal = literalOf(pending);
  const value = h("div", { class: `confirm-value confirm-value-${pending.capability === "web.fetch" ? "url" : "query"}`, tabindex: "0", "aria-label": `${words.title}: ${literal}` });
  const argument = pending.capability === "web.search" ? "query" : pending.capability === "web.fetch" ? "url" : null;
  fillHighlighted(value, literal, pending.notices, argument);
  const notices = noticeList(pending.notices, pending.reasons);

  const extras = h("ul", { class: "confirm-extras" });
  for (const [key, raw] of Object.entries(args)) {
    if (key === "query" || key === "url" || raw === undefined || raw === null) continue;
    const describe = EXTRAS[key];
    const list = Array.isArray(raw) ? raw.map(String) : null;
    const text = describe ? describe(list ?? String(raw)) : `${key}: ${list ? list.join(", ") : JSON.stringify(raw)}`;
    extras.append(h("li", {}, ...shownNodes(text)));
  }
  const waiting = typeof pending.waiting_for === "string" && pending.waiting_for;
  const waitNote = waiting ? h("p", { class: "confirm-waiting", role: "status", text: `Waiting for ${waiting} to approve this.` }) : null;
  const where = pending.capability === "web.fetch" ? h("p", { class: "confirm-host" }, "on ", h("strong", { text: hostOf(literal) })) : null;
  return [value, notices, where, extras.childElementCount ? extras : null, waitNote, h("p", { class: "confirm-note", id: noteId, text: words.note })];
}

/**
 * Show the pending confirmations of one round on one card and resolve with the owner's
 * answers, once every call has one.
 * @param {HTMLElement} slot  where the card goes
 * @param {Array<{token: string, capability: string, arguments: object, expires_in_seconds: number, notices?: object[], provider?: string|null, waiting_for?: string}>} pendings
 * @returns {{element: HTMLElement, decision: Promise<{result: "answered", answers: Array<{token: string, approve: boolean, scope: "call"|"conversation"}>}|{result: "expired"|"dismissed"}>, remove: () => void}}
 */
export function showConfirmations(slot, pendings) {
  const single = pendings.length === 1;
  const titleId = `confirm-title-${Math.random().toString(36).slice(2)}`;
  const countdown = h("span", { class: "confirm-countdown" });
  const meter = h("span", { class: "confirm-meter-fill" });
  const anyWaiting = pendings.some((p) => typeof p.waiting_for === "string" && p.waiting_for);
  const allWaiting = pendings.every((p) => typeof p.waiting_for === "string" && p.waiting_for);

  let settle;
  const decision = new Promise((resolve) => {
    settle = resolve;
  });
  let done = false;
  const answers = new Map(); // index → {token, approve, scope}
  const calls = pendings.map((pending, index) => {
    const words = wordsFor(pending);
    const literal = literalOf(pending);
    const waiting = typeof pending.waiting_for === "string" && pending.waiting_for;
    // Each call's buttons name it: several calls may share a title ("Search … for").
    const named = single ? words.title : `${words.title} “${literal}”`;
    const deny = h("button", { type: "button", class: "button button-secondary", text: waiting ? "Cancel" : "Deny" });
    const allow = h("button", { type: "button", class: "button button-secondary confirm-allow", text: "Allow for this conversation" });
    const approve = h("button", { type: "button", class: "button button-primary", text: "Approve" });
    deny.setAttribute("aria-label", `${waiting ? "Cancel" : "Deny"}: ${named}`);
    allow.setAttribute("aria-label", `Allow for this conversation: ${named}`);
    approve.setAttribute("aria-label", `Approve: ${named}`);
    allow.title = "Approves this call, and the same kind of call for the rest of this conversation when nothing about it is unusual";
    approve.hidden = allow.hidden = Boolean(waiting);
    const state = h("span", { class: "confirm-call-state", role: "status" });
    const noteId = `${titleId}-note-${index}`;
    const actions = h("div", { class: "confirm-actions" }, single ? h("span", { class: "confirm-keys", text: waiting ? "Esc cancels" : "Enter approves · Esc denies" }) : state, deny, allow, approve);
    const item = single
      ? h("div", { class: "confirm-call" }, ...callDetails(pending, words, `${titleId}-note`), h("div", { class: "confirm-meter", "aria-hidden": "true" }, meter), actions)
      : h("li", { class: "confirm-call" }, h("h3", { class: "confirm-call-title", text: words.title }), ...callDetails(pending, words, noteId), actions);
    item.dataset.capability = pending.capability;
    const answer = (approved, scope = "call") => {
      if (done || answers.has(index)) return;
      answers.set(index, { token: pending.token, approve: approved, scope });
      item.dataset.decision = approved ? (scope === "conversation" ? "conversation" : "approve") : "deny";
      state.textContent = approved ? (scope === "conversation" ? "Allowed for this conversation" : "Approved") : "Declined";
      for (const button of [deny, allow, approve]) button.disabled = true;
      if (answers.size === pendings.length) finish({ result: "answered", answers: pendings.map((_, k) => answers.get(k)) });
    };
    approve.addEventListener("click", () => answer(true));
    allow.addEventListener("click", () => answer(true, "conversation"));
    deny.addEventListener("click", () => answer(false));
    if (waiting) waitForApprover(pending, () => done || answers.has(index)).then((result) => answer(result === "approve"));
    return { item, answer, waiting, deny, allow, approve };
  });

  const approveAll = h("button", { type: "button", class: "button button-primary confirm-approve-all", text: "Approve all" });
  approveAll.setAttribute("aria-label", `Approve all ${pendings.length} calls`);
  approveAll.hidden = single || anyWaiting;
  const answerAll = (approved) => {
    for (const call of calls) if (!call.waiting || !approved) call.answer(approved);
  };
  approveAll.addEventListener("click", () => answerAll(true));

  const title = single ? wordsFor(pendings[0]).title : `${pendings.length} calls wait for your approval`;
  const card = h(
    "section",
    { class: "confirm-card", role: "alertdialog", tabindex: "-1", "aria-labelledby": titleId, "aria-describedby": single ? `${titleId}-note` : undefined },
    h("div", { class: "confirm-head" }, h("h2", { id: titleId, class: "confirm-title", text: title }), countdown),
    single ? calls[0].item : h("ol", { class: "confirm-calls" }, ...calls.map((c) => c.item)),
    single ? null : h("div", { class: "confirm-meter", "aria-hidden": "true" }, meter),
    single
      ? null
      : h("div", { class: "confirm-actions confirm-actions-all" }, h("span", { class: "confirm-keys", text: allWaiting ? "Esc cancels" : "Enter approves all · Esc denies all" }), approveAll),
  );
  card.dataset.capability = pendings[0].capability;
  card.dataset.calls = String(pendings.length);

  card.dataset.armed = "false";
  const arming = setTimeout(() => {
    if (!done) card.dataset.armed = "true";
  }, KEYBOARD_ARMS_AFTER_MS);
  // The round's cards were issued together: the card lasts as long as the first to expire.
  const total = Math.max(0, Math.min(...pendings.map((p) => Number(p.expires_in_seconds) || 0)));
  const deadline = performance.now() + total * 1000;

  function finish(result) {
    if (done) return;
    done = true;
    clearInterval(timer);
    clearTimeout(arming);
    document.removeEventListener("keydown", onDocumentKey, true);
    for (const call of calls) for (const button of [call.deny, call.allow, call.approve]) button.disabled = true;
    approveAll.disabled = true;
    settle(result);
  }

  const expire = () => {
    if (done && card.dataset.state === "expired") return;
    finish({ result: "expired" });
    card.dataset.state = "expired";
    card.classList.add("confirm-expired");
    countdown.textContent = "";
    for (const actions of card.querySelectorAll(".confirm-actions")) actions.remove();
    card.append(h("p", { class: "confirm-expired-text", text: "Expired — ask again." }));
    card.querySelector(".confirm-title").textContent = `${title} — expired`;
  };

  const tick = () => {
    const left = Math.max(0, (deadline - performance.now()) / 1000);
    const whole = Math.ceil(left);
    countdown.textContent = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")} left`;
    meter.style.transform = `scaleX(${total > 0 ? left / total : 0})`;
    if (left <= 0) expire();
  };
  const timer = setInterval(tick, 250);
  tick();

  card.addEventListener("keydown", (event) => {
    // Enter approves only when the card itself has focus, never from a button or the text.
    if (event.key === "Enter" && event.target === card && !event.isComposing && !allWaiting) {
      event.preventDefault();
      if (card.dataset.armed === "true") answerAll(true);
    }
  });
  function onDocumentKey(event) {
    if (event.key === "Escape" && !done) {
      event.preventDefault();
      answerAll(false);
    }
  }
  document.addEventListener("keydown", onDocumentKey, true);

  slot.replaceChildren(card);
  if (!done) card.focus({ preventScroll: true });

  return {
    element: card,
    decision,
    remove: () => {
      finish({ result: "dismissed" });
      card.remove();
    },
  };
}
