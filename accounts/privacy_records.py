"""The accounts app's privacy contract (``accounts.privacy_contract``): its records, export and anonymisation.

Registered by ``AccountsConfig.ready``. Every record here is kept until the longest period has passed (the account is
the relationship itself, and its personal data are the identification data of the AML law, the registration of the
Gambling Act and the counterpart of the accounting records), so the account is always the last group anonymised.
"""

from __future__ import annotations

from accounts import privacy_contract, selectors
from accounts.privacy_contract import Contract, Record
from accounts.services import privacy as privacy_services

ALL_PERIODS = ("gambling", "aml", "accounting")

RECORDS = (
    Record(
        code="accounts.personal_data",
        models=(
            "accounts.Player",
            "accounts.User",
            "accounts.PersonalData",
            "accounts.Consent",
            "accounts.LoginSession",
            "accounts.AuthToken",
            "accounts.RegisterCheck",
            "accounts.RegisterReview",
            "accounts.IdentityVerification",
            "accounts.DuplicateCase",
            "accounts.CorrectionRequest",
            "accounts.DataRequest",
            "accounts.TermsAcceptance",
        ),
        periods=ALL_PERIODS,
        what_cs="registrace a osobní údaje (HP §4 odst. 4 písm. a), souhlasy, ověření totožnosti, přihlášení, žádosti",
        what_en="the registration and personal data (GP §4(4)a), consents, identity checks, logins, requests",
        erased_cs="jména, rodné číslo, datum narození, adresy, telefon, e-mail, doklad a klíče shody nahrazeny; "
        "přihlašovací jméno anonymizováno, heslo zneplatněno; IP adresy, hodnoty oprav a texty žádostí "
        "vymazány",
        erased_en="names, birth number, birth date, addresses, phone, e-mail, document and matching keys replaced; "
        "username anonymised, password made unusable; IP addresses, correction values and request texts "
        "erased",
        kept_cs="stav a data konta (bez osobních údajů); auditní stopa (core) po svou lhůtu",
        kept_en="the account's status and dates (no personal value); the audit trail (core) for its own period",
    ),
    Record(
        code="accounts.messages",
        models=("accounts.Message", "accounts.Delivery"),
        periods=ALL_PERIODS,
        what_cs="oznámení v doručené poště a jejich doručení (HP §7 odst. 7, §10 odst. 4)",
        what_en="inbox notices and their deliveries (GP §7(7), §10(4))",
        erased_cs="texty oznámení a adresy doručení vymazány",
        erased_en="notice texts and delivery addresses erased",
        kept_cs="předměty a časy doručení (důkaz oznámení)",
        kept_en="subjects and delivery times (proof of notice)",
    ),
    Record(
        code="accounts.privacy_log",
        models=("accounts.PersonalDataErasure", "accounts.RecipientNotice"),
        periods=ALL_PERIODS,
        what_cs="záznam o anonymizacích a oznámeních příjemcům",
        what_en="the log of erasures and recipient notices",
        erased_cs="nic: neobsahuje žádnou osobní hodnotu",
        erased_en="nothing: it holds no personal value",
        kept_cs="co a kdy bylo anonymizováno a komu bylo oznámeno",
        kept_en="what was anonymised when, and who was told",
    ),
)

CONTRACT = Contract(
    app="accounts", records=RECORDS, export=selectors.accounts_export, anonymise=privacy_services.accounts_anonymise
)


def register() -> None:
    privacy_contract.register(CONTRACT)
