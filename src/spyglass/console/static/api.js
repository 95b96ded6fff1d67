// The console's only way to talk to the service: JSON requests, the CSRF header on every
// mutating request, and the streaming conversation endpoint.

import { readEvents } from "./sse.js";

/** A failed request, carrying the service's error code and its human message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

let csrfToken = "";
const unauthorizedListeners = new Set();

/** Call `listener` whenever the service says the session is missing or expired. */
export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
}

async function errorFrom(response) {
  let code = `HTTP_${response.status}`;
  let message = `The service answered ${response.status} ${response.statusText}.`;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = String(body.error.code || code);
      message = String(body.error.message || message);
    }
  } catch {
    // Not JSON: keep the status-based message.
  }
  if (response.status === 401) for (const listener of unauthorizedListeners) listener();
  return new ApiError(response.status, code, message);
}

async function request(method, path, { body, accept = "application/json", signal } = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
      signal,
    });
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new ApiError(0, "SERVICE_UNREACHABLE", "Cannot reach the Spyglass service. Is `spyglass serve` still running?");
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

async function json(method, path, body) {
  const response = await request(method, path, { body });
  if (response.status === 204) return null;
  return response.json();
}

/** Load the session; remembers its CSRF token for later mutating requests. */
export async function loadSession() {
  const session = await json("GET", "/api/v1/session");
  csrfToken = session.csrf_token;
  return session;
}

export function getPolicy() {
  return json("GET", "/api/v1/policy");
}

export function setWebAccess(enabled) {
  return setPolicy({ web_access_enabled: enabled });
}

/** Change some of the owner's switches; answers every switch's new state. */
export function setPolicy(changes) {
  return json("POST", "/api/v1/policy", changes);
}

/** End the console session on the service (its cookie stops working at once). */
export function signOut() {
  return json("POST", "/api/v1/session/sign-out");
}

export function listConversations(query = "") {
  const q = query.trim();
  return json("GET", q ? `/api/v1/conversations?q=${encodeURIComponent(q)}` : "/api/v1/conversations");
}

export function getConversation(id) {
  return json("GET", `/api/v1/conversations/${encodeURIComponent(id)}`);
}

export function deleteConversation(id) {
  return json("DELETE", `/api/v1/conversations/${encodeURIComponent(id)}`);
}

/**
 * End the turn running for a conversation at once (the call under way is cancelled, calls
 * not started never start); its stream still ends with `done`.
 * @returns {Promise<{conversation_id: string, stopped: boolean}>} `stopped` is false when no
 *   turn of it runs in the process that answered
 */
export function stopTurn(conversationId) {
  return json("POST", "/api/v1/conversation/stop", { conversation_id: conversationId });
}

/**
 * Send a message (or answers to a round's cards) and stream the turn.
 * @param {object} body  `{conversation_id?, text}`, `{conversation_id, confirmation}` or
 *   `{conversation_id, confirmations: [...]}`
 * @param {(name: string, data: any) => void} onEvent  called for every event, in order
 * @param {AbortSignal} signal  aborting it stops the turn (the service keeps what was said)
 * @returns {Promise<object|null>} the `done` response, or null when the stream ended without one
 */
export async function streamMessage(body, onEvent, signal) {
  const response = await request("POST", "/api/v1/conversation/message", {
    body,
    accept: "text/event-stream",
    signal,
  });
  const type = response.headers.get("Content-Type") || "";
  if (!type.startsWith("text/event-stream")) {
    // A service that answers JSON anyway: replay it as the events it stands for.
    const done = await response.json();
    onEvent("done", done);
    return done;
  }
  let done = null;
  for await (const { event, data } of readEvents(response.body)) {
    let payload;
    try {
      payload = JSON.parse(data);
    } catch {
      continue; // A malformed event is skipped rather than ending the turn on screen.
    }
    if (event === "done") done = payload;
    onEvent(event, payload);
  }
  return done;
}

/** Calls waiting for an owner or a parent: an approver gets everyone's, others their own. */
export function listApprovals() {
  return json("GET", "/api/v1/approvals");
}

/**
 * Approve or decline a waiting call (owners and parents); scope "conversation" also lets the
 * person's later calls of that kind in that conversation run when no check flags them.
 */
export function answerApproval(id, approve, scope = "call") {
  return json("POST", `/api/v1/approvals/${encodeURIComponent(id)}`, { approve, scope });
}

export function listPeople() {
  return json("GET", "/api/v1/people");
}

export function addPerson(name, role) {
  return json("POST", "/api/v1/people", { name, role });
}

export function changePerson(id, changes) {
  return json("PATCH", `/api/v1/people/${encodeURIComponent(id)}`, changes);
}

export function personLoginCode(id) {
  return json("POST", `/api/v1/people/${encodeURIComponent(id)}/login-code`);
}

/** The model in use and the models found on this machine (`status`, `servers`). */
export function listModels() {
  return json("GET", "/api/v1/models");
}

/** Use one of the models found (owners); the service remembers the pick. */
export function pickModel(baseUrl, model) {
  return json("POST", "/api/v1/models", { base_url: baseUrl, model });
}
