// The home page, the registration steps of the temporary account with its countdown and deposit cap (GP §5(2)),
// and the identification the server offers (Bank iD, GP §4(4)b; or a document with photos).
import { call, get, post, session } from "../api.js";
import { dateTime, duration, pick, t } from "../i18n.js";
import { act, field, h, money, notice, refusal, section, values } from "../ui.js";

export async function home({ go, show }) {
  if (!session.token) {
    return section(t("home.title"), h("p", {}, t("home.intro")),
      h("p.row", {}, h("a.button", { href: "#/register" }, t("nav.register")), h("a.button.secondary", { href: "#/login" }, t("nav.login")),
        h("a.button.secondary", { href: "#/games" }, t("nav.games"))));
  }
  const me = await get("/accounts/me");
  if (me.must_change_password) { go("password"); return null; }
  const node = h("div", {}, section(t("home.hello", { name: me.given_names || me.username }),
    h("p", {}, t(`status.${me.status}`)),
    me.betting_refusal ? h("p.warn", {}, t("home.no_betting", { code: me.betting_refusal })) : null,
    h("p.row", {}, h("a.button", { href: "#/games" }, t("nav.games")), h("a.button.secondary", { href: "#/wallet" }, t("wallet.deposit")))));
  if (me.status === "temporary") node.append(await steps(show));
  return node;
}

// the countdown of the temporary account (GP §5(2)a): the seconds the server gave, counted down here
function countdown(seconds) {
  const el = h("strong", { id: "countdown" }, duration(seconds));
  const end = Date.now() + seconds * 1000;
  const timer = setInterval(() => {
    if (!el.isConnected) { clearInterval(timer); return; }
    el.textContent = duration((end - Date.now()) / 1000);
  }, 1000);
  return el;
}

// the steps while the account is temporary (an active account has none left); show() shows the screen again
async function steps(show) {
  const [s, overview] = await Promise.all([get("/accounts/registration/steps"), get("/wallet/overview")]);
  if (s.status !== "temporary") return "";
  const cap = overview.temporary_deposits;
  const list = h("ul.steps", {}, s.steps.map((x) => h("li", { class: x.done ? "done" : "todo" },
    x.done ? "✔ " : "○ ", pick(x, "title"))));
  const complete = h("button", { type: "button", id: "complete", disabled: !s.can_complete }, t("steps.complete"));
  complete.addEventListener("click", () => act(complete, async () => {
    await post("/accounts/registration/complete");
    notice(t("steps.completed"), "ok");
    if (show) await show(); else location.reload();
  }));
  return section(t("steps.title"),
    s.deadline ? h("p", {}, t("steps.deadline", { at: dateTime(s.deadline) }), " ", countdown(s.seconds_left)) : null,
    cap ? h("p", { id: "deposit-cap" }, t("steps.cap", { cap: money(cap.cap), deposited: money(cap.deposited), remaining: money(cap.remaining) })) : null,
    list, h("p.row", {}, h("a.button.secondary", { href: "#/account" }, t("steps.identify")),
      h("a.button.secondary", { href: "#/limits" }, t("nav.limits")), h("a.button.secondary", { href: "#/wallet" }, t("wallet.methods")), complete));
}

const DECIDING = new Set(["pending", "submitted"]);
const OPEN = new Set([...DECIDING, "doubtful"]);
const identStatus = (s) => t(`ident.s_${s}`);

export async function render({ query, show }) {
  const node = h("div");
  if (query.get("state")) {
    // back from the bank: the state works once, so it leaves the address before anything can show it again
    history.replaceState(null, "", `${location.pathname}#/account`);
    await bankidReturn(query);
  }
  const status = await get("/aml/status");
  // no new attempt while one is open (being checked, or with staff): the server would refuse it
  const offer = !status.identified && !OPEN.has(status.identification?.status);
  node.append(await steps(show).catch(() => ""));
  node.append(section(t("ident.title"),
    h("p", {}, status.identified ? t("ident.done", { at: dateTime(status.identified_at) }) : t("ident.intro")),
    status.identification ? h("p.small", { id: "ident-last", dataset: { status: status.identification.status } },
      t("ident.last", { status: identStatus(status.identification.status), at: dateTime(status.identification.created_at) })) : null,
    offer ? bankid() : null, offer ? documentForm(show) : null));
  node.append(await pep(status));
  const me = await get("/accounts/me");
  node.append(section(t("account.me"), h("dl.figures", {},
    [["reg.username", me.username], ["account.name", `${me.given_names || ""} ${me.surname || ""}`], ["reg.email", me.email],
      ["reg.phone", me.phone], ["account.status", t(`status.${me.status}`)]].map(([k, v]) => [h("dt", {}, t(k)), h("dd", {}, v || "–")])),
    h("p.row", {}, h("a.button.secondary", { href: "#/password" }, t("auth.change_title")))));
  return node;
}

