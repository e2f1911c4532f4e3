// Czech and English: the strings of each language are one dictionary file (i18n/cs.js, i18n/en.js); the
// server's own messages are shown as it sends them in the language asked for (Accept-Language, see api.js).
import cs from "./i18n/cs.js";
import en from "./i18n/en.js";

const DICTIONARIES = { cs, en };
const KEY = "play.language";
let current = localStorage.getItem(KEY) || document.body.dataset.language || "cs";
if (!DICTIONARIES[current]) current = "cs";

export const language = () => current;

export function setLanguage(code) {
  if (!DICTIONARIES[code]) return;
  current = code;
  localStorage.setItem(KEY, code);
  document.documentElement.lang = code;
}

// t("games.round", {id: 7}): the string in the current language, {names} filled in; a missing key shows itself
export function t(key, vars = {}) {
  const text = DICTIONARIES[current][key] ?? DICTIONARIES.cs[key] ?? `⟦${key}⟧`;
  return text.replace(/\{(\w+)\}/g, (_, name) => (vars[name] ?? `{${name}}`));
}

// a server text that comes in both languages (title_cs / title_en ...)
export const pick = (obj, field) => (obj ? obj[`${field}_${current}`] ?? obj[`${field}_cs`] ?? obj[field] ?? "" : "");

// a percentage in the player's language: "96,73 %" in Czech, "96.73 %" in English (a no-break space before %)
export function percent(value) {
  const text = String(value ?? "–");
  return `${current === "cs" ? text.replace(".", ",") : text}\u00a0%`;
}

export function dateTime(iso) {
  if (!iso) return "–";
  return new Date(iso).toLocaleString(current === "cs" ? "cs-CZ" : "en-GB", { timeZone: "Europe/Prague", dateStyle: "medium", timeStyle: "short" });
}

export function date(iso) {
  if (!iso) return "–";
  return new Date(iso.length === 10 ? `${iso}T12:00:00Z` : iso).toLocaleDateString(current === "cs" ? "cs-CZ" : "en-GB", { timeZone: "Europe/Prague" });
}

export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d ? t("time.dhm", { d, h, m }) : t("time.hms", { h, m, s: String(s % 60).padStart(2, "0") });
}

export function applyStatic(root = document) {
  root.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
}
