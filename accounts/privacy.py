"""What the platform tells a participant about their personal data (GP §12): the purposes (GP §12(3)), how long the
data are kept (GP §12(5), from the retention settings), the rights (GP §12(7)) and the data-protection authority
(GP §12(7)e). Texts in Czech and English; no database. Served at ``GET /api/v1/accounts/privacy`` and quoted in the
answers to data requests (``accounts.services.privacy``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from accounts import privacy_contract, retention

# GP §12(7)e, GDPR art. 77: the supervisory authority (a real one; its contacts are on its website).
AUTHORITY = {
    "name_cs": "Úřad pro ochranu osobních údajů",
    "name_en": "Office for Personal Data Protection (Úřad pro ochranu osobních údajů)",
    "address": "Pplk. Sochora 27, 170 00 Praha 7",
    "web": "https://www.uoou.gov.cz",
}
AUTHORITY_NOTICE_CS = (
    "Nejste-li spokojeni s vyřízením své žádosti, nebo kdykoli přímo, máte právo obrátit se na dozorový úřad: "
    f"{AUTHORITY['name_cs']}, {AUTHORITY['address']}, www.uoou.gov.cz (HP §12 odst. 7 písm. e), čl. 77 GDPR)."
)
AUTHORITY_NOTICE_EN = (
    "If you are not satisfied with how your request was handled, or at any time, you may turn to the supervisory "
    f"authority: the {AUTHORITY['name_en']}, {AUTHORITY['address']}, Czech Republic, www.uoou.gov.cz (GP §12(7)e, "
    "GDPR art. 77)."
)

# What a blocking (GDPR art. 18) does and does not stop, stated plainly.
BLOCKING_EFFECT_CS = (
    "Po dobu blokování nepoužíváme vaše údaje k nabízení obchodu a služeb (marketing) ani k věrnostnímu programu. "
    "Zpracování, které ukládá zákon, pokračuje: účast na hře podle zákona o hazardních hrách (registrace, "
    "sebeomezující opatření, kontrola rejstříku vyloučených osob), povinnosti podle AML zákona a účetnictví."
)
BLOCKING_EFFECT_EN = (
    "While the blocking is in force we do not use your data for marketing or for the loyalty programme. The processing "
    "the law requires continues: participation under the Gambling Act (registration, self-limits, the register of "
    "excluded persons), the AML duties and accounting."
)

# GP §12(3): the purposes.
PURPOSES: list[dict[str, Any]] = [
    {
        "code": "participation",
        "mandatory": True,
        "basis_cs": "plnění právní povinnosti (zákon č. 186/2016 Sb., o hazardních hrách; povolení MF)",
        "basis_en": "legal obligation (Gambling Act 186/2016 Sb.; the Ministry of Finance licence)",
        "text_cs": "účast na hazardních hrách: registrace, ověření totožnosti a věku, sázky, limity, výplaty",
        "text_en": "participation in gambling: registration, identity and age checks, bets, limits, payouts",
    },
    {
        "code": "aml",
        "mandatory": True,
        "basis_cs": "plnění právní povinnosti (zákon č. 253/2008 Sb., AML)",
        "basis_en": "legal obligation (AML Act 253/2008 Sb.)",
        "text_cs": "identifikace a kontrola klienta a další povinnosti podle AML zákona",
        "text_en": "identification, customer due diligence and the other AML duties",
    },
    {
        "code": "marketing",
        "mandatory": False,
        "basis_cs": "souhlas (lze kdykoli odvolat; konto zůstává otevřené, HP §12 odst. 6)",
        "basis_en": "consent (may be withdrawn at any time; the account stays open, GP §12(6))",
        "text_cs": "nabízení obchodu a služeb",
        "text_en": "offering business and services (marketing)",
    },
    {
        "code": "loyalty",
        "mandatory": False,
        "basis_cs": "souhlas",
        "basis_en": "consent",
        "text_cs": "věrnostní program, soutěže a komunitní služby, účastní-li se jich účastník",
        "text_en": "the loyalty programme, competitions and community services for those who join them",
    },
]

# GP §12(7): the rights and where to use them.
RIGHTS: list[dict[str, str]] = [
    {
        "code": "access",
        "rule": "GP §12(7)a",
        "how": "GET /api/v1/accounts/me/export",
        "text_cs": "přístup ke svým údajům",
        "text_en": "access to your data",
    },
    {
        "code": "correction",
        "rule": "GP §12(7)a",
        "how": "POST /api/v1/accounts/me/corrections",
        "text_cs": "oprava a doplnění údajů",
        "text_en": "correction and completion of the data",
    },
    {
        "code": "explanation",
        "rule": "GP §12(7)b",
        "how": "POST /api/v1/accounts/me/data-requests kind=explanation",
        "text_cs": "vysvětlení, jak a proč údaje zpracováváme",
        "text_en": "an explanation of how and why we process them",
    },
    {
        "code": "blocking",
        "rule": "GP §12(7)b",
        "how": "POST /api/v1/accounts/me/data-requests kind=blocking",
        "text_cs": "blokování (omezení zpracování, čl. 18 GDPR)",
        "text_en": "blocking (restriction of processing, GDPR art. 18)",
    },
    {
        "code": "deletion",
        "rule": "GP §12(7)b",
        "how": "POST /api/v1/accounts/me/data-requests kind=deletion",
        "text_cs": "likvidace (výmaz, čl. 17 GDPR) v mezích zákonných lhůt uchování",
        "text_en": "deletion (erasure, GDPR art. 17) within the legal retention periods",
    },
    {
        "code": "consent_withdrawal",
        "rule": "GP §12(6)",
        "how": "POST /api/v1/accounts/me/consents/<kind>/withdraw/",
        "text_cs": "odvolání souhlasu (marketing kdykoli; povinné souhlasy ruší registraci)",
        "text_en": "withdrawing a consent (marketing at any time; the mandatory ones cancel the registration)",
    },
    {
        "code": "complaint",
        "rule": "GP §12(7)e",
        "how": AUTHORITY["web"],
        "text_cs": "stížnost u Úřadu pro ochranu osobních údajů",
        "text_en": "a complaint to the Office for Personal Data Protection",
    },
]


def retention_rows() -> list[dict[str, Any]]:
    """GP §12(5): each legal period from the settings, with its source."""
    return [
        {
            "code": p.code,
            "years": p.years,
            "counted_from": p.counted_from,
            "setting": p.setting,
            "records_cs": p.records_cs,
            "records_en": p.records_en,
            "source_cs": p.source_cs,
            "source_en": p.source_en,
        }
        for p in retention.periods()
    ]


def retention_summary() -> tuple[str, str]:
    """The periods in one sentence each language (used in the answers to deletion requests)."""
    rows = retention.periods()
    cs = "; ".join(f"{p.records_cs}: {p.years} let ({p.source_cs})" for p in rows)
    en = "; ".join(f"{p.records_en}: {p.years} years ({p.source_en})" for p in rows)
    return cs, en


def privacy_notice() -> dict[str, Any]:
    """Everything ``GET /api/v1/accounts/privacy`` states (GP §12(3), §12(4), §12(5), §12(7)): also every record the
    apps declare with its retention (``accounts.privacy_contract``) and the recipients of the data."""
    return {
        "purposes": PURPOSES,
        "retention": retention_rows(),
        "retention_note_cs": (
            "Po skončení vztahu (zrušení konta) uchováváme údaje jen po dobu, kterou ukládá zákon (HP §12 odst. 5). "
            "Každý záznam (records) má své lhůty; po uplynutí nejdelší z nich jej denní úloha anonymizuje, soubory "
            "(snímky dokladů, přílohy) smaže. Konto samo je anonymizováno po uplynutí všech lhůt. Auditní stopa se "
            "uchovává po vlastní lhůtu."
        ),
        "retention_note_en": (
            "After the relationship ends (the account is closed) we keep the data only as long as the law requires "
            "(GP §12(5)). Each record (records) has its periods; when the longest of them has passed a daily job "
            "anonymises it and deletes its files (document images, attachments). The account itself is anonymised "
            "when every period has passed. The audit trail is kept for its own period."
        ),
        "records": privacy_contract.retention_table(),
        "recipients": privacy_contract.recipients(),
        "recipients_note_cs": (
            "Příjemci údajů (HP §12 odst. 4: zpracovatelé, které provozovatel pověřil; úřady, kterým údaje předává ze "
            "zákona). Opravu nebo výmaz údajů oznamujeme každému příjemci, který je obdržel (HP §12 odst. 7, čl. 19 "
            "GDPR)."
        ),
        "recipients_note_en": (
            "The recipients of the data (GP §12(4): the processors the operator appointed; the authorities it passes "
            "data to by law). A correction or an erasure is notified to each recipient that received the data "
            "(GP §12(7), GDPR art. 19)."
        ),
        "rights": RIGHTS,
        "answer_within_months": settings.ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS,
        "blocking_effect_cs": BLOCKING_EFFECT_CS,
        "blocking_effect_en": BLOCKING_EFFECT_EN,
        "authority": AUTHORITY,
        "authority_notice_cs": AUTHORITY_NOTICE_CS,
        "authority_notice_en": AUTHORITY_NOTICE_EN,
        "contact": settings.ACCOUNTS_SUPPORT_CONTACT,
    }
