// The lobby (each game's declared RTP and maximum hourly loss, GP §7(2)) and two games playable to the end:
// European roulette and Kobushi (free spins and the pick bonus through /rounds/{id}/actions). GP §7(9): rounds
// start at least 2 s apart, measured start to start by the server; the spin button waits 2.2 s after the answer.
import { all, get, money as moneyOf, newKey, post, session } from "../api.js";
import { language, percent, pick, t } from "../i18n.js";
import { act, czk, field, h, money, notice, parseCzk, roundAmount, section, values } from "../ui.js";

export const ROUND_GAP_MS = 2200;
let lastRoundAt = 0; // when the answer to the last round start came (never earlier than the server's start)

const name = (g) => (language() === "cs" ? g.name_cs || g.name : g.name);
const PLAYABLE = { roulette, slot };
// the games this client is built and tested for: roulette, and Kobushi's lines x coins x coin value
const playable = (g) => g.kind === "roulette" || g.code === "kobushi";

export async function lobby() {
  const all_ = (await all("/games/catalogue")).filter((g) => g.enabled);
  // the lobby shows what this client plays (its own games and the studios'); the rest of the catalogue is named
  // below, marked as not playable here (another operator's client renders them through the same API)
  const games = all_.filter((g) => g.provider || playable(g));
  const others = all_.filter((g) => !(g.provider || playable(g)));
  return section(t("games.title"), h("p", {}, t("games.intro")), h("div.cards", { id: "lobby" }, games.map((g) =>
    h("article.game", { dataset: { game: g.code } }, h("h3", {}, name(g)),
      h("dl.figures", {}, h("dt", {}, t("games.rtp")), h("dd", { class: "rtp" }, percent(g.declared.rtp)),
        g.declared.rtp_with_jackpots ? [h("dt", {}, t("games.rtp_jackpots")), h("dd", {}, percent(g.declared.rtp_with_jackpots))] : null,
        h("dt", {}, t("games.bet")), h("dd", {}, `${money(g.declared.min_bet)} – ${money(g.declared.max_bet)}`),
        h("dt", {}, t("games.max_hourly_loss")), h("dd", { class: "max-hourly-loss" }, money(g.declared.max_hourly_loss))),
      !session.token ? h("p.small", {}, t("games.login_to_play"))
        : g.provider ? studioLaunch(g)
          : playable(g) ? h("a.button", { href: `#/game/${g.code}` }, t("games.play"))
            : h("p.small", {}, t("games.not_here"))))),
  others.length ? h("details", { id: "lobby-others" }, h("summary", {}, t("games.others", { n: others.length })),
    h("p.small", {}, t("games.not_here")), h("ul.small", {}, others.map((g) => h("li", { dataset: { game: g.code } },
      `${name(g)} · RTP ${percent(g.declared.rtp)}`)))) : null);
}

// A game of an outside studio (issue 23) runs on the studio's own server: the platform issues a single-use launch
// token for this player and game, and the browser goes to the studio's launch URL. Every bet and win the studio
// sends comes back through the platform's wallet under the same rules (limits, the 120/15 break, the caps).
function studioLaunch(g) {
  return h("button.button", {
    type: "button", dataset: { launch: g.code },
    onclick: (e) => act(e.currentTarget, async () => {
      const launch = await post(`/providers/${g.provider}/launch`, { game: g.code, lang: language() });
      window.location.assign(launch.launch_url);
    }),
  }, t("games.play_studio"));
}

