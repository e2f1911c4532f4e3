"""The OpenAPI schema's settings (drf-spectacular), imported by config/settings/core.py: the title and the
conventions the player API documents, the tags by area, the documentation UI from our own static files, and the
enum names. Nothing here reads the environment."""

from __future__ import annotations

from typing import Any

SPECTACULAR_SETTINGS: dict[str, Any] = {
    "TITLE": "Online technical games platform API",
    "DESCRIPTION": (
        "Player API of the platform (Czech Gambling Act 186/2016 Sb. and the operator's game plan). Conventions "
        '(docs/player-api.md): every amount is a Money object `{"amount": <integer haléře>, "currency": "CZK"}` '
        "(anything else is `request.invalid_money`); no trailing slash; `Idempotency-Key` required on every call "
        "that moves money or plays, accepted on the other state changes; real-money rounds start at least 2 s apart "
        "(pace at 2 s plus a margin); every refusal has the `Error` shape and a stable `code`, listed per response; "
        "every 429 carries `Retry-After`. In development the e-mails and SMS the sandbox would have sent are at "
        "`/dev/mailbox`. The quickstart of docs/player-api.md runs as a test through a client generated from this "
        "schema."
    ),
    "TAGS": [
        {"name": name, "description": text}
        for name, text in (
            ("accounts", "Registration, e-mail confirmation, login, password, the player's data, consents, inbox"),
            ("wallet", "Balance, statement, payment methods, deposits (sandbox), withdrawals, held wins"),
            ("limits", "Self-limits, play status (the 120/15-minute break), panic button, self-listing, statistics"),
            ("games", "Catalogue, rounds (bet, actions), recall and replay verification"),
            ("jackpots", "Jackpot levels and wins"),
            ("complaints", "Complaints and win claims"),
            ("aml", "Identification, PEP and source-of-funds declarations"),
            ("core", "Platform operations"),
            (
                "providers",
                "Games from outside studios: the player's launch, and the seamless-wallet calls a provider signs "
                "(session, balance, bet, win, rollback, round-end; docs/providers.md)",
            ),
            ("wallet (staff)", "Staff: branch cash, bank statements, payment orders"),
            ("aml (staff)", "Staff: identification review, compliance cases, screening lists"),
            ("complaints (staff)", "Staff: the complaints report"),
            (
                "reports (staff)",
                "Staff (the auditor, the supervisory authority): day reports, tax periods, the sealed "
                "regulator's record (read-only)",
            ),
        )
    ],
    "VERSION": "1.0.0",
    # served, the schema follows the request's language; as a file (no request) it is English (core.schema)
    "DEFAULT_GENERATOR_CLASS": "core.schema.SchemaGenerator",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # the documentation UI from the project's own static files (no CDN, works offline)
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # a Money object as a union member refers to (a self-limit's value: Money or an integer; core.api_money)
    "APPEND_COMPONENTS": {
        "schemas": {
            "MoneyValue": {
                "type": "object",
                "description": "a Money object: amount in minor units (haléře), the account currency",
                "properties": {
                    "amount": {"type": "integer", "description": "minor units (haléře, 1/100 CZK)"},
                    "currency": {"type": "string", "enum": ["CZK"]},
                    "formatted": {"type": "string", "description": "in answers; ignored in a request"},
                },
                "required": ["amount", "currency"],
            }
        }
    },
}

# The AML API's enums get names of their own in the OpenAPI schema (their fields share names with other apps'; these
# are the project's only overrides: another app adding some merges them here).
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] = {
    "AmlIdentificationStatusEnum": "aml.models.IdentificationCheck.Status",
    "AmlCaseStatusEnum": "aml.models.ComplianceCase.Status",
    "AmlSourceOfFundsEnum": "aml.models.SourceOfFundsDeclaration.Source",
    "AmlSourceOfFundsStatusEnum": "aml.models.SourceOfFundsDeclaration.Status",
    "AmlPepRelationEnum": "aml.models.PepDeclaration.Relation",
    "AmlScreeningListSourceEnum": "aml.models.ScreeningListVersion.Source",
    "ComplaintReasonEnum": "complaints.models.Complaint.Reason",
    "KindEnum": "accounts.models.Consent.Kind",  # its name before the wallet's bank files had a "kind" too
    "WalletBankStatementKindEnum": "wallet.models.BankStatement.Kind",
    "WalletBankStatementStatusEnum": "wallet.models.BankStatement.Status",
    "WalletBankEntryStatusEnum": "wallet.models.BankEntry.Status",
    "WalletBankEntryDirectionEnum": "wallet.models.BankEntry.Direction",
    "WalletPaymentOrderKindEnum": "wallet.models.PaymentOrder.Kind",
    "WalletPaymentOrderStatusEnum": "wallet.models.PaymentOrder.Status",
    "WalletPaymentOrderBatchStatusEnum": "wallet.models.PaymentOrderBatch.Status",
}
