// What the page shows instead of the chat when there is no session: never signed in, signed
// out because the session ended, or the service cannot be reached.

import { h } from "./dom.js";

const STATES = {
  signed_out: {
    title: "Sign in to Spyglass",
    text: "This console opens from the one-time sign-in link that Spyglass prints when it starts.",
  },
  expired: {
    title: "Your session has ended",
    text: "For your safety the console signed you out. Sign in again with a fresh one-time link.",
  },
  signed_out_by_you: {
    title: "You are signed out",
    text: "This console session has ended. To use the console again, sign in with a fresh one-time link.",
  },
  unreachable: {
    title: "Spyglass is not answering",
    text: "The console could not reach the Spyglass service on this computer.",
  },
};

// Each step is text with an optional command shown as code.
const STEPS = {
  signed_out: [
    ["In a terminal on this computer, start Spyglass:", "spyglass serve"],
    ["Open the link it prints (…/login?code=…) in this browser. Each link works once, for 10 minutes."],
    ["Already running? Print a fresh link with", "spyglass serve --print-login-url"],
  ],
  expired: [
    ["In a terminal on this computer, print a fresh link:", "spyglass serve --print-login-url"],
    ["Open it in this browser. If Spyglass was restarted, use the link it printed when it started."],
  ],
  signed_out_by_you: [
    ["In a terminal on this computer, print a fresh link:", "spyglass serve --print-login-url"],
    ["Open it in this browser."],
  ],
  unreachable: [
    ["Check that Spyglass is still running in its terminal:", "spyglass serve"],
    ["Start it again if it stopped, then press Try again."],
  ],
};

/** Show the gate in one of its states; `retry` is called by its "Try again" button. */
export function showGate(state, retry) {
  const info = STATES[state] ?? STATES.signed_out;
  document.getElementById("app").hidden = true;
  const gate = document.getElementById("gate");
  gate.hidden = false;
  gate.dataset.state = state;
  document.getElementById("gate-title").textContent = info.title;
  document.getElementById("gate-text").textContent = info.text;
  document.getElementById("gate-steps").replaceChildren(...(STEPS[state] ?? []).map(([text, command]) => h("li", {}, text, command ? " " : null, command ? h("code", { text: command }) : null)));
  const button = document.getElementById("gate-retry");
  button.hidden = state !== "unreachable";
  button.onclick = retry;
  document.title = `${info.title} · Spyglass`;
}

export function hideGate() {
  document.getElementById("gate").hidden = true;
  document.getElementById("app").hidden = false;
  document.title = "Spyglass";
}
