// The player web client's only way to the server: every request is built here.
//
// - money(minor): the one request shape of an amount, {amount: <integer haléře>, currency: "CZK"};
// - url(path, query): /api/v1 + the path in the API's one URL style;
// - call(method, path, {body, query, key, form}): sends the player's token, Accept-Language and, on every
//   state-changing call, an Idempotency-Key (one per user action: pass the same key to retry the same action);
//   an error answer becomes an ApiError carrying the server's own message (in the language asked for).
import { language } from "./i18n.js";

export const API_ROOT = "/api/v1";
const TOKEN = "play.token";

// The API's one URL style: no trailing slash (docs/player-api.md, "URLs").
export function url(path, query) {
  const p = path.replace(/\/+$/, "");
  const q = query ? new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== "")) : null;
  return API_ROOT + p + (q && q.toString() ? `?${q}` : "");
}

export function money(minor) {
  if (!Number.isSafeInteger(minor)) throw new TypeError(`an amount is an integer number of haléře, not ${minor}`);
  return { amount: minor, currency: "CZK" };
}

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((n) => n.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export class ApiError extends Error {
  constructor(status, error) {
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "http";
    this.details = error.details || {};
  }
}

export const session = {
  get token() { return sessionStorage.getItem(TOKEN); },
  set token(value) { if (value) sessionStorage.setItem(TOKEN, value); else sessionStorage.removeItem(TOKEN); },
};

let onUnauthorised = () => {};
export function whenUnauthorised(fn) { onUnauthorised = fn; }

const SAFE = new Set(["GET", "HEAD"]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function call(method, path, { body, query, key, form, retries = 2 } = {}) {
  const unsafe = !SAFE.has(method);
  const headers = { Accept: "application/json", "Accept-Language": language() };
  if (session.token) headers.Authorization = `Token ${session.token}`;
  if (unsafe) headers["Idempotency-Key"] = key || newKey();
  let payload;
  if (form) payload = form;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url(path, query), { method, headers, body: payload, credentials: "omit", cache: "no-store" });
  } catch (e) {
    if (retries > 0) { await sleep(500); return call(method, path, { body, query, key: headers["Idempotency-Key"], form, retries: retries - 1 }); }
    throw new ApiError(0, { code: "network", message: null });
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (response.ok) return data;
  const error = (data && data.error) || { code: "http", message: null };
  // the same action again with the same key: a 429 that says when, a 5xx or a lost answer
  const wait = Number(response.headers.get("Retry-After")) * 1000 || error.details?.retry_after_ms;
  if (retries > 0 && ((response.status === 429 && wait && wait <= 3000) || response.status >= 502)) {
    await sleep(wait || 800);
    return call(method, path, { body, query, key: headers["Idempotency-Key"], form, retries: retries - 1 });
  }
  if (response.status === 401 && session.token) { session.token = null; onUnauthorised(); }
  throw new ApiError(response.status, error);
}

export const get = (path, query) => call("GET", path, { query });
export const post = (path, body, opts = {}) => call("POST", path, { body, ...opts });
export const put = (path, body, opts = {}) => call("PUT", path, { body, ...opts });
export const del = (path, opts = {}) => call("DELETE", path, opts);

export function all(path, query) {
  // the results of a paginated list (the first page is enough for this client: page_size 50)
  return get(path, { page_size: 50, ...query }).then((page) => (page && page.results) || []);
}
