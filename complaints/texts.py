"""What the player and the staff read about a complaint, in Czech and English.

E-mails carry both languages (the player's language first). The same texts are returned by the API, so what the
player reads in the app and in the e-mail is identical.
"""

from __future__ import annotations

from datetime import date, datetime

from django.conf import settings

from core.clock import local
from core.money import Money

COI_URL = "https://adr.coi.cz"

COI_NOTICE = {
    "cs": (
        "Pokud s vyřízením reklamace nesouhlasíte, máte právo obrátit se na Českou obchodní inspekci (ČOI), "
        "která je subjektem mimosoudního řešení spotřebitelských sporů: "
        f"{COI_URL} (herní plán čl. 11 odst. 8)."
    ),
    "en": (
        "If you disagree with how your complaint was resolved, you may turn to the Czech Trade Inspection "
        "Authority (ČOI), the body for out-of-court resolution of consumer disputes: "
        f"{COI_URL} (game plan §11(8))."
    ),
}

REASONS = {
    "game_result": ("výsledek herního kola nebo porucha hry", "game round result or malfunction"),
    "win_not_credited": ("nepřipsaná výhra (uplatnění nároku na výhru)", "win not credited (win claim)"),
    "deposit": ("vklad", "deposit"),
    "withdrawal": ("výběr", "withdrawal"),
    "balance": ("pohyb na účtu nebo zůstatek", "account movement or balance"),
    "limits": ("sebeomezující opatření, přestávky, vyloučení", "self-limits, breaks, exclusion"),
    "account": ("registrace, přihlášení, stav účtu", "registration, login, account state"),
    "personal_data": ("osobní údaje (herní plán čl. 12 odst. 7)", "personal data (game plan §12(7))"),
    "other": ("jiné", "other"),
}

OUTCOMES = {
    "upheld": ("uznána", "upheld"),
    "partly_upheld": ("uznána částečně", "partly upheld"),
    "rejected": ("zamítnuta", "rejected"),
    "not_justified_rules": (
        "neoprávněná – nepochopení pravidel nebo terminologie (herní plán čl. 11 odst. 3)",
        "not justified – misunderstanding of the rules or terminology (game plan §11(3))",
    ),
    "not_justified_late": (
        "neoprávněná – podána po lhůtě (herní plán čl. 11 odst. 3)",
        "not justified – filed late (game plan §11(3))",
    ),
}

STATUSES = {
    "new": ("přijata", "received"),
    "assigned": ("přidělena k šetření", "assigned"),
    "investigating": ("v šetření", "under investigation"),
    "waiting_player": ("čeká na Vaše doplnění", "waiting for your reply"),
    "resolved": ("vyřízena", "resolved"),
}

CHANNELS = {
    "api": ("aplikace / web", "app / web"),
    "email": ("e-mail", "e-mail"),
    "branch": ("pobočka", "branch"),
    "post": ("pošta", "post"),
}

STANDARD_REASONS = {
    "not_justified_rules": (
        "Reklamace se týká nepochopení pravidel hry nebo použité terminologie. Podle čl. 11 odst. 3 herního plánu "
        "je taková reklamace neoprávněná.",
        "The complaint concerns a misunderstanding of the game's rules or terminology. Under §11(3) of the game "
        "plan such a complaint is not justified.",
    ),
}


def _i(lang: str) -> int:
    return 1 if lang == "en" else 0


def label(table: dict, key: str, lang: str) -> str:
    pair = table.get(key)
    return pair[_i(lang)] if pair else key


def fmt_date(d: date | datetime, lang: str) -> str:
    if isinstance(d, datetime):
        d = local(d).date()
    return d.isoformat() if lang == "en" else f"{d.day}. {d.month}. {d.year}"


def fmt_datetime(dt: datetime, lang: str) -> str:
    t = local(dt)
    return (
        f"{fmt_date(t.date(), lang)} {t:%H:%M} (Europe/Prague)"
        if lang == "en"
        else f"{fmt_date(t.date(), lang)} {t:%H:%M} (čas v Praze)"
    )


def money(amount: int | None, currency: str, lang: str) -> str:
    return Money(amount, currency).format(lang) if amount is not None else ""