export async function game({ arg, refreshBalance }) {
  const launch = await get(`/games/catalogue/${arg}`);
  const g = launch.game;
  const ui = playable(g) && PLAYABLE[g.kind];
  if (!ui) return section(name(g), h("p", {}, t("games.not_here")));
  const board = h("div.board", { id: "board" });
  const result = h("div.result", { id: "result", "aria-live": "polite" });
  const mode = h("label.check", {}, h("input", { type: "checkbox", id: "play-money" }), ` ${t("games.play_money")}`);
  // QA (development only: GAMES_QA_FORCED_OUTCOMES, play money only): the presets the server found for this game
  // version (forced draws that trigger a feature, and the bet they were found with), or draws typed by hand. The box
  // stays hidden where the server refuses forced outcomes (production).
  const draws = h("textarea", { id: "forced-draws", rows: 2, placeholder: "[[37, 17]]" });
  const presets = h("div.presets", { id: "qa-presets" });
  const chosen = h("p.small", { id: "qa-chosen", "aria-live": "polite" });
  const qa = h("details.qa", { id: "qa", hidden: true }, h("summary", {}, t("games.qa")),
    presets, chosen, h("label", { for: "forced-draws" }, t("games.qa_draws")), draws, h("p.small", {}, t("games.qa_hint")));
  let presetDraws = null; // the draws of the preset chosen: used once, by the next play-money round
  const spin = h("button.spin", { type: "button", id: "spin" }, t("games.spin"));
  const table = ui(g.description || {}, launch.last_bet, board);

  let waiting = false; // a round waits for the player's actions: no new round until it ends (GP §7(6))
  const show = (rnd) => {
    waiting = rnd.status === "in_progress";
    result.replaceChildren(roundView(rnd, g.kind, (next) => show(next)));
    if (!rnd.play_money) refreshBalance();
    pace();
  };
  const pace = () => {
    const wait = lastRoundAt + ROUND_GAP_MS - Date.now();
    spin.disabled = waiting || wait > 0;
    if (!waiting && wait > 0) setTimeout(pace, Math.min(wait, 250));
  };
  spin.addEventListener("click", () => act(spin, async () => {
    const bet = table.bet();
    if (!bet) return;
    const playMoney = document.getElementById("play-money").checked;
    const forced = draws.value.trim();
    const body = { game: g.code, bet };
    if (forced) body.forced_draws = JSON.parse(forced);
    const rnd = await post(playMoney ? "/games/play-money/rounds" : "/games/rounds", body, { key: newKey() });
    lastRoundAt = Date.now();
    if (presetDraws !== null && forced === presetDraws) { // a preset plays once; the next round is drawn as usual
      draws.value = "";
      presetDraws = null;
      chosen.textContent = "";
    }
    show(rnd);
  }).finally(pace));
  pace();
  const choose = (p) => {
    if (table.set) table.set(p.bet);
    document.getElementById("play-money").checked = true;
    draws.value = presetDraws = JSON.stringify(p.forced_draws);
    chosen.textContent = t("games.qa_preset_chosen", { feature: featureName(p.feature) });
  };
  if (session.token) get(`/games/play-money/presets/${g.code}`).then((answer) => {
    qa.hidden = false;
    qa.open = answer.presets.length > 0;
    presets.replaceChildren(answer.presets.length
      ? h("p.small", {}, t("games.qa_presets"))
      : h("p.small", {}, t("games.qa_presets_none")),
    h("div.options", {}, answer.presets.map((p) => h("button.secondary", {
      type: "button", class: "preset", dataset: { feature: p.feature }, onclick: () => choose(p),
    }, featureName(p.feature)))));
  }, (e) => {
    if (e.code === "game.qa_forced_outcomes_disabled" || e.status === 401 || e.status === 403) return; // no QA here
    qa.hidden = false; // forced draws may still be typed; the presets could not be had
    presets.replaceChildren(h("p.small", {}, t("games.qa_presets_none")));
  });
  if (launch.open_round && launch.open_round.game.code === g.code) show(launch.open_round);
  else if (g.kind === "slot") result.append(slotWindow({ window: null }));
  return section(name(g), h("p.small", {}, t("games.declared", { rtp: percent(g.declared.rtp), loss: money(g.declared.max_hourly_loss) })),
    board, h("div.row", {}, spin, mode), result, qa,
    h("details", {}, h("summary", {}, t("games.rules")), h("p.prose", {}, pick(g, "rules"))));
}

// A round as the server answered it; a waiting round shows its options, each one action (GP §7(8)). A step with
// exactly one option (a free spin) also offers "play all": one {"type": "play_through"} action plays every such
// step in one request; the answer's new steps are then shown one by one before the round itself.
function roundView(rnd, kind, onNext) {
  const last = (rnd.steps || []).findLast((s) => s.window || s.number !== undefined) || {}; // the last spin shown
  const node = h("div", { dataset: { round: rnd.id, status: rnd.status } },
    kind === "roulette" ? rouletteResult(last) : slotWindow(last),
    h("p", { class: "outcome" }, t("games.round", { id: rnd.id }), " · ", t("games.stake"), ": ", roundAmount(rnd, rnd.stake), " · ",
      h("strong", { class: "win" }, `${t("games.win")}: ${roundAmount(rnd, rnd.win)}`),
      rnd.play_money ? ` · ${t("games.play_money")}` : "", rnd.forced_outcome ? ` · ${t("games.forced")}` : ""));
  if (rnd.status === "in_progress" && rnd.pending) {
    const p = rnd.pending;
    const info = [p.spins_left !== undefined ? t("games.spins_left", { n: p.spins_left }) : null,
      p.multiplier ? `×${p.multiplier}` : null].filter(Boolean).join(" · ");
    const key = newKey(); // one key per action: pressing again after an error repeats the same action
    node.append(h("div.pending", { id: "pending" }, h("p", {}, h("strong", {}, t(`pending.${p.type}`)), info ? ` · ${info}` : ""),
      h("div.options", {}, (p.options || []).map((option, i) => h("button", {
        type: "button", class: "action", dataset: { action: option.type },
        onclick: (e) => act(e.currentTarget, async () => onNext(await post(`/games/rounds/${rnd.id}/actions`, { action: option }, { key: `${key}-${i}` }))),
      }, optionLabel(option))).concat((p.options || []).length === 1 ? [h("button", {
        type: "button", class: "action secondary", dataset: { action: "play_through" },
        onclick: (e) => act(e.currentTarget, async () => {
          const done = await post(`/games/rounds/${rnd.id}/actions`, { action: { type: "play_through" } }, { key: `${key}-all` });
          await showSteps(node, (done.steps || []).slice((rnd.steps || []).length));
          onNext(done);
        }),
      }, t("option.play_through"))] : []))));
  }
  return node;
}

