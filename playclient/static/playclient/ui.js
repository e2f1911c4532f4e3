// Small DOM helpers shared by the views: h() builds elements, form() reads a form, notice() shows the server's
// message, parseCzk() reads an amount a person typed (exact: a string to integer haléře, no floating point).
import { t } from "./i18n.js";

export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = [el.className, v].filter(Boolean).join(" ");
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export const money = (m) => (m && typeof m === "object" ? m.formatted : m ?? "–");

// a play-money amount: points, never Kč ("1 736,00 bodů"; the same two-decimal scale as money)
export function points(m) {
  const minor = m && typeof m === "object" ? m.amount : m;
  if (minor === undefined || minor === null) return "–";
  return czk(minor).replace(/\u00a0Kč$/, `\u00a0${t("games.points")}`);
}

// a round's amount in its unit: points for play money, Kč for real money
export const roundAmount = (rnd, m) => (rnd.play_money ? points(m) : money(m));

export function field(name, label, attrs = {}) {
  const id = `f-${name}`;
  const input = attrs.options
    ? h("select", { id, name, required: attrs.required },
      attrs.options.map(([v, text]) => h("option", { value: v, selected: String(v) === String(attrs.value ?? "") }, text)))
    : h(attrs.type === "textarea" ? "textarea" : "input", { id, name, ...attrs, options: undefined });
  return h("label.field", { for: id }, h("span", {}, label), input, attrs.hint ? h("small", {}, attrs.hint) : null);
}

export function values(formEl) {
  return Object.fromEntries([...new FormData(formEl).entries()].filter(([, v]) => !(v instanceof File)).map(([k, v]) => [k, String(v).trim()]));
}

export function parseCzk(text) {
  const s = String(text).replace(/[\s\u00a0]|Kč|CZK/g, "").replace(",", ".");
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] || "0").padEnd(2, "0"));
}

export function czk(minor) {
  const sign = minor < 0 ? "-" : "";
  const a = Math.abs(minor);
  const whole = String(Math.trunc(a / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, "\u00a0");
  return `${sign}${whole},${String(a % 100).padStart(2, "0")}\u00a0Kč`;
}

let noticeTimer;
let keep = false; // a notice shown just before the screen changes survives that change
export function notice(message, kind = "error") {
  const el = document.getElementById("notice");
  keep = true;
  setTimeout(() => { keep = false; }, 300);
  el.textContent = message;
  el.className = `notice ${kind}`;
  el.hidden = false;
  clearTimeout(noticeTimer);
  if (kind !== "error") noticeTimer = setTimeout(() => { el.hidden = true; }, 4000);
}
export function clearNotice({ navigating = false } = {}) {
  if (navigating && keep) return;
  document.getElementById("notice").hidden = true;
}

// the server's message in the player's language (ApiError.message), or ours when there is no answer at all
export function refusal(e) {
  if (e && e.status !== undefined) return e.message && e.status ? e.message : t("error.network");
  console.error(e);
  return t("error.unexpected");
}

// run an action of the player: the button is disabled meanwhile and a refusal is shown in the notice bar
export async function act(button, fn) {
  if (button) button.disabled = true;
  try {
    clearNotice();
    return await fn();
  } catch (e) {
    notice(refusal(e));
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

export function section(title, ...children) {
  return h("section.card", {}, h("h2", {}, title), ...children);
}

// a table; with { cards: true } each row becomes a card on a phone (every cell labelled with its column's header)
export function table(headers, rows, { cards = false } = {}) {
  return h("div.scroll", { class: cards ? "cards" : null }, h("table", {}, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => h("td", { dataset: { label: headers[i] || "" } }, c)))))));
}
