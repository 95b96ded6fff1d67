// The confirmation card: the one place where the owner says yes or no to a call that would
// leave the device. It shows the literal query or the full URL, counts down to expiry, and
// is built only by this module — text from the model or the web can never produce one.

import { waitForApprover } from "./approvals.js";
import { h, hostOf } from "./dom.js";
import { fillHighlighted, noticeList } from "./notices.js";

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

/**
 * Show a pending confirmation and resolve with the owner's decision.
 * @param {HTMLElement} slot  where the card goes
 * @param {{token: string, capability: string, arguments: object, expires_in_seconds: number, notices?: object[], provider?: string|null}} pending
 * @returns {{element: HTMLElement, decision: Promise<"approve"|"deny"|"expired"|"dismissed">, remove: () => void}}
 */
export function showConfirmation(slot, pending) {
  const words = wordsFor(pending);
  const args = pending.arguments ?? {};
  const literal = pending.capability === "web.search" ? String(args.query ?? "") : pending.capability === "web.fetch" ? String(args.url ?? "") : JSON.stringify(args, null, 2);
  const titleId = `confirm-title-${Math.random().toString(36).slice(2)}`;

  const countdown = h("span", { class: "confirm-countdown" });
  const meter = h("span", { class: "confirm-meter-fill" });
  const deny = h("button", { type: "button", class: "button button-secondary", text: "Deny" });
  const approve = h("button", { type: "button", class: "button button-primary", text: "Approve" });
  deny.setAttribute("aria-label", `Deny: ${words.title}`);
  approve.setAttribute("aria-label", `Approve: ${words.title}`);

  const value = h("div", { class: `confirm-value confirm-value-${pending.capability === "web.fetch" ? "url" : "query"}`, tabindex: "0", "aria-label": `${words.title}: ${literal}` });
  const argument = pending.capability === "web.search" ? "query" : pending.capability === "web.fetch" ? "url" : null;
  if (argument) fillHighlighted(value, literal, pending.notices, argument);
  else value.textContent = literal;
  const notices = noticeList(pending.notices, pending.reasons);

  const extras = h("ul", { class: "confirm-extras" });
  for (const [key, raw] of Object.entries(args)) {
    if (key === "query" || key === "url" || raw === undefined || raw === null) continue;
    const describe = EXTRAS[key];
    const list = Array.isArray(raw) ? raw.map(String) : null;
    const text = describe ? describe(list ?? String(raw)) : `${key}: ${list ? list.join(", ") : JSON.stringify(raw)}`;
    extras.append(h("li", { text }));
  }

  // A child's call (or anyone's the owner marked) is approved by an owner or a parent, from
  // their own console: this card only waits for them, and can cancel.
  const waiting = typeof pending.waiting_for === "string" && pending.waiting_for;
  if (waiting) {
    deny.textContent = "Cancel";
    deny.setAttribute("aria-label", `Cancel: ${words.title}`);
    approve.hidden = true;
  }
  const waitNote = waiting ? h("p", { class: "confirm-waiting", role: "status", text: `Waiting for ${waiting} to approve this.` }) : null;

  const where = pending.capability === "web.fetch" ? h("p", { class: "confirm-host" }, "on ", h("strong", { text: hostOf(literal) })) : null;

  const card = h(
    "section",
    { class: "confirm-card", role: "alertdialog", tabindex: "-1", "aria-labelledby": titleId, "aria-describedby": `${titleId}-note` },
    h("div", { class: "confirm-head" }, h("h2", { id: titleId, class: "confirm-title", text: words.title }), countdown),
    value,
    notices,
    where,
    extras.childElementCount ? extras : null,
    waitNote,
    h("p", { class: "confirm-note", id: `${titleId}-note`, text: words.note }),
    h("div", { class: "confirm-meter", "aria-hidden": "true" }, meter),
    h("div", { class: "confirm-actions" }, h("span", { class: "confirm-keys", text: waiting ? "Esc cancels" : "Enter approves · Esc denies" }), deny, approve),
  );
  card.dataset.capability = pending.capability;

  let settle;
  const decision = new Promise((resolve) => {
    settle = resolve;
  });
  let done = false;
  card.dataset.armed = "false";
  const arming = setTimeout(() => {
    if (!done) card.dataset.armed = "true";
  }, KEYBOARD_ARMS_AFTER_MS);
  const total = Math.max(0, Number(pending.expires_in_seconds) || 0);
  const deadline = performance.now() + total * 1000;

  const finish = (result) => {
    if (done) return;
    done = true;
    clearInterval(timer);
    clearTimeout(arming);
    document.removeEventListener("keydown", onDocumentKey, true);
    deny.disabled = true;
    approve.disabled = true;
    settle(result);
  };

  const expire = () => {
    if (done && card.dataset.state === "expired") return;
    finish("expired");
    card.dataset.state = "expired";
    card.classList.add("confirm-expired");
    countdown.textContent = "";
    card.querySelector(".confirm-actions").replaceChildren(h("p", { class: "confirm-expired-text", text: "Expired — ask again." }));
    card.querySelector(".confirm-title").textContent = `${words.title} — expired`;
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

  approve.addEventListener("click", () => finish("approve"));
  deny.addEventListener("click", () => finish("deny"));
  card.addEventListener("keydown", (event) => {
    // Enter approves only when the card itself has focus, never from a button or the text.
    if (event.key === "Enter" && event.target === card && !event.isComposing && !waiting) {
      event.preventDefault();
      if (card.dataset.armed === "true") finish("approve");
    }
  });
  function onDocumentKey(event) {
    if (event.key === "Escape" && !done) {
      event.preventDefault();
      finish("deny");
    }
  }
  document.addEventListener("keydown", onDocumentKey, true);

  if (waiting) waitForApprover(pending, () => done).then((answer) => finish(answer));

  slot.replaceChildren(card);
  if (!done) card.focus({ preventScroll: true });

  return {
    element: card,
    decision,
    remove: () => {
      finish("dismissed");
      card.remove();
    },
  };
}