function bankid() {
  const b = h("button", { type: "button", id: "bankid" }, t("ident.bankid"));
  b.addEventListener("click", () => act(b, async () => {
    const back = `${location.origin}${location.pathname}`; // app.js hands ?code=&state= to #/account
    const r = await post("/aml/identifications/bankid", { redirect_url: back });
    location.assign(r.authorization_url); // the bank's sign-in; it sends the browser back with code and state
  }));
  return h("div.stack", {}, h("h3", {}, "Bank iD"), h("p.small", {}, t("ident.bankid_hint")), b);
}

async function bankidReturn(query) {
  try {
    const r = await post("/aml/identifications/bankid/callback", {
      state: query.get("state") || "", code: query.get("code") || "", error: query.get("error") || "",
      error_description: query.get("error_description") || "" });
    notice(t("ident.result", { status: identStatus(r.status) }), r.status === "approved" ? "ok" : "error");
  } catch (e) { notice(refusal(e)); }
}

// the provider answers later (a signed callback to the server): ask until the check is decided, then show the screen
// again (identified, or the form for another try)
async function following(check, progress) {
  let r = check;
  for (let i = 0; i < 90 && DECIDING.has(r.status); i++) {
    progress.textContent = `${t("ident.waiting")} (${identStatus(r.status)})`;
    await new Promise((done) => setTimeout(done, 1000));
    r = await get(`/aml/identifications/${r.id}`);
  }
  progress.textContent = t("ident.result", { status: identStatus(r.status) });
  return r;
}

function documentForm(show) {
  const form = h("form.grid", { id: "document-form" },
    field("document_type", t("reg.document_type"), { options: [["id_card", t("doc.id_card")], ["passport", t("doc.passport")], ["driving_licence", t("doc.driving_licence")], ["residence_permit", t("doc.residence_permit")]] }),
    field("document_number", t("reg.document_number"), { required: true }),
    field("document_issuing_state", t("reg.document_issuing_state"), { value: "CZ", required: true }),
    field("document_issuing_authority", t("reg.document_issuing_authority"), { required: true }),
    field("document_valid_until", t("reg.document_valid_until"), { type: "date", required: true }),
    field("front", t("ident.front"), { type: "file", accept: "image/jpeg,image/png", required: true }),
    field("back", t("ident.back"), { type: "file", accept: "image/jpeg,image/png" }),
    field("selfie", t("ident.selfie"), { type: "file", accept: "image/jpeg,image/png", required: true }),
    h("div.wide", {}, h("button", { type: "submit", id: "document-submit" }, t("ident.send"))),
    h("p.wide.small", { id: "ident-progress", "aria-live": "polite" }));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const data = new FormData(form);
      for (const [k, v] of [...data.entries()]) if (v instanceof File && !v.size) data.delete(k);
      const started = await call("POST", "/aml/identifications", { form: data });
      const r = await following(started, form.querySelector("#ident-progress"));
      notice(t("ident.result", { status: identStatus(r.status) }), r.status === "approved" ? "ok" : "error");
      if (!DECIDING.has(r.status) && show) await show();
    });
  });
  return h("div", {}, h("h3", {}, t("ident.document")), form);
}

async function pep(status) {
  const form = h("form.row", { id: "pep-form" },
    field("relation", t("pep.relation"), { options: ["none", "self", "family", "associate"].map((x) => [x, t(`pep.${x}`)]) }),
    field("position", t("pep.position"), {}), h("button", { type: "submit" }, t("pep.declare")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(form);
      await post("/aml/pep-declaration", { relation: v.relation, position: v.position });
      notice(t("pep.done"), "ok");
    });
  });
  return section(t("pep.title"), status.pep_declared ? h("p", {}, t("pep.declared", { at: dateTime(status.pep_declared_at) })) : form);
}
