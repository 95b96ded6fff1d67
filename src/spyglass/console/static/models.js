// The model picker in the header: shown to an owner when more than one model was found on
// this machine and none is set in the settings; the pick is remembered by the service.

import { listModels, pickModel } from "./api.js";

const SEPARATOR = "\n";

export class ModelPicker {
  /**
   * @param {{box: HTMLElement, select: HTMLSelectElement}} elements
   * @param {{onError: (message: string) => void}} callbacks
   */
  constructor(elements, { onError }) {
    this.box = elements.box;
    this.select = elements.select;
    this.onError = onError;
    this.select.addEventListener("change", () => this.pick());
  }

  async load() {
    let found;
    try {
      found = await listModels();
    } catch (error) {
      this.onError(`Could not list the models: ${error.message}`);
      return;
    }
    this.show(found);
  }

  show(found) {
    const choices = [];
    for (const server of found.servers || []) {
      for (const model of server.models || []) choices.push({ server, model });
    }
    // Nothing to pick: the owner set the model, or one model was found and is in use.
    if (found.status === "configured" || choices.length < 2) {
      this.box.hidden = true;
      return;
    }
    this.select.replaceChildren();
    if (found.status !== "using") {
      const prompt = new Option("Pick a model…", "", true, true);
      prompt.disabled = true;
      this.select.append(prompt);
    }
    for (const { server, model } of choices) {
      const address = server.base_url.replace(/^https?:\/\//, "").replace(/\/v1\/?$/, "");
      const label = `${model.name} — ${server.server} (${address})`;
      const value = server.base_url + SEPARATOR + model.name;
      const chosen = found.status === "using" && found.base_url === server.base_url && found.model === model.name;
      this.select.append(new Option(label, value, chosen, chosen));
    }
    this.box.hidden = false;
  }

  async pick() {
    const [baseUrl, model] = this.select.value.split(SEPARATOR);
    if (!model) return;
    this.select.disabled = true;
    try {
      this.show(await pickModel(baseUrl, model));
    } catch (error) {
      this.onError(`Could not pick the model: ${error.message}`);
    } finally {
      this.select.disabled = false;
    }
  }
}