def both(builder, primary: str, **kwargs) -> tuple[str, str, dict]:
    """(subject, body in both languages, {"cs": body_cs, "en": body_en}); ``primary`` language first."""
    cs_subject, cs_body = builder("cs", **kwargs)
    en_subject, en_body = builder("en", **kwargs)
    texts = {"cs": cs_body, "en": en_body}
    if primary == "en":
        return f"{en_subject} / {cs_subject}", f"{en_body}\n\n----- Česky -----\n\n{cs_body}", texts
    return f"{cs_subject} / {en_subject}", f"{cs_body}\n\n----- In English -----\n\n{en_body}", texts


# --- the player ---------------------------------------------------------------------------------------------------
def next_steps(c, lang: str) -> list[str]:
    if c.late or c.status == "resolved":
        steps = (
            [f"The answer to complaint {c.reference} is in the app under Complaints and in a separate e-mail."]
            if lang == "en"
            else [f"Odpověď na reklamaci {c.reference} najdete v aplikaci v části Reklamace a v samostatném e-mailu."]
        )
    elif lang == "en":
        steps = [
            f"You can follow the status and read the answer in the app under Complaints, reference {c.reference}.",
            "You can add information or attachments there until the complaint is resolved; quote the reference "
            "when you write to us.",
            f"We will tell you the result by {fmt_date(c.respond_by_date, lang)} at the latest.",
        ]
    else:
        steps = [
            f"Stav reklamace a odpověď najdete v aplikaci v části Reklamace pod číslem {c.reference}.",
            "Do vyřízení tam můžete doplnit informace nebo přílohy; v korespondenci vždy uveďte číslo reklamace.",
            f"Výsledek šetření Vám oznámíme nejpozději do {fmt_date(c.respond_by_date, lang)}.",
        ]
    steps.append(COI_NOTICE[lang])
    return steps


def _items(c, lang: str) -> list[str]:
    rounds = [i.object_id for i in c.items.all() if i.kind == "round"]
    txns = [i.object_id for i in c.items.all() if i.kind == "transaction"]
    out = []
    if rounds:
        out.append(("Game rounds: " if lang == "en" else "Herní kola: ") + ", ".join(rounds))
    if txns:
        out.append(("Transactions: " if lang == "en" else "Transakce: ") + ", ".join(txns))
    return out


def confirmation(lang: str, *, c) -> tuple[str, str]:
    """GP §11(4): confirmation of receipt with the legal particulars."""
    username = c.player.user.get_username()
    window = (
        (
            "1 year from the bet's settlement (game plan §10(2))"
            if c.kind == "win_claim"
            else "6 months from the event (game plan §11(1))"
        )
        if lang == "en"
        else (
            "1 rok od vypořádání sázky (herní plán čl. 10 odst. 2)"
            if c.kind == "win_claim"
            else "6 měsíců od události (herní plán čl. 11 odst. 1)"
        )
    )
    remedy = c.remedy_requested or "-"
    if c.remedy_amount_requested:
        remedy = f"{remedy} ({money(c.remedy_amount_requested, c.currency, lang)})"
    n_att = c.attachments.count()
    if lang == "en":
        subject = f"Complaint {c.reference} received"
        lines = [
            f"We confirm that we received your complaint on {fmt_date(c.received_at, lang)} (game plan §11(4)).",
            "",
            f"Reference number: {c.reference}",
            f"Participant (username): {username}",
            f"Type: {'win claim' if c.kind == 'win_claim' else 'complaint'}",
            f"Received: {fmt_datetime(c.received_at, lang)}, channel: {label(CHANNELS, c.channel, lang)}",
            f"Time of the bet or event: {fmt_datetime(c.event_at, lang)}",
            f"Reason: {label(REASONS, c.reason, lang)}",
            f"Your description: {c.description}",
            f"Remedy wanted: {remedy}",
            *_items(c, lang),
            f"Attachments: {n_att}",
            f"Answer due by: {fmt_date(c.respond_by_date, lang)} (30 days from filing, game plan §11(1))",
        ]
        if c.late:
            lines += [
                "",
                f"The complaint was received after the term of {window}, which ended on "
                f"{fmt_date(c.filing_deadline, lang)}. Under §11(3) of the game plan it is therefore not "
                "justified; we are sending you the answer at the same time.",
            ]
        lines += ["", "What you can do next:", *[f"- {s}" for s in next_steps(c, lang)]]
    else:
        subject = f"Reklamace {c.reference} přijata"
        lines = [
            f"Potvrzujeme, že jsme dne {fmt_date(c.received_at, lang)} přijali Vaši reklamaci "
            "(herní plán čl. 11 odst. 4).",
            "",
            f"Číslo reklamace: {c.reference}",
            f"Účastník (uživatelské jméno): {username}",
            f"Druh: {'uplatnění nároku na výhru' if c.kind == 'win_claim' else 'reklamace'}",
            f"Přijato: {fmt_datetime(c.received_at, lang)}, způsob podání: {label(CHANNELS, c.channel, lang)}",
            f"Čas sázky nebo události: {fmt_datetime(c.event_at, lang)}",
            f"Důvod: {label(REASONS, c.reason, lang)}",
            f"Váš popis: {c.description}",
            f"Požadovaná náprava: {remedy}",
            *_items(c, lang),
            f"Přílohy: {n_att}",
            f"Vyřízení nejpozději do: {fmt_date(c.respond_by_date, lang)} (30 dní od podání, herní plán čl. 11 "
            "odst. 1)",
        ]
        if c.late:
            lines += [
                "",
                f"Reklamace byla podána po uplynutí lhůty {window}, která skončila dne "
                f"{fmt_date(c.filing_deadline, lang)}. Podle čl. 11 odst. 3 herního plánu je proto "
                "neoprávněná; odpověď Vám zasíláme současně.",
            ]
        lines += ["", "Co můžete dělat dál:", *[f"- {s}" for s in next_steps(c, lang)]]
    return subject, "\n".join(lines)