// The spins a play-through played, one after another in the round's window.
async function showSteps(node, steps) {
  for (const step of steps.filter((s) => s.window)) {
    node.firstChild.replaceWith(slotWindow(step));
    await new Promise((resolve) => setTimeout(resolve, STEP_MS));
  }
}
const STEP_MS = 400;

// a feature's name in the player's language (the game's own code where the dictionary has none)
const featureName = (f) => { const text = t(`feature.${f}`); return text.startsWith("⟦") ? f : text; };

const optionLabel = (o) => [t(`option.${o.type}`), ...Object.entries(o).filter(([k]) => k !== "type").map(([k, v]) => `${k} ${v}`)].join(" ");

// --- European roulette ------------------------------------------------------------------------------------------
let betNames = {}; // roulette's bet types by code, in the current language (from the game's description)

function roulette(desc, lastBet, board) {
  const types = desc.bet_types || [];
  betNames = Object.fromEntries(types.map((x) => [x.type, language() === "cs" ? x.name_cs : x.name_en]));
  const chips = [];
  const list = h("ul.chips", { id: "chips" });
  const form = h("form.row", { id: "bet-form" },
    field("type", t("roulette.bet"), { options: types.map((x) => [x.type, `${language() === "cs" ? x.name_cs : x.name_en} (${x.payout})`]) }),
    h("span", { id: "numbers-slot" }),
    field("amount", t("roulette.amount"), { required: true, inputmode: "decimal", value: "10", size: 6 }),
    h("button.secondary", { type: "submit", id: "add-chip" }, t("roulette.add")));
  const numbers = () => {
    const bt = types.find((x) => x.type === form.elements.type.value);
    const slot = form.querySelector("#numbers-slot");
    const selector = bt && ["dozen", "column"].find((k) => bt.fields.includes(k)); // which dozen / column (1-3)
    slot.replaceChildren(bt && bt.fields.includes("numbers")
      ? field("numbers", t("roulette.numbers"), { options: bt.valid_numbers.map((n) => [n.join(","), n.join(", ")]) })
      : selector ? field(selector, t(`roulette.${selector}`), { options: [1, 2, 3].map((n) => [n, t(`roulette.${selector}_${n}`)]) }) : "");
  };
  form.elements.type.addEventListener("change", numbers);
  numbers();
  const redraw = () => list.replaceChildren(...chips.map((c, i) => h("li", {}, `${c.label}: ${czk(c.amount)} `,
    h("button.link", { type: "button", onclick: () => { chips.splice(i, 1); redraw(); } }, "✕"))));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = values(form);
    const amount = parseCzk(v.amount);
    if (amount === null) { notice(t("wallet.amount_invalid")); return; }
    const bt = types.find((x) => x.type === v.type);
    const pick = v.dozen ? { dozen: Number(v.dozen) } : v.column ? { column: Number(v.column) } : {};
    const which = v.dozen ? ` ${t(`roulette.dozen_${v.dozen}`)}` : v.column ? ` ${t(`roulette.column_${v.column}`)}` : "";
    chips.push({ type: v.type, numbers: v.numbers ? v.numbers.split(",").map(Number) : undefined, pick, amount,
      label: `${language() === "cs" ? bt.name_cs : bt.name_en}${v.numbers ? ` ${v.numbers}` : ""}${which}` });
    redraw();
  });
  for (const b of lastBet?.bets || []) { // the player's last bet again (GP §7: the game remembers it)
    const amount = typeof b.amount === "object" ? b.amount.amount : b.amount;
    const pick = b.dozen ? { dozen: b.dozen } : b.column ? { column: b.column } : {};
    const which = b.dozen ? ` ${t(`roulette.dozen_${b.dozen}`)}` : b.column ? ` ${t(`roulette.column_${b.column}`)}` : "";
    chips.push({ type: b.type, numbers: b.numbers, pick, amount, label: `${betNames[b.type] || b.type}${b.numbers ? ` ${b.numbers.join(",")}` : ""}${which}` });
  }
  redraw();
  board.append(form, list);
  return {
    bet() {
      if (!chips.length) { notice(t("roulette.no_chips")); return null; }
      return { bets: chips.map((c) => ({ type: c.type, ...(c.numbers ? { numbers: c.numbers } : {}), ...(c.pick || {}), amount: moneyOf(c.amount) })) };
    },
  };
}

