"""The one search: whatever staff type, the players it names.

* a valid birth number (checksum and date, with or without the slash): exact match only, and the search is audited
  (``services.birth_number_search``); a 10-digit variable symbol that happens to pass the checksum is then looked
  up as a reference too;
* a round id, a complaint reference (RK-...), a money reference (a deposit's payment reference = the variable symbol
  of a bank transfer, a provider's payment id, a withdrawal's or payout's reference, a ledger reference): exact match;
* otherwise a name, username, e-mail or phone (contains, case-insensitive).
Reads go through the owning apps' selectors."""

from __future__ import annotations

from dataclasses import dataclass

from accounts import selectors as accounts_selectors
from accounts.models import Player
from accounts.validation import is_birth_number
from backoffice import services
from complaints import selectors as complaints_selectors
from core.audit import Actor
from games import selectors as games_selectors
from wallet import selectors as wallet_selectors


@dataclass(frozen=True)
class SearchResult:
    players: list[Player]
    matched: str  # what the text was taken for


def search(text: str, *, actor: Actor) -> SearchResult:
    text = text.strip()
    if not text:
        return SearchResult([], "")
    if is_birth_number(text):
        found = services.birth_number_search(birth_number=text, actor=actor)
        if found:
            return SearchResult(found, "birth number")
        # a 10-digit variable symbol may pass the birth number's checksum: look for it as a reference too
    ids: list[tuple[str, int | None]] = []
    if text.isdigit():
        ids.append(("round id", games_selectors.round_player_id(text)))
    ids.append(("complaint reference", complaints_selectors.complaint_player_id(text)))
    ids.append(("payment or ledger reference", wallet_selectors.player_id_by_reference(text)))
    for what, player_id in ids:
        if player_id is not None:
            return SearchResult([accounts_selectors.staff_player(player_id)], what)
    return SearchResult(accounts_selectors.players_search(text), "name, username, e-mail or phone")
