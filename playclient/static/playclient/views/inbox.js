// The inbox: notices the operator must be able to prove it sent (GP §7(7), §10(4)); opening one records it read.
import { all, post } from "../api.js";
import { dateTime, pick, t } from "../i18n.js";
import { act, h, section } from "../ui.js";

export async function render() {
  const messages = await all("/accounts/me/messages");
  if (!messages.length) return section(t("inbox.title"), h("p", {}, t("inbox.empty")));
  return section(t("inbox.title"), h("ul.inbox", { id: "inbox" }, messages.map((m) => {
    const body = h("p.prose", { hidden: true }, pick(m, "body"));
    const head = h("button.link", { type: "button", class: m.read_at ? "read" : "unread" },
      `${m.read_at ? "" : "● "}${pick(m, "subject")} · ${dateTime(m.created_at)}`);
    head.addEventListener("click", () => act(head, async () => {
      body.hidden = !body.hidden;
      if (!m.read_at) { const r = await post(`/accounts/me/messages/${m.id}/read`); m.read_at = r.read_at; head.className = "link read"; head.textContent = head.textContent.replace("● ", ""); }
    }));
    return h("li", {}, head, body);
  })));
}
