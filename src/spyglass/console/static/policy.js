// The web-access switch: shows the owner's real policy, writes a change at once and puts the
// switch back, visibly, when the write fails.

import { setWebAccess } from "./api.js";

export class WebSwitch {
  /**
   * @param {{button: HTMLButtonElement, hint: HTMLElement, problem: HTMLElement,
   *          problemMessage: HTMLElement}} ui
   * @param {{onError: (message: string) => void}} hooks
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.enabled = false;
    this.problem = null;
    ui.button.addEventListener("click", () => this.toggle());
  }

  /**
   * Show a state read from the service. ``problem`` ({code, message, path}) means the policy
   * exists but cannot be read: everything is off, and switching rewrites the file.
   */
  show(enabled, problem = null) {
    this.enabled = Boolean(enabled);
    this.problem = problem;
    this.ui.button.setAttribute("aria-checked", String(this.enabled));
    this.ui.button.disabled = false;
    this.ui.problem.hidden = !problem;
    this.ui.problemMessage.textContent = problem ? problem.message : "";
    this.ui.hint.hidden = this.enabled || Boolean(problem);
  }

  async toggle() {
    const previous = this.enabled;
    const previousProblem = this.problem;
    const wanted = !previous;
    this.show(wanted);
    this.ui.button.disabled = true;
    this.ui.button.classList.add("switch-saving");
    try {
      const state = await setWebAccess(wanted);
      this.show(Boolean(state.web_access_enabled), state.problem || null);
    } catch (error) {
      this.show(previous, previousProblem);
      this.ui.button.classList.add("switch-failed");
      setTimeout(() => this.ui.button.classList.remove("switch-failed"), 1200);
      this.hooks.onError(`Web access was not changed: ${error.message}`);
    } finally {
      this.ui.button.disabled = false;
      this.ui.button.classList.remove("switch-saving");
    }
  }
}
