// The single page: a hash router (#/wallet, #/game/kobushi, #/confirm?token=...), the navigation, the balance and
// the language switch. Each screen is a module under views/ exporting render(params) -> Node.
import { get, session, whenUnauthorised } from "./api.js";
import { applyStatic, language, setLanguage, t } from "./i18n.js";
import { clearNotice, h, money, notice, refusal } from "./ui.js";
import * as auth from "./views/auth.js";
import * as account from "./views/account.js";
import * as wallet from "./views/wallet.js";
import * as limits from "./views/limits.js";
import * as responsible from "./views/responsible.js";
import * as games from "./views/games.js";
import * as rounds from "./views/rounds.js";
import * as inbox from "./views/inbox.js";
import * as complaints from "./views/complaints.js";
import * as legal from "./views/legal.js";

const ROUTES = {
  "": account.home, register: auth.register, confirm: auth.confirm, login: auth.login, password: auth.password,
  account: account.render, wallet: wallet.render, limits: limits.render, responsible: responsible.render,
  games: games.lobby, game: games.game, rounds: rounds.render, inbox: inbox.render, complaints: complaints.render,
  legal: legal.render,
};
const PUBLIC = new Set(["", "register", "confirm", "login", "legal", "responsible", "games"]);
const NAV_IN = [["games", "nav.games"], ["wallet", "nav.wallet"], ["limits", "nav.limits"], ["rounds", "nav.rounds"],
  ["inbox", "nav.inbox"], ["complaints", "nav.complaints"], ["account", "nav.account"]];
const NAV_OUT = [["games", "nav.games"], ["register", "nav.register"], ["login", "nav.login"]];

export function go(path) { location.hash = `#/${path}`; }

function parse() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  const [name, ...rest] = path.split("/");
  return { name, arg: rest.join("/"), query: new URLSearchParams(query || "") };
}

function nav(current) {
  const el = document.getElementById("nav");
  el.replaceChildren(...(session.token ? NAV_IN : NAV_OUT).map(([route, key]) =>
    h("a", { href: `#/${route}`, class: current === route ? "active" : null, "data-nav": route }, t(key))));
  if (session.token) {
    el.append(h("button.link", { type: "button", id: "logout", onclick: () => auth.logout() }, t("nav.logout")));
  }
  el.classList.remove("open");
  document.getElementById("menu-toggle").setAttribute("aria-expanded", "false");
}

export async function refreshBalance() {
  const el = document.getElementById("balance");
  if (!session.token) { el.textContent = ""; return; }
  try {
    const o = await get("/wallet/overview");
    el.textContent = `${t("wallet.balance")}: ${money(o.balance)}`;
  } catch { el.textContent = ""; }
}

let rendering = 0;
export async function show() {
  const { name, arg, query } = parse();
  const view = ROUTES[name] || ROUTES[""];
  if (!session.token && !PUBLIC.has(name)) { go("login"); return; }
  const ticket = ++rendering;
  nav(name);
  clearNotice({ navigating: true });
  document.body.dataset.route = name || "home";
  const main = document.getElementById("view");
  try {
    const node = await view({ arg, query, go, refreshBalance, show });
    if (ticket === rendering && node) main.replaceChildren(node);
  } catch (e) {
    if (ticket === rendering) { main.replaceChildren(h("section.card", {}, h("p", {}, refusal(e)))); notice(refusal(e)); }
  }
  main.dataset.ready = name || "home"; // the tests wait for it
  refreshBalance();
}

function start() {
  if (new URLSearchParams(location.search).has("state")) { // back from Bank iD: finish it on the account page
    const back = location.search.slice(1);
    history.replaceState(null, "", `${location.pathname}#/account?${back}`);
  }
  setLanguage(language());
  applyStatic();
  document.querySelectorAll("[data-lang]").forEach((b) => b.addEventListener("click", () => {
    setLanguage(b.dataset.lang);
    applyStatic();
    show();
  }));
  document.getElementById("menu-toggle").addEventListener("click", (e) => {
    const open = document.getElementById("nav").classList.toggle("open");
    e.currentTarget.setAttribute("aria-expanded", String(open));
  });
  whenUnauthorised(() => { go("login"); notice(t("auth.session_over")); });
  window.addEventListener("hashchange", show);
  document.addEventListener("click", (e) => { // a link to the screen already shown shows it afresh
    const a = e.target.closest("a[href^='#/']");
    if (a && a.getAttribute("href") === location.hash) { e.preventDefault(); show(); }
  });
  show();
}

start();