function rouletteResult(step) {
  if (step.number === undefined) return h("div");
  return h("div.wheel", {}, h("span", { class: `pocket ${step.colour}`, id: "pocket" }, step.number),
    h("ul.small", {}, (step.bets || []).map((b) => h("li", {}, `${betNames[b.type] || b.type}${b.numbers ? ` ${b.numbers.join(",")}` : ""}: `,
      money(typeof b.amount === "object" ? b.amount : czk(b.amount)), " → ", money(typeof b.win === "object" ? b.win : czk(b.win))))));
}

// --- a line slot (Kobushi): lines x coins x coin value ----------------------------------------------------------
function slot(desc, lastBet, board) {
  const o = desc.bet_options || {};
  const [l0, l1] = o.lines || [1, 1];
  const [c0, c1] = o.coins || [1, 1];
  const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
  const minor = (v) => (v && typeof v === "object" ? v.amount : v); // a Money object in answers, haléře in bet_options
  const start = { ...(desc.default_bet || {}), ...(lastBet || {}) };
  start.coin_value = minor(start.coin_value);
  const form = h("form.row", { id: "bet-form" },
    field("lines", t("slot.lines"), { options: range(l0, l1).map((n) => [n, n]), value: start.lines }),
    field("coins", t("slot.coins"), { options: range(c0, c1).map((n) => [n, n]), value: start.coins }),
    field("coin_value", t("slot.coin_value"), { options: (o.coin_values || []).map((n) => [minor(n), czk(minor(n))]), value: start.coin_value }),
    h("output", { id: "total-bet" }));
  const bet = () => { const v = values(form); return { lines: Number(v.lines), coins: Number(v.coins), coin_value: moneyOf(Number(v.coin_value)) }; };
  const total = () => { const b = bet(); form.querySelector("#total-bet").textContent = `${t("slot.total")}: ${czk(b.lines * b.coins * b.coin_value.amount)}`; };
  form.addEventListener("change", total);
  total();
  board.append(form);
  // a bet as the API answers it (a QA preset's): the form shows it and the next round stakes it
  const set = (b) => {
    for (const k of ["lines", "coins", "coin_value"]) if (b[k] !== undefined) form.elements[k].value = String(minor(b[k]));
    total();
  };
  return { bet, set };
}

function slotWindow(step) {
  const reels = step.window || Array.from({ length: 5 }, () => ["·", "·", "·"]);
  const rows = reels[0].length;
  // Kobushi's line win is [line, symbol, count, win in haléře (free-spin multiplier applied), direction]
  const wins = (step.line_wins || []).filter(Array.isArray).map(([line, symbol, count, win]) =>
    t("slot.line_win", { line, symbol, count, win: czk(win) }));
  if (step.scatter?.win) wins.push(t("slot.scatter_win", { count: step.scatter.count, win: czk(step.scatter.win) }));
  return h("div.slot", {}, h("div.reels", { id: "reels" }, Array.from({ length: rows }, (_, r) =>
    reels.map((reel) => h("span", { class: `sym sym-${reel[r]}` }, short(reel[r]))))),
  step.mode ? h("p.small", {}, t(`mode.${step.mode}`), Number.isInteger(step.win) ? ` · ${t("games.win")} ${czk(step.win)}` : "", step.features?.length ? ` · ${step.features.map(featureName).join(", ")}` : "") : null,
  wins.length ? h("ul.small", {}, wins.map((w) => h("li", {}, w))) : null);
}

// short labels that fit five reels on a phone (the symbol's own colour comes from play.css: .sym-<CODE>)
const SHORT = { BIG_CAT: "CAT", KOBUSHI: "KOBU", SCATTER: "SCAT", LANTERN: "LANT", SAMURAI: "SAMU", GEISHA: "GEIS", TEMPLE: "TEMP" };
const short = (s) => SHORT[s] || s;
