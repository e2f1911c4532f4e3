// Self-limits (GP §6) with their unit: amounts typed in CZK and sent as Money, minutes and counts as numbers; a
// loosening waits (GP §6(4)) and is shown as pending; the history; the 120/15-minute play time and break
// (GP §7(4)-(5)); the panic button (48 hours without gambling).
import { all, get, money as moneyOf, post, put, session } from "../api.js";
import { dateTime, duration, t } from "../i18n.js";
import { act, czk, field, h, notice, parseCzk, section, table, values } from "../ui.js";

const show = (unit, value) => (value === null || value === undefined ? t("limits.none")
  : typeof value === "object" ? value.formatted
  : unit === "CZK_minor" ? czk(value) : unit === "minutes" ? t("limits.minutes", { n: value }) : String(value));

function toValue(unit, text) {
  if (unit === "CZK_minor") { const m = parseCzk(text); return m === null ? undefined : moneyOf(m); }
  return /^\d{1,6}$/.test(text) ? Number(text) : undefined;
}

export async function render({ go }) {
  const [limits, history, status] = await Promise.all([all("/limits/self-limits", { kind: "technical" }),
    all("/limits/self-limits/history", { kind: "technical" }), get("/limits/play-status", { kind: "technical" })]);
  const rows = limits.map((l) => {
    const form = h("form.inline", { dataset: { limit: l.limit_type } },
      h("input", { name: "value", "aria-label": t(`limit.${l.limit_type}`), inputmode: "decimal", size: 7, placeholder: t(`unit.${l.unit}`) }),
      h("button", { type: "submit", name: "set" }, t("limits.set")),
      h("button.secondary", { type: "submit", name: "decline" }, t("limits.decline")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const declining = e.submitter.name === "decline";
      act(e.submitter, async () => {
        const value = declining ? null : toValue(l.unit, values(form).value);
        if (value === undefined) { notice(t("limits.value_invalid", { unit: t(`unit.${l.unit}`) })); return; }
        const r = await put(`/limits/self-limits/technical/${l.limit_type}`, { value });
        notice(r.pending ? t("limits.pending_saved", { at: dateTime(r.pending_effective_at) }) : t("limits.saved"), "ok");
        go(`limits?t=${Date.now()}`);
      });
    });
    return h("article.limit", { dataset: { limitCard: l.limit_type } }, h("h3", {}, t(`limit.${l.limit_type}`)),
      h("dl.figures", {},
        h("dt", {}, t("limits.unit")), h("dd", { class: "unit" }, t(`unit.${l.unit}`)),
        h("dt", {}, t("limits.value")), h("dd", { dataset: { value: l.limit_type } }, l.decided ? show(l.unit, l.value) : t("limits.undecided")),
        h("dt", {}, t("limits.used")), h("dd", {}, l.used !== null && l.used !== undefined ? show(l.unit, l.used) : "–"),
        l.pending ? [h("dt", {}, t("limits.pending_h")), h("dd.warn", {}, t("limits.pending", { value: show(l.unit, l.pending_value), at: dateTime(l.pending_effective_at) }))] : null),
      form);
  });
  const node = h("div");
  node.append(section(t("limits.title"), h("p", {}, t("limits.intro")),
    h("div.limits", {}, rows)));
  node.append(playStatus(status));
  node.append(panic(go));
  node.append(section(t("limits.history"), history.length ? table([t("wallet.when"), t("limits.limit"), t("limits.action"), t("limits.old"), t("limits.new"), t("limits.from")],
    history.map((x) => {
      const unit = limits.find((l) => l.limit_type === x.limit_type)?.unit;
      return [dateTime(x.requested_at), t(`limit.${x.limit_type}`), t(`action.${x.action}`), show(unit, x.old_value), show(unit, x.new_value), dateTime(x.effective_from)];
    })) : h("p", {}, t("limits.no_history"))));
  node.lastChild.id = "limit-history";
  return node;
}

export function playStatus(s) {
  return section(t("play.title"), h("p", { id: "play-status" },
    s.break_required ? h("span.warn", {}, t("play.break", { at: dateTime(s.break_ends_at) }))
      : s.applies ? t("play.left", { left: duration(s.play_seconds_left), limit: s.play_limit_minutes, pause: s.break_minutes })
        : t("play.not_applied")));
}

function panic(go) {
  const confirmBox = h("p.row", { hidden: true },
    h("strong", {}, t("panic.sure")),
    h("button.danger", { type: "button", id: "panic-confirm", onclick: (e) => act(e.currentTarget, async () => {
      const r = await post("/limits/panic");
      session.token = null;
      go("login");
      notice(t("panic.done", { at: dateTime(r.ends_at) }), "ok");
    }) }, t("panic.confirm")));
  const b = h("button.danger", { type: "button", id: "panic", onclick: () => { confirmBox.hidden = false; } }, t("panic.button"));
  return section(t("panic.title"), h("p", {}, t("panic.intro")), b, confirmBox);
}
