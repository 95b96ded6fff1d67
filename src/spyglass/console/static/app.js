// The console's entry point: sign in, then wire the header, the history and the chat together.

import { getConversation, loadSession, onUnauthorized, signOut } from "./api.js";
import { ApprovalQueue, Panel, PeoplePanel } from "./approvals.js";
import { Chat } from "./chat.js";
import { hideGate, showGate } from "./gate.js";
import { History } from "./history.js";
import { ModelPicker } from "./models.js";
import { APPROVALS_FETCH, APPROVALS_SEARCH, PolicySwitches, WEB_ACCESS, WEB_FETCH, WEB_SEARCH } from "./policy.js";

const $ = (id) => document.getElementById(id);

let toastTimer = 0;
function toast(message) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    box.hidden = true;
  }, 6000);
}

function setDrawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("history-toggle").setAttribute("aria-expanded", String(open));
  $("history-toggle").setAttribute("aria-label", open ? "Hide conversations" : "Show conversations");
  $("scrim").hidden = !open;
}

let switches = null;
let chat = null;

function start(session) {
  hideGate();
  if (switches) {
    // Signed in again after the session ended: the page is already wired.
    switches.load(session.web_access_enabled, session.policy_problem);
    return;
  }
  switches = new PolicySwitches(
    {
      buttons: {
        [WEB_ACCESS]: [$("web-switch")],
        [WEB_SEARCH]: [$("search-switch"), $("search-switch-drawer")],
        [WEB_FETCH]: [$("fetch-switch"), $("fetch-switch-drawer")],
      },
      modes: {
        [APPROVALS_SEARCH]: [$("search-approvals"), $("search-approvals-drawer")],
        [APPROVALS_FETCH]: [$("fetch-approvals"), $("fetch-approvals-drawer")],
      },
      hint: $("policy-hint"),
      problem: $("policy-problem"),
      problemMessage: $("policy-problem-message"),
      groups: [$("capability-switches"), $("capability-switches-drawer")],
    },
    { onError: toast },
  );
  switches.load(session.web_access_enabled, session.policy_problem);

  let history;
  chat = new Chat(
    {
      transcript: $("transcript"),
      messages: $("messages"),
      emptyState: $("empty-state"),
      status: $("status-line"),
      confirmSlot: $("confirm-slot"),
      composer: $("composer"),
      input: $("composer-input"),
      send: $("send-button"),
      stop: $("stop-button"),
    },
    {
      onTurnSaved: (id) => {
        history.setActive(id);
        history.refresh();
      },
      onError: toast,
    },
  );
  history = new History(
    { list: $("history-list"), empty: $("history-empty"), search: $("history-search") },
    {
      onOpen: async (id) => {
        try {
          const conversation = await getConversation(id);
          chat.show(conversation);
          history.setActive(id);
          setDrawer(false);
        } catch (error) {
          toast(`Could not open the conversation: ${error.message}`);
        }
      },
      onDeleted: (id) => {
        if (chat.conversationId === id) chat.reset();
      },
      onError: toast,
    },
  );

  $("new-conversation").addEventListener("click", () => {
    chat.reset();
    history.setActive(null);
    setDrawer(false);
  });
  $("history-toggle").addEventListener("click", () => setDrawer(!document.body.classList.contains("drawer-open")));
  $("scrim").addEventListener("click", () => setDrawer(false));
  for (const id of ["sign-out", "sign-out-drawer"]) $(id).addEventListener("click", () => leave(id));
  history.refresh();
  household(session.account);
  $("composer-input").focus();
}

/** What the signed-in person may do for the household: answer others' calls, manage people. */
function household(account) {
  if (!account) return;
  document.body.classList.toggle("household", account.may_approve || account.manages);
  if (account.may_approve) {
    const queue = new ApprovalQueue(new Panel($("approvals-panel")), $("approvals-badge"), { onError: toast });
    $("approvals-open").hidden = false;
    $("approvals-open").addEventListener("click", () => {
      queue.panel.open();
      queue.refresh();
    });
    queue.start();
  }
  if (account.manages) {
    new ModelPicker({ box: $("model-picker"), select: $("model-select") }, { onError: toast }).load();
    const people = new PeoplePanel(new Panel($("people-panel")), { onError: toast });
    $("people-open").hidden = false;
    $("people-open").addEventListener("click", () => {
      people.panel.open();
      people.refresh();
    });
  }
}

/** Sign out: the service ends the session, and nothing of it stays on screen. */
async function leave(id) {
  const button = $(id);
  button.disabled = true;
  try {
    await signOut();
  } catch (error) {
    // Already signed out (401) is what was asked for; anything else is reported.
    if (error.status !== 401) {
      toast(`Could not sign out: ${error.message}`);
      return;
    }
  } finally {
    button.disabled = false;
  }
  // A pending card goes with the session: its request expires unanswered on the service.
  chat?.reset();
  showGate("signed_out_by_you", boot);
}

async function boot() {
  try {
    start(await loadSession());
  } catch (error) {
    if (error.status === 401) showGate("signed_out", boot);
    else showGate("unreachable", boot);
  }
}

// Any request answered 401 later means the session ended while the page was open.
onUnauthorized(() => showGate("expired", boot));
boot();