def late_answer(lang: str, *, c) -> str:
    """The automatic answer to a late filing (GP §11(3)), with the reason."""
    if lang == "en":
        what = "the bet's settlement" if c.kind == "win_claim" else "the event"
        term = "1 year (game plan §10(2))" if c.kind == "win_claim" else "6 months (game plan §11(1))"
        return (
            f"Your complaint was received on {fmt_date(c.received_at, lang)}. The term for it is {term} from "
            f"{what} ({fmt_date(c.event_at, lang)}) and ended on {fmt_date(c.filing_deadline, lang)}. "
            "A complaint filed late is not justified under §11(3) of the game plan, so it cannot be upheld."
        )
    what = "vypořádání sázky" if c.kind == "win_claim" else "události"
    term = "1 rok (herní plán čl. 10 odst. 2)" if c.kind == "win_claim" else "6 měsíců (herní plán čl. 11 odst. 1)"
    return (
        f"Vaši reklamaci jsme přijali dne {fmt_date(c.received_at, lang)}. Lhůta k jejímu podání činí {term} od "
        f"{what} ({fmt_date(c.event_at, lang)}) a uplynula dne {fmt_date(c.filing_deadline, lang)}. "
        "Reklamace podaná po lhůtě je podle čl. 11 odst. 3 herního plánu neoprávněná, a nelze jí proto vyhovět."
    )


def answer_text(c, lang: str) -> str:
    """The answer the player reads (API and e-mail): staff's explanation in the language asked for (or the other
    one when only one was written), the remedy, and the ČOI notice (GP §11(8))."""
    own = c.answer_en if lang == "en" else c.answer_cs
    return own or c.answer_cs or c.answer_en


def remedy_lines(c, lang: str) -> list[str]:
    out = []
    if c.remedy_amount:
        amount = money(c.remedy_amount, c.currency, lang)
        out.append(
            f"Remedy: {amount} credited to your player account."
            if lang == "en"
            else f"Náprava: na Váš herní účet jsme připsali {amount}."
        )
    if c.remedy_text:
        out.append(("Other remedy: " if lang == "en" else "Další náprava: ") + c.remedy_text)
    return out


def answer(lang: str, *, c) -> tuple[str, str]:
    outcome = label(OUTCOMES, c.outcome, lang)
    if lang == "en":
        subject = f"Complaint {c.reference}: resolved"
        lines = [
            f"Your complaint {c.reference} received on {fmt_date(c.received_at, lang)} has been resolved.",
            f"Result: the complaint is {outcome}.",
            "",
        ]
    else:
        subject = f"Reklamace {c.reference}: vyřízena"
        lines = [
            f"Vaše reklamace {c.reference} přijatá dne {fmt_date(c.received_at, lang)} byla vyřízena.",
            f"Výsledek: reklamace je {outcome}.",
            "",
        ]
    lines.append(answer_text(c, lang))
    extra = remedy_lines(c, lang)
    if extra:
        lines += ["", *extra]
    lines += ["", COI_NOTICE[lang]]
    return subject, "\n".join(lines)


