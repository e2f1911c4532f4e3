// Responsible gaming: the operator's texts and help contacts, and the player's own statistics (GP §6, §10).
import { get, session } from "../api.js";
import { date, duration, pick, t } from "../i18n.js";
import { h, money, section, table } from "../ui.js";
import { playStatus } from "./limits.js";

export async function render() {
  const rg = await get("/limits/responsible-gaming");
  const node = h("div");
  for (const text of rg.texts) node.append(section(pick(text, "title"), h("p.prose", {}, pick(text, "body"))));
  node.append(section(t("rg.help"), rg.help_contacts.length ? null : h("p", {}, t("rg.no_help")), h("ul", {}, rg.help_contacts.map((c) => h("li", {}, h("strong", {}, pick(c, "name")), " – ",
    pick(c, "description"), " ", c.phone ? h("a", { href: `tel:${c.phone}` }, c.phone) : null, " ", c.url ? h("a", { href: c.url, rel: "noopener" }, c.url) : null,
    " ", pick(c, "hours"))))));
  if (!session.token) return node;
  const to = new Date();
  const from = new Date(to.getTime() - 29 * 86400000);
  const iso = (d) => d.toLocaleDateString("sv-SE", { timeZone: "Europe/Prague" });
  const [stats, status] = await Promise.all([get("/limits/statistics", { from: iso(from), to: iso(to) }), get("/limits/play-status")]);
  const tot = stats.total;
  node.prepend(playStatus(status), section(t("rg.stats", { from: date(stats.date_from), to: date(stats.date_to) }),
    h("dl.figures", { id: "rg-total" }, [["rg.logged_in", duration(tot.logged_in_seconds)], ["rg.bets", tot.bets], ["rg.stakes", money(tot.stakes)],
      ["rg.wins", money(tot.wins)], ["rg.net_loss", money(tot.net_loss)]].map(([k, v]) => [h("dt", {}, t(k)), h("dd", {}, v)])),
    table([t("rg.day"), t("rg.logged_in"), t("rg.bets"), t("rg.stakes"), t("rg.wins"), t("rg.net_loss")],
      stats.days.filter((d) => d.bets || d.logged_in_seconds).map((d) => [date(d.date), duration(d.logged_in_seconds), d.bets, money(d.stakes), money(d.wins), money(d.net_loss)]))));
  return node;
}
