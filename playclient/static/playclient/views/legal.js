// The legal texts: the game plan and terms in force and those announced (GP §3(5), §8(1)), the document
// versions a registration accepts, the privacy notice.
import { get } from "../api.js";
import { dateTime, pick, t } from "../i18n.js";
import { h, section } from "../ui.js";

export async function render() {
  const [terms, documents, privacy] = await Promise.all([get("/accounts/terms"), get("/accounts/registration/documents"), get("/accounts/privacy").catch(() => null)]);
  const doc = (d) => h("article", {}, h("h3", {}, d.title, ` (${t("legal.version")} ${d.version})`),
    h("p.small", {}, t("legal.effective", { at: dateTime(d.effective_at) }), d.document_url ? [" · ", h("a", { href: d.document_url, rel: "noopener" }, t("legal.document"))] : null),
    h("p", {}, pick(d, "summary")), h("details", {}, h("summary", {}, t("legal.full")), h("p.prose", {}, pick(d, "text"))));
  const node = h("div");
  node.append(section(t("legal.title"), terms.current ? doc(terms.current) : h("p", {}, t("legal.none")),
    terms.upcoming?.length ? [h("h3", {}, t("legal.upcoming")), terms.upcoming.map(doc)] : null));
  node.append(section(t("legal.versions"), h("dl.figures", {}, ["terms", "data_processing", "game_plan", "marketing"].map((k) =>
    [h("dt", {}, t(`legal.${k}`)), h("dd", {}, documents[k])]))));
  if (privacy) {
    node.append(section(t("legal.privacy"), h("ul", {}, (privacy.purposes || []).map((p) => h("li", {},
      h("strong", {}, pick(p, "text")), ` – ${pick(p, "basis")}`))),
    h("p.small", {}, (privacy.retention || []).map((r) => `${r.code}: ${r.years} ${t("legal.years")}`).join(" · "))));
  }
  return node;
}
