// The web-access switch: shows the owner's real policy, writes a change at once and puts the
// switch back, visibly, when the write fails.

import { setWebAccess } from "./api.js";

export class WebSwitch {
  /**
   * @param {{button: HTMLButtonElement, hint: HTMLElement}} ui
   * @param {{onError: (message: string) => void}} hooks
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.enabled = false;
    ui.button.addEventListener("click", () => this.toggle());
  }

  /** Show a state read from the service. */
  show(enabled) {
    this.enabled = Boolean(enabled);
    this.ui.button.setAttribute("aria-checked", String(this.enabled));
    this.ui.button.disabled = false;
    this.ui.hint.hidden = this.enabled;
  }

  async toggle() {
    const previous = this.enabled;
    const wanted = !previous;
    this.show(wanted);
    this.ui.button.disabled = true;
    this.ui.button.classList.add("switch-saving");
    try {
      const state = await setWebAccess(wanted);
      this.show(Boolean(state.web_access_enabled));
    } catch (error) {
      this.show(previous);
      this.ui.button.classList.add("switch-failed");
      setTimeout(() => this.ui.button.classList.remove("switch-failed"), 1200);
      this.hooks.onError(`Web access was not changed: ${error.message}`);
    } finally {
      this.ui.button.disabled = false;
      this.ui.button.classList.remove("switch-saving");
    }
  }
}
