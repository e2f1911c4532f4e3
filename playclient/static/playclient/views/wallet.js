// Payment methods (GP §5(6)-(8)) and deposits through the sandbox provider's payment page, the balance and the
// temporary account's deposit cap (GP §5(2)b).
import { all, call, get, money as moneyOf, newKey, post } from "../api.js";
import { dateTime, t } from "../i18n.js";
import { act, field, h, money, notice, parseCzk, section, table, values } from "../ui.js";

export async function render({ refreshBalance }) {
  const [overview, methods, deposits, withdrawals] = await Promise.all([get("/wallet/overview"), all("/wallet/payment-methods"),
    all("/wallet/deposits"), all("/wallet/withdrawals")]);
  const cap = overview.temporary_deposits;
  const usable = methods.filter((m) => !["refused", "cancelled", "removed"].includes(m.status));
  const node = h("div");
  node.append(section(t("wallet.title"), h("dl.figures", {},
    h("dt", {}, t("wallet.balance")), h("dd", { id: "wallet-balance" }, money(overview.balance)),
    h("dt", {}, t("wallet.held")), h("dd", {}, money(overview.held)),
    overview.held_in_games?.amount ? [h("dt", {}, t("wallet.held_in_games")), h("dd", { id: "wallet-held-in-games" }, money(overview.held_in_games))] : null,
    overview.debt?.amount ? [h("dt", {}, t("wallet.debt")), h("dd", {}, money(overview.debt))] : null,
    cap ? [h("dt", {}, t("wallet.cap")), h("dd", { id: "wallet-cap" }, t("wallet.cap_value", { remaining: money(cap.remaining), cap: money(cap.cap) }))] : null),
  overview.payment_method && !overview.payment_method.has_verified && overview.payment_method.deadline
    ? h("p.warn", {}, t("wallet.method_deadline", { at: dateTime(overview.payment_method.deadline) })) : null));

  const addForm = h("form.row", { id: "method-form" },
    field("account_number", t("wallet.account_number"), { required: true, placeholder: "19-2000145399/0800" }),
    h("button", { type: "submit" }, t("wallet.add_method")));
  addForm.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      await post("/wallet/payment-methods", { kind: "bank_account", account_number: values(addForm).account_number });
      notice(t("wallet.method_added"), "ok");
      node.replaceWith(await render({ refreshBalance }));
    });
  });
  node.append(section(t("wallet.methods"),
    methods.length ? table([t("wallet.method"), t("wallet.status")], methods.map((m) => [m.display || m.iban, t(`method.${m.status}`)])) : h("p", {}, t("wallet.no_methods")),
    addForm));

  const depForm = h("form.row", { id: "deposit-form" },
    field("method_id", t("wallet.method"), { options: usable.map((m) => [m.id, m.display || m.iban]) }),
    field("amount", t("wallet.amount_czk"), { required: true, inputmode: "decimal", placeholder: "500" }),
    h("button", { type: "submit", disabled: !usable.length }, t("wallet.deposit")));
  const key = { value: newKey() }; // one deposit = one key, reused if the player presses again after an error
  depForm.addEventListener("input", () => { key.value = newKey(); });
  depForm.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(depForm);
      const minor = parseCzk(v.amount);
      if (minor === null) { notice(t("wallet.amount_invalid")); return; }
      const d = await post("/wallet/deposits", { method_id: Number(v.method_id), amount: moneyOf(minor) }, { key: key.value });
      key.value = newKey();
      node.replaceWith(await payPage(d, refreshBalance));
    });
  });
  node.append(section(t("wallet.deposit"), depForm,
    deposits.length ? table([t("wallet.when"), t("wallet.amount"), t("wallet.status"), ""], deposits.map((d) => [dateTime(d.created_at), money(d.amount), t(`deposit.${d.status}`),
      d.status === "initiated" ? h("button.link", { type: "button", onclick: async () => node.replaceWith(await payPage(d, refreshBalance)) }, t("wallet.pay")) : ""])) : null));
  node.append(withdrawalSection(methods, withdrawals, async () => { node.replaceWith(await render({ refreshBalance })); refreshBalance(); }));
  return node;
}

