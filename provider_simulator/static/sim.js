// The provider simulator's game page: one Spin button over POST /spin (same origin, no inline code, no CDN).
const game = document.getElementById("game");
if (game) {
  const sid = game.dataset.sid;
  const lang = game.dataset.lang === "en" ? "en" : "cs";
  const T = {
    cs: { win: "Výhra", lost: "Bez výhry", refused: "Platforma odmítla", voided: "Kolo zrušeno, sázka vrácena", error: "Chyba" },
    en: { win: "Win", lost: "No win", refused: "The platform refused", voided: "Round cancelled, stake returned", error: "Error" },
  }[lang];
  const button = document.getElementById("spin");
  const result = document.getElementById("result");
  const balance = document.getElementById("balance");
  const czk = (h) => (h / 100).toFixed(2) + " CZK";
  // The platform starts rounds at least 2 s apart (GP §7(9)) and refuses one sooner: like the platform's own client,
  // the button waits 2.2 s from the start of the last spin, so normal play never meets that refusal.
  const GAP_MS = 2200;
  let lastStart = 0;
  button.addEventListener("click", async () => {
    button.disabled = true;
    lastStart = Date.now();
    result.className = "";
    try {
      const stake = Number(document.getElementById("stake").value);
      const answer = await fetch("/spin", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Sim-Session": sid },
        body: JSON.stringify({ stake }),
      });
      const data = await answer.json();
      if (!answer.ok) {
        result.textContent = `${T.error}: ${data.error || answer.status}`;
        result.className = "refused";
        return;
      }
      if (data.balance_text) balance.textContent = data.balance_text;
      if (data.spin) {
        data.spin.window.forEach((row, r) => row.forEach((symbol, c) => {
          document.getElementById(`cell-${r}-${c}`).textContent = symbol;
        }));
      }
      if (data.refused) {
        result.textContent = `${T.refused}: ${data.refused.message}`;
        result.className = "refused";
      } else if (data.voided) {
        result.textContent = T.voided;
      } else if (data.spin) {
        result.textContent = data.spin.win > 0 ? `${T.win} ${czk(data.spin.win)}` : T.lost;
      }
    } catch (e) {
      result.textContent = `${T.error}: ${e}`;
      result.className = "refused";
    } finally {
      setTimeout(() => { button.disabled = false; }, Math.max(0, lastStart + GAP_MS - Date.now()));
    }
  });
}
