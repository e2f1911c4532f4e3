// Development only: the e-mail and the SMS the sandbox gateways "sent" to this player (GET accounts/dev/mailbox;
// a 404 in production, and then this panel shows nothing). The confirmation link opens in the client; the first
// password is in the SMS.
import { get } from "../api.js";
import { dateTime, t } from "../i18n.js";
import { h } from "../ui.js";

export function mailboxPanel() {
  const email = sessionStorage.getItem("play.email");
  const phone = sessionStorage.getItem("play.phone");
  const box = h("section.card.mailbox", { id: "mailbox", hidden: true });
  if (!email && !phone) return box;
  const load = async () => {
    let mail, sms;
    try {
      [mail, sms] = await Promise.all([get("/accounts/dev/mailbox", { to: email }), get("/accounts/dev/mailbox", { to: phone })]);
    } catch { box.hidden = true; return; } // not offered (production)
    const token = (link) => { try { return new URL(link).hash.split("token=")[1] || new URL(link).searchParams.get("token"); } catch { return null; } };
    box.replaceChildren(h("h2", {}, t("mailbox.title")), h("p.small", {}, t("mailbox.intro")),
      h("h3", {}, t("mailbox.emails", { to: email })),
      mail.emails.length ? h("ul", {}, mail.emails.map((e) => h("li", {}, h("strong", {}, e.subject), ` · ${dateTime(e.sent_at)} `,
        [...new Set(e.links.map(token).filter(Boolean))].map((tok) => // a bilingual e-mail has the link twice
          h("a.button.secondary", { href: `#/confirm?token=${encodeURIComponent(tok)}`, class: "confirm-link" }, t("mailbox.open")))))) : h("p", {}, t("mailbox.none")),
      h("h3", {}, t("mailbox.sms", { to: phone })),
      sms.sms.length ? h("ul", {}, sms.sms.map((s) => h("li", { class: "sms" }, h("code", {}, s.text), ` · ${dateTime(s.sent_at)}`))) : h("p", {}, t("mailbox.none")),
      h("button.link", { type: "button", id: "mailbox-refresh", onclick: load }, t("mailbox.refresh")));
    box.hidden = false;
  };
  load();
  return box;
}
