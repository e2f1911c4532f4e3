"""What the wallet reads from the accounts app, through its selectors (lazy imports, tolerant of absence)."""
from __future__ import annotations

import importlib
import re
import unicodedata
from datetime import date, datetime

from core.errors import DomainError
from wallet import errors

DEPOSIT_STATUSES = ("temporary", "active")


def _acc_selector(name: str):
    try:
        mod = importlib.import_module("accounts.selectors")
    except ModuleNotFoundError:
        return None
    return getattr(mod, name, None)


def fresh_status(player) -> str:
    """The player's status read now (services decide on it; the wallet never locks Player rows)."""
    from accounts.models import Player

    status = Player.objects.filter(pk=player.pk).values_list("status", flat=True).first()
    player.status = status
    return status


def money_refusal(player, direction: str) -> DomainError | None:
    """``accounts.selectors.money_movement_refusal`` when the accounts app offers it (GP §5(3) freezes ...)."""
    fn = _acc_selector("money_movement_refusal")
    if fn is None:
        return None
    try:
        return fn(player, direction=direction)
    except TypeError:  # an older signature without ``direction``
        return fn(player)


def refuse_deposit_if_frozen(player) -> None:
    status = fresh_status(player)
    err = money_refusal(player, "deposit")
    if err is not None:
        raise err
    if status not in DEPOSIT_STATUSES:
        raise errors.ACCOUNT_STATE(state=status)


def registration_started_at(player) -> datetime:
    return getattr(player, "registration_started_at", None) or player.created_at


def temporary_activated_at(player) -> datetime | None:
    return getattr(player, "temporary_activated_at", None)


def _fold(text: str) -> list[str]:
    text = unicodedata.normalize("NFKD", text or "")
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return [t for t in re.split(r"[^a-z0-9]+", text) if t and t not in TITLES]


TITLES = {"ing", "mgr", "bc", "mudr", "judr", "phdr", "rndr", "phd", "csc", "doc", "prof", "dis", "mba", "pan", "pani"}


def player_identity(player) -> dict:
    """The person's name tokens and birth date: the accounts personal data when present, else the user's name."""
    fn = _acc_selector("identity_for")
    if fn is not None:
        try:
            ident = fn(player)
            return {"names": _fold(f"{ident.given_names} {ident.surname}"), "birth_date": ident.date_of_birth}
        except Exception:  # noqa: BLE001 - no personal data yet: fall back to the user's name
            pass
    user = player.user
    return {"names": _fold(f"{user.first_name} {user.last_name}"), "birth_date": None}


def payer_matches(player, payer: dict) -> tuple[bool, str]:
    """GP §5(8)a: does the payer the provider reports match the player? (name + birth date when both known,
    or the account holder's name)."""
    me = player_identity(player)
    name = payer.get("name") or payer.get("holder_name") or ""
    theirs = _fold(name)
    if not me["names"] or not theirs:
        return False, "no name to compare"
    if sorted(me["names"]) != sorted(theirs):
        return False, "the payer's name differs from the player's"
    bd = payer.get("birth_date")
    if bd and me["birth_date"]:
        try:
            if date.fromisoformat(str(bd)) != me["birth_date"]:
                return False, "the payer's birth date differs"
        except ValueError:
            return False, "unreadable birth date"
    return True, "name and birth date match" if bd and me["birth_date"] else "name matches"