def info_request(lang: str, *, c, text: str) -> tuple[str, str]:
    if lang == "en":
        return (
            f"Complaint {c.reference}: we need more information",
            f"To investigate your complaint {c.reference} we need more information from you:\n\n{text}\n\n"
            "Please reply in the app under Complaints. The answer remains due by "
            f"{fmt_date(c.respond_by_date, lang)}.",
        )
    return (
        f"Reklamace {c.reference}: potřebujeme doplnění",
        f"K prošetření Vaší reklamace {c.reference} od Vás potřebujeme doplnění:\n\n{text}\n\n"
        f"Odpovězte prosím v aplikaci v části Reklamace. Lhůta k vyřízení ({fmt_date(c.respond_by_date, lang)}) "
        "se tím nemění.",
    )


# --- the staff ----------------------------------------------------------------------------------------------------
def _staff_link(c) -> str:
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    return f"{base}/admin/complaints/complaint/{c.pk}/change/"


def staff_assigned(lang: str, *, c) -> tuple[str, str]:
    if lang == "en":
        return (
            f"Complaint {c.reference} assigned to you",
            f"Complaint {c.reference} ({label(REASONS, c.reason, lang)}) is assigned to you. "
            f"Answer due by {fmt_date(c.respond_by_date, lang)}.\n{_staff_link(c)}",
        )
    return (
        f"Reklamace {c.reference} Vám byla přidělena",
        f"Reklamace {c.reference} ({label(REASONS, c.reason, lang)}) Vám byla přidělena. "
        f"Vyřídit do {fmt_date(c.respond_by_date, lang)}.\n{_staff_link(c)}",
    )


def staff_reminder(lang: str, *, c, day: int) -> tuple[str, str]:
    who = c.assignee.get_username() if c.assignee else ("nobody" if lang == "en" else "nikomu")
    status = label(STATUSES, c.status, lang)
    if lang == "en":
        return (
            f"Reminder (day {day}): complaint {c.reference} due {fmt_date(c.respond_by_date, lang)}",
            f"Complaint {c.reference} received on {fmt_date(c.received_at, lang)} is still open "
            f"(status: {status}, assigned to: {who}). The answer is due by {fmt_date(c.respond_by_date, lang)} "
            f"(30 days, game plan §11(1)).\n{_staff_link(c)}",
        )
    return (
        f"Připomínka ({day}. den): reklamace {c.reference} do {fmt_date(c.respond_by_date, lang)}",
        f"Reklamace {c.reference} přijatá dne {fmt_date(c.received_at, lang)} je stále otevřená "
        f"(stav: {status}, přidělena: {who}). Vyřídit ji je třeba do {fmt_date(c.respond_by_date, lang)} "
        f"(30 dní, herní plán čl. 11 odst. 1).\n{_staff_link(c)}",
    )


def staff_overdue(lang: str, *, c) -> tuple[str, str]:
    who = c.assignee.get_username() if c.assignee else ("nobody" if lang == "en" else "nikomu")
    if lang == "en":
        return (
            f"OVERDUE: complaint {c.reference} (due {fmt_date(c.respond_by_date, lang)})",
            f"Complaint {c.reference} received on {fmt_date(c.received_at, lang)} was not answered within 30 "
            f"days (due {fmt_date(c.respond_by_date, lang)}, game plan §11(1)). Assigned to: {who}. "
            f"It is flagged as overdue; answer it without delay.\n{_staff_link(c)}",
        )
    return (
        f"PO LHŮTĚ: reklamace {c.reference} (lhůta {fmt_date(c.respond_by_date, lang)})",
        f"Reklamace {c.reference} přijatá dne {fmt_date(c.received_at, lang)} nebyla vyřízena do 30 dní "
        f"(lhůta {fmt_date(c.respond_by_date, lang)}, herní plán čl. 11 odst. 1). Přidělena: {who}. "
        f"Je označena jako po lhůtě; vyřiďte ji neprodleně.\n{_staff_link(c)}",
    )
