// Complaints (GP §11): the player's complaints with their reference and due date, and a new one about a round.
import { all, get, money as moneyOf, post } from "../api.js";
import { date, dateTime, t } from "../i18n.js";
import { act, field, h, money, notice, parseCzk, section, table, values } from "../ui.js";

const REASONS = ["game_result", "win_not_credited", "deposit", "withdrawal", "balance", "limits", "account", "personal_data", "other"];

export async function render({ query, go }) {
  const [complaints, rounds] = await Promise.all([all("/complaints"), all("/games/rounds")]);
  const chosen = query.get("round");
  const form = h("form.grid", { id: "complaint-form" },
    field("reason", t("complaints.reason"), { options: REASONS.map((r) => [r, t(`reason.${r}`)]), value: chosen ? "game_result" : "" }),
    field("round", t("complaints.round"), { options: [["", "–"], ...rounds.map((r) => [r.id, `#${r.id} · ${dateTime(r.started_at)} · ${r.game.name}`])], value: chosen || "" }),
    h("div.wide", {}, field("description", t("complaints.description"), { type: "textarea", required: true, rows: 4, minlength: 10 })),
    field("remedy_requested", t("complaints.remedy"), {}),
    field("remedy_amount", t("complaints.remedy_amount"), { inputmode: "decimal" }),
    h("div.wide", {}, h("button", { type: "submit", id: "complaint-submit" }, t("complaints.file"))));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(form);
      const body = { reason: v.reason, description: v.description, remedy_requested: v.remedy_requested };
      if (v.round) body.rounds = [Number(v.round)];
      if (v.remedy_amount) {
        const m = parseCzk(v.remedy_amount);
        if (m === null) { notice(t("wallet.amount_invalid")); return; }
        body.remedy_amount_requested = moneyOf(m);
      }
      const c = await post("/complaints", body);
      notice(t("complaints.filed", { ref: c.reference, due: date(c.respond_by_date) }), "ok");
      go(`complaints?ref=${c.reference}`);
    });
  });
  const node = h("div");
  const ref = query.get("ref");
  if (ref) {
    const c = await get(`/complaints/${ref}`);
    node.append(section(`${t("complaints.one")} ${c.reference}`, h("dl.figures", { id: "complaint-detail" },
      [["complaints.status", c.status_label], ["complaints.reason", c.reason_label], ["complaints.received", dateTime(c.received_at)],
        ["complaints.due", date(c.respond_by_date)]].map(([k, x]) => [h("dt", {}, t(k)), h("dd", {}, x)])), h("p.prose", {}, c.description),
      c.answer ? h("div", { id: "complaint-answer" }, h("h3", {}, t("complaints.answer")),
        h("dl.figures", {}, h("dt", {}, t("complaints.outcome")), h("dd", { id: "complaint-outcome" }, c.answer.outcome_label),
          h("dt", {}, t("complaints.answered")), h("dd", {}, dateTime(c.answer.answered_at)),
          c.answer.remedy_amount ? [h("dt", {}, t("complaints.credited")), h("dd", { id: "complaint-credited" }, money(c.answer.remedy_amount))] : null,
          c.answer.remedy_text ? [h("dt", {}, t("complaints.remedy_given")), h("dd", {}, c.answer.remedy_text)] : null),
        h("p.prose", { id: "complaint-answer-text" }, c.answer.text)) : h("p.small", {}, t("complaints.no_answer_yet"))));
  }
  node.append(section(t("complaints.title"), complaints.length
    ? table([t("complaints.reference"), t("complaints.received"), t("complaints.status"), t("complaints.due")],
      complaints.map((c) => [h("a", { href: `#/complaints?ref=${c.reference}` }, c.reference), dateTime(c.received_at), c.status_label, date(c.respond_by_date)]))
    : h("p", {}, t("complaints.none"))));
  node.append(section(t("complaints.new"), h("p.small", {}, t("complaints.intro")), form));
  return node;
}
