"""The default declared recipients of the participants' data (``settings.PRIVACY_RECIPIENTS``, GP §12(4), §12(7),
GDPR art. 13(1)e, art. 19): the platform's own integrations with development contacts. A deployment sets its
processors' real names and privacy contacts (env PRIVACY_RECIPIENTS, a JSON list of the same shape); the enabled
game studios are declared from the providers' own rows (providers/privacy.py)."""

from __future__ import annotations

from typing import Any

DEFAULT_PRIVACY_RECIPIENTS: list[dict[str, Any]] = [
    {
        "code": "identification_provider",
        "role": "processor",
        "notify": True,
        "name": "Poskytovatel online identifikace (AML_IDENTIFICATION_PROVIDER) / online identification provider",
        "purpose_cs": "ověření dokladu totožnosti a shody selfie s fotografií "
        "(AML identifikace, HP §4 odst. 4 písm. b)",
        "purpose_en": "checking the identity document and the likeness of the selfie (AML identification, GP §4(4)b)",
        "records": ["aml.identification"],
        "contact": "privacy@identification-provider.example",
    },
    {
        "code": "payment_provider",
        "role": "processor",
        "notify": True,
        "name": "Platební poskytovatelé (WALLET_PROVIDER_BY_KIND) / payment providers",
        "purpose_cs": "vklady, výběry a výplaty; ověření vlastnictví platebního prostředku (HP §5 odst. 6-11)",
        "purpose_en": "deposits, withdrawals and payouts; verifying the ownership of a payment method (GP §5(6)-(11))",
        "records": ["wallet.payment_methods", "wallet.payments"],
        "contact": "privacy@payment-provider.example",
    },
    {
        "code": "email_delivery",
        "role": "processor",
        "notify": True,
        "name": "Doručování e-mailů (EMAIL_HOST) / e-mail delivery",
        "purpose_cs": "doručování oznámení a odpovědí (HP §7 odst. 7, §10 odst. 4, §11)",
        "purpose_en": "delivering notices and answers (GP §7(7), §10(4), §11)",
        "records": ["accounts.personal_data", "accounts.messages", "complaints.complaints"],
        "contact": "privacy@mail-delivery.example",
    },
    {
        "code": "sms_gateway",
        "role": "processor",
        "notify": True,
        "name": "SMS brána (ACCOUNTS_SMS_GATEWAY) / SMS gateway",
        "purpose_cs": "ověřovací kódy na telefonní číslo",
        "purpose_en": "verification codes to the phone number",
        "records": ["accounts.personal_data"],
        "contact": "privacy@sms-gateway.example",
    },
    {
        "code": "population_register",
        "role": "authority",
        "notify": False,
        "name": "Ministerstvo vnitra: základní registr obyvatel / Ministry of the Interior: population register",
        "purpose_cs": "ověření totožnosti a věku (HP §4 odst. 4 písm. c), ze zákona",
        "purpose_en": "verifying identity and age (GP §4(4)c), by law",
        "records": ["accounts.personal_data"],
        "contact": "",
    },
    {
        "code": "exclusion_register",
        "role": "authority",
        "notify": False,
        "name": "Ministerstvo financí: rejstřík vyloučených osob / Ministry of Finance: register of excluded persons",
        "purpose_cs": "kontrola a zápis vyloučených osob (zákon č. 186/2016 Sb. §15), ze zákona",
        "purpose_en": "checking and listing excluded persons (Gambling Act §15), by law",
        "records": ["accounts.personal_data", "limits.self_exclusion"],
        "contact": "",
    },
]
