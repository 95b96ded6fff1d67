// The owner's switches in the header: web access, and under it web search and page reading.
// Each shows the owner's real policy, writes a change at once and puts itself back, visibly,
// when the write fails. The two capability switches only matter while web access is on, so
// they are greyed out (but keep their value) while it is off. Beside each, how often its
// calls ask: "ask each" (every call waits for a card) or "ask if flagged" (in these
// conversations only a call a check flags waits; the others run and are shown as they run).

import { getPolicy, setPolicy } from "./api.js";

export const WEB_ACCESS = "web_access_enabled";
export const WEB_SEARCH = "web_search_enabled";
export const WEB_FETCH = "web_fetch_enabled";
export const APPROVALS_SEARCH = "approvals_search";
export const APPROVALS_FETCH = "approvals_fetch";
const MODE_NAMES = { [APPROVALS_SEARCH]: "When a search asks", [APPROVALS_FETCH]: "When a page read asks" };

const NAMES = { [WEB_ACCESS]: "Web access", [WEB_SEARCH]: "Web search", [WEB_FETCH]: "Reading pages" };

export class PolicySwitches {
  /**
   * @param {{buttons: Record<string, HTMLButtonElement[]>, modes?: Record<string, HTMLSelectElement[]>,
   *          hint: HTMLElement, problem: HTMLElement, problemMessage: HTMLElement, groups: HTMLElement[]}} ui
   *   `buttons` maps each policy key to its switches (the header's, and the drawer's on a
   *   phone); `modes` each approval mode to its selects; `groups` hold the capability switches.
   * @param {{onError: (message: string) => void}} hooks
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    // Until the service says otherwise: web access off, the capability switches at their default.
    this.values = { [WEB_ACCESS]: false, [WEB_SEARCH]: true, [WEB_FETCH]: true };
    this.saving = new Set();
    // Counts the owner's changes, so a read that was answered after a change is not shown
    // over it (a slow first load must not switch web access back off under the owner).
    this.changes = 0;
    // Set when the policy file cannot be read: every switch is off until it is rewritten.
    this.problem = null;
    for (const [key, buttons] of Object.entries(ui.buttons)) {
      for (const button of buttons) button.addEventListener("click", () => this.toggle(key, button));
    }
    this.modes = { [APPROVALS_SEARCH]: "each", [APPROVALS_FETCH]: "each" };
    for (const [key, selects] of Object.entries(ui.modes ?? {})) {
      for (const select of selects) select?.addEventListener("change", () => this.choose(key, select));
    }
  }

  /** Show the master switch from the session, then every switch from the policy. */
  async load(webAccess, problem = null) {
    this.showProblem(problem);
    this.show({ [WEB_ACCESS]: webAccess });
    const changes = this.changes;
    // Until the read is answered the switches show the session's guess: say so to assistive
    // technology (and to anything waiting for the real states).
    this.setBusy(true);
    try {
      const state = await getPolicy();
      if (changes !== this.changes) return; // the owner changed a switch meanwhile: newer
      this.showProblem(state.problem || null);
      this.show(state);
    } catch (error) {
      this.hooks.onError(`Could not read the switches: ${error.message}`);
    } finally {
      this.setBusy(false);
    }
  }

  setBusy(busy) {
    for (const buttons of Object.values(this.ui.buttons)) {
      for (const button of buttons) button.setAttribute("aria-busy", String(busy));
    }
  }

  /** Show states read from the service (keys left out keep what is shown). */
  show(values) {
    for (const key of Object.keys(this.values)) {
      if (typeof values?.[key] === "boolean") this.values[key] = values[key];
    }
    for (const key of Object.keys(this.modes)) {
      if (values?.[key] === "each" || values?.[key] === "flagged") this.modes[key] = values[key];
    }
    for (const [key, selects] of Object.entries(this.ui.modes ?? {})) {
      for (const select of selects) {
        if (!select) continue;
        select.value = this.modes[key];
        select.disabled = this.saving.has(key) || !this.values[WEB_ACCESS];
      }
    }
    const master = this.values[WEB_ACCESS];
    for (const [key, buttons] of Object.entries(this.ui.buttons)) {
      for (const button of buttons) {
        button.setAttribute("aria-checked", String(this.values[key]));
        button.disabled = this.saving.has(key) || (key !== WEB_ACCESS && !master);
      }
    }
    for (const group of this.ui.groups) group.classList.toggle("switches-inactive", !master);
    this.ui.hint.hidden = master || Boolean(this.problem);
  }

  /** Say why everything is off when the policy file cannot be read ({code, message, path}). */
  showProblem(problem) {
    this.problem = problem;
    this.ui.problem.hidden = !problem;
    this.ui.problemMessage.textContent = problem ? problem.message : "";
    this.ui.hint.hidden = this.values[WEB_ACCESS] || Boolean(problem);
  }

  /** Write the approval mode `select` now shows; put it back, visibly, if that fails. */
  async choose(key, select) {
    if (this.saving.has(key)) return;
    const previous = this.modes[key];
    const chosen = select.value;
    this.changes += 1;
    this.saving.add(key);
    this.show({ [key]: chosen });
    try {
      const state = await setPolicy({ [key]: chosen });
      this.saving.delete(key);
      this.show({ [key]: state[key] });
    } catch (error) {
      this.saving.delete(key);
      this.show({ [key]: previous });
      select.classList.add("switch-failed");
      setTimeout(() => select.classList.remove("switch-failed"), 1200);
      this.hooks.onError(`${MODE_NAMES[key]} was not changed: ${error.message}`);
    } finally {
      this.saving.delete(key);
      this.show({});
    }
  }

  async toggle(key, button) {
    if (this.saving.has(key)) return;
    const previous = this.values[key];
    this.changes += 1;
    const change = this.changes;
    this.saving.add(key);
    this.show({ [key]: !previous });
    button.classList.add("switch-saving");
    try {
      const state = await setPolicy({ [key]: !previous });
      this.saving.delete(key);
      // A successful write replaced the file, so whatever made it unreadable is gone.
      this.showProblem(state.problem || null);
      // A switch flipped since this one was sent has its own answer coming, and this answer
      // was read before that change was written: it speaks only for its own switch.
      this.show(change === this.changes ? state : { [key]: state[key] });
    } catch (error) {
      this.saving.delete(key);
      this.show({ [key]: previous });
      button.classList.add("switch-failed");
      setTimeout(() => button.classList.remove("switch-failed"), 1200);
      this.hooks.onError(`${NAMES[key]} was not changed: ${error.message}`);
    } finally {
      this.saving.delete(key);
      button.classList.remove("switch-saving");
      this.show({});
    }
  }
}
