"""How an identifier (a birth number, a document number, an account number) is shown where the full value is not
needed or the viewer may not see it (``accounts.view_unmasked_identifiers``): the last three characters only."""

from __future__ import annotations

import re
from typing import Any


def mask(value: Any) -> str:
    text = "" if value is None else str(value)
    if not text:
        return ""
    keep = 3 if len(text) > 6 else 1
    return "•" * (len(text) - keep) + text[-keep:]


#: an IBAN (letters, check digits, 10-30 characters, optionally grouped by spaces) or a Czech account number
#: ("[prefix-]number/bank code"), inside free text
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30}\b")
_CZ_ACCOUNT = re.compile(r"\b(?:\d{1,6}-)?\d{2,10}/\d{4}\b")


def mask_account(value: Any) -> str:
    """An account number with only its last three digits shown; a Czech account keeps its bank code
    ("••••••-•••••••004/0800"), so staff can still tell the bank."""
    text = "" if value is None else str(value)
    number, slash, bank = text.rpartition("/")
    if slash and bank.isdigit() and len(bank) == 4 and number:
        return mask(number) + "/" + bank
    return mask(text)


def mask_accounts_in(text: Any) -> str:
    """A free text (a refusal's reason, a posting's memo, a payer's details) with every account number or IBAN in
    it masked: a text composed from a masked field is masked as the field is."""
    out = "" if text is None else str(text)
    out = _IBAN.sub(lambda m: mask_account(m.group(0).replace(" ", "")), out)
    return _CZ_ACCOUNT.sub(lambda m: mask_account(m.group(0)), out)