// Withdrawals: to a verified payment account of the player (GP §5(6)); a request waiting for staff approval can be
// cancelled (the money returns to the balance at once); each shows its state.
function withdrawalSection(methods, withdrawals, reload) {
  const verified = methods.filter((m) => m.status === "verified");
  const form = h("form.row", { id: "withdrawal-form" },
    field("method_id", t("wallet.method"), { options: verified.map((m) => [m.id, m.display || m.iban]) }),
    field("amount", t("wallet.amount_czk"), { required: true, inputmode: "decimal", placeholder: "500" }),
    h("button", { type: "submit", id: "withdrawal-submit", disabled: !verified.length }, t("withdraw.submit")));
  const key = { value: newKey() };
  form.addEventListener("input", () => { key.value = newKey(); });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(e.submitter, async () => {
      const v = values(form);
      const minor = parseCzk(v.amount);
      if (minor === null) { notice(t("wallet.amount_invalid")); return; }
      const w = await post("/wallet/withdrawals", { method_id: Number(v.method_id), amount: moneyOf(minor) }, { key: key.value });
      key.value = newKey();
      await reload();
      notice(t("withdraw.requested", { amount: money(w.amount), status: t(`withdrawal.${w.status}`) }), "ok");
    });
  });
  const cancel = (w) => {
    const b = h("button.link", { type: "button", class: "withdrawal-cancel", dataset: { id: w.id } }, t("withdraw.cancel"));
    const key = newKey();
    b.addEventListener("click", () => act(b, async () => {
      await post(`/wallet/withdrawals/${w.id}/cancel`, {}, { key });
      await reload();
      notice(t("withdraw.cancelled", { amount: money(w.amount) }), "ok");
    }));
    return b;
  };
  return section(t("withdraw.title"),
    verified.length ? h("p.small", {}, t("withdraw.intro")) : h("p.warn", {}, t("withdraw.no_verified")),
    form,
    withdrawals.length ? h("div", { id: "withdrawal-list" }, table([t("wallet.when"), t("wallet.amount"), t("wallet.status"), ""],
      withdrawals.map((w) => [dateTime(w.requested_at), money(w.amount), h("span.withdrawal-status", {}, t(`withdrawal.${w.status}`)),
        w.status === "requested" ? cancel(w) : ""]))) : h("p", {}, t("withdraw.none")));
}

// The sandbox provider's payment page: the bank transfer's instructions and the two answers a bank can give.
async function payPage(deposit, refreshBalance) {
  const i = deposit.instructions || {};
  const payUrl = i.sandbox_pay_url || deposit.redirect_url || "";
  const path = payUrl ? new URL(payUrl, location.href).pathname.replace(/^\/api\/v1/, "") : null;
  const status = h("p", { id: "deposit-status" }, t(`deposit.${deposit.status}`));
  const pay = (outcome) => {
    const b = h("button", { type: "button", id: `pay-${outcome}`, class: outcome === "failed" ? "secondary" : null }, t(`pay.${outcome}`));
    const key = newKey();
    b.addEventListener("click", () => act(b, async () => {
      await call("POST", path, { body: { outcome }, key });
      for (let n = 0; n < 20; n += 1) { // the provider's signed callback confirms it
        const d = await get(`/wallet/deposits/${deposit.id}`);
        status.textContent = t(`deposit.${d.status}`);
        if (d.status !== "initiated") break;
        await new Promise((r) => setTimeout(r, 500));
      }
      refreshBalance();
    }));
    return b;
  };
  return section(t("pay.title"), h("p.small", {}, t("pay.sandbox")),
    h("dl.figures", {}, [["pay.amount", money(deposit.amount)], ["pay.account", i.account_number], ["pay.iban", i.iban],
      ["pay.vs", i.variable_symbol || deposit.payment_reference]].filter(([, v]) => v).map(([k, v]) => [h("dt", {}, t(k)), h("dd", {}, v)])),
    status, path ? h("p.row", {}, pay("succeeded"), pay("failed")) : null, h("p", {}, h("a", { href: "#/wallet" }, t("pay.back"))));
}
