"""The forms of the bank transfers' staff screens (``wallet/admin_bank.py``), in a module whose name the admin's
translation (``backoffice/admin_i18n.py``) reads as an admin's forms."""

from __future__ import annotations

from typing import Any

from django import forms


class StatementUploadForm(forms.Form):
    file = forms.FileField(label="camt.053 / camt.054 file")


class AssignForm(forms.Form):
    deposit_id = forms.IntegerField(required=False, label="deposit id (a bank transfer of the player)")
    player_id = forms.IntegerField(required=False, label="or player id (a new deposit from their bank account)")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (data.get("deposit_id") is None) == (data.get("player_id") is None):
            raise forms.ValidationError("name either a deposit or a player")
        return data
