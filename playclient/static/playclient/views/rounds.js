// The player's rounds (newest first) and their verification by replay with the game engine (GP §11(5)).
import { all, get } from "../api.js";
import { dateTime, language, t } from "../i18n.js";
import { act, h, roundAmount, section, table } from "../ui.js";

export async function render({ query }) {
  const playMoney = query.get("play_money") === "true";
  const rounds = await all("/games/rounds", { play_money: playMoney ? "true" : undefined });
  const rows = rounds.map((r) => {
    const remote = r.state && r.state.remote;
    let check;
    if (remote) { // a round of an outside studio's game (issue 23): the studio drew it, nothing to replay here
      check = h("span.small", { class: "remote", dataset: { round: r.id } },
        t("rounds.remote", { provider: remote.provider, round: remote.round_id, n: (remote.transactions || []).length }));
    } else {
      const out = h("span", { class: "verify", dataset: { round: r.id } });
      const b = h("button.secondary", { type: "button", class: "verify-button", dataset: { round: r.id } }, t("rounds.verify"));
      b.addEventListener("click", () => act(b, async () => {
        const v = await get(`/games/rounds/${r.id}/verify`);
        out.textContent = v.verified ? `✔ ${t("rounds.match")}` : `✘ ${v.outcome} ${v.detail || ""}`;
        out.className = v.verified ? "verify ok" : "verify warn";
      }));
      check = h("span", {}, b, " ", out);
    }
    return [`#${r.id}`, dateTime(r.started_at), language() === "cs" ? r.game.name_cs || r.game.name : r.game.name,
      t(`round.${r.status}`), roundAmount(r, r.stake), roundAmount(r, r.win), check,
      r.play_money ? "" : h("a", { href: `#/complaints?round=${r.id}` }, t("rounds.complain"))];
  });
  return section(t("rounds.title"),
    h("p.row", {}, h("a", { href: "#/rounds", class: playMoney ? null : "active" }, t("rounds.real")), " · ",
      h("a", { href: "#/rounds?play_money=true", class: playMoney ? "active" : null }, t("games.play_money"))),
    rows.length ? table(["", t("wallet.when"), t("rounds.game"), t("wallet.status"), t("games.stake"), t("games.win"), "", ""], rows, { cards: true })
      : h("p", {}, t("rounds.none")));
}
