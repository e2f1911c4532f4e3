// Registration (GP §4(3)), the e-mail link, the first password (SMS) and its change (GP §4(7)), log in and out.
import { get, post, session } from "../api.js";
import { dateTime, pick, t } from "../i18n.js";
import { act, field, h, notice, section, values } from "../ui.js";
import { mailboxPanel } from "./mailbox.js";

const PERSONAL = [
  ["given_names", {}], ["surname", {}], ["birth_surname", { required: false }], ["birth_number", { required: false }],
  ["date_of_birth", { type: "date" }], ["place_of_birth", {}], ["sex", { options: [["F", "sex.F"], ["M", "sex.M"]] }],
  ["citizenship", { value: "CZ", maxlength: 2 }], ["residence_street", {}], ["residence_city", {}],
  ["residence_postal_code", {}], ["residence_country", { value: "CZ", maxlength: 2 }],
  ["correspondence_address", { required: false }], ["phone", { type: "tel", value: "+420" }], ["email", { type: "email" }],
  ["data_box_id", { required: false }],
  ["document_type", { options: [["id_card", "doc.id_card"], ["passport", "doc.passport"], ["residence_permit", "doc.residence_permit"]] }],
  ["document_number", {}], ["document_issuing_state", { value: "CZ", maxlength: 2 }], ["document_issuing_authority", {}],
  ["document_valid_until", { type: "date" }],
];

export async function register() {
  const documents = await get("/accounts/registration/documents");
  const fields = PERSONAL.map(([name, a]) => field(name, t(`reg.${name}`), {
    required: a.required ?? true, ...a, options: a.options?.map(([v, k]) => [v, t(k)]),
  }));
  const consent = (kind, required) => h("label.check", {},
    h("input", { type: "checkbox", name: `consent_${kind}`, required }), ` ${t(`reg.consent_${kind}`, { version: documents[kind] })}`);
  const form = h("form.grid", { id: "register-form" },
    field("username", t("reg.username"), { required: true, maxlength: 30, autocomplete: "username" }), ...fields,
    h("div.wide", {}, consent("terms", true), consent("data_processing", true), consent("game_plan", true),
      consent("marketing", false), h("p.small", {}, h("a", { href: "#/legal" }, t("reg.read_terms")))),
    h("div.wide", {}, h("button", { type: "submit", id: "register-submit" }, t("reg.submit"))));
  const out = h("div", { id: "register-result" });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(form);
      const body = { username: v.username, consents: {} };
      for (const [name] of PERSONAL) body[name] = v[name] ?? "";
      for (const kind of ["terms", "data_processing", "game_plan"]) {
        body.consents[kind] = form.elements[`consent_${kind}`].checked ? documents[kind] : "";
      }
      body.consents.marketing = form.elements.consent_marketing.checked;
      const r = await post("/accounts/registration", body);
      sessionStorage.setItem("play.username", r.username);
      sessionStorage.setItem("play.email", body.email);
      sessionStorage.setItem("play.phone", body.phone);
      form.hidden = true;
      out.replaceChildren(h("div.ok", {}, h("h3", {}, t("reg.done", { username: r.username })),
        h("p", {}, pick(r, "next_step")),
        r.temporary_expires_at ? h("p", {}, t("reg.temporary_until", { at: dateTime(r.temporary_expires_at) })) : null), mailboxPanel());
    });
  });
  return section(t("reg.title"), h("p", {}, t("reg.intro")), form, out);
}

export async function confirm({ query }) {
  const out = h("div", { id: "confirm-result" });
  const send = (token, button) => act(button, async () => {
    const r = await post("/accounts/registration/confirm-email", { token });
    out.replaceChildren(h("div.ok", {}, h("p", {}, t(`confirm.${r.status}`, { phone: r.phone })),
      h("a.button", { href: "#/login" }, t("nav.login"))), mailboxPanel());
  });
  const input = h("input", { name: "token", id: "confirm-token", placeholder: t("confirm.paste"), value: query.get("token") || "" });
  const form = h("form.row", {}, input, h("button", { type: "submit" }, t("confirm.submit")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const raw = input.value.trim();
    const token = raw.includes("token=") ? new URL(raw, location.href).searchParams.get("token") || raw.split("token=")[1] : raw;
    send(token, e.submitter);
  });
  const node = section(t("confirm.title"), h("p", {}, t("confirm.intro")), form, out);
  if (query.get("token")) send(query.get("token"));
  return node;
}

// The first (SMS) password, between the login that returned must_change_password and the change: kept in this
// module's memory only, never in sessionStorage (a reload or an abandoned change forgets it; the player types it).
let firstPassword = null;
sessionStorage.removeItem("play.first"); // what an earlier version of this client left behind

export async function login({ go }) {
  const form = h("form.stack", { id: "login-form" },
    field("username", t("reg.username"), { required: true, autocomplete: "username", value: sessionStorage.getItem("play.username") || "" }),
    field("password", t("auth.password"), { type: "password", required: true, autocomplete: "current-password" }),
    h("button", { type: "submit", id: "login-submit" }, t("nav.login")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(form);
      const r = await post("/accounts/auth/login", { username: v.username, password: v.password });
      session.token = r.token;
      sessionStorage.setItem("play.username", v.username);
      if (r.must_change_password) { firstPassword = v.password; go("password"); } else go("");
    });
  });
  return h("div", {}, section(t("nav.login"), form, h("p.small", {}, h("a", { href: "#/register" }, t("auth.no_account")))),
    mailboxPanel());
}

export async function password({ go }) {
  const first = firstPassword;
  const form = h("form.stack", { id: "password-form" },
    first ? h("p", {}, t("auth.first_password")) : null,
    field("old_password", t("auth.old_password"), { type: "password", required: true, value: first || "", autocomplete: "current-password" }),
    field("new_password", t("auth.new_password"), { type: "password", required: true, minlength: 10, autocomplete: "new-password", hint: t("auth.password_rules") }),
    h("button", { type: "submit", id: "password-submit" }, t("auth.change")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(form);
      await post("/accounts/auth/password", { old_password: v.old_password, new_password: v.new_password });
      firstPassword = null;
      notice(t("auth.changed"), "ok");
      go("");
    });
  });
  return section(t("auth.change_title"), form);
}

export async function logout() {
  try { await post("/accounts/auth/logout"); } catch { /* the session may be over already */ }
  session.token = null;
  firstPassword = null;
  location.hash = "#/login";
  notice(t("auth.logged_out"), "ok");
}
