"""The jackpots admin (Django test client): a running level is read-only and never shows its sealed WIN_AT, a draft
is configured and started from the admin, suspend/resume, the revealed WIN_AT on an award, the contribution log."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import AuditEvent
from core.rng import SystemRNG, use_rng
from jackpots.errors import BAD_TRANSITION, INVALID_CONFIG, NOT_APPROVED
from jackpots.levels import salt, unseal
from jackpots.models import Award, Contribution, Jackpot
from jackpots.services import config_of, jackpots_fold_all
from jackpots.tests.helpers import STAFF, central_level
from tests.kit.clients import client_for
from tests.kit.money import kc
from tests.kit.platform import ROULETTE, funded_player, start

LEVEL = "central-gold"
# 5 % of a 50 CZK stake = 2.50 CZK a spin, from RESET_VALUE 10 CZK: every value shown is a multiple of 2.50 CZK, so
# WIN_AT drawn off that grid (23.47 CZK) cannot be on the page by coincidence
CONFIG: dict[str, Any] = dict(rate_ppm=50_000, reset_value=1_000, win_from=2_000, win_to=3_000)
STAKE = 5_000
WIN_AT = 2_347
NEXT_WIN_AT = 2_611


class WinAtDraws(SystemRNG):
    """The platform RNG, except that WIN_AT is drawn as the test says (so the test knows what must stay hidden)."""

    def __init__(self, *win_ats: int):
        self.win_ats = list(win_ats)

    def randint(self, a: int, b: int) -> int:
        if self.win_ats:
            value = self.win_ats.pop(0)
            assert a <= value <= b
            return value
        return super().randint(a, b)


def started_level(code: str = LEVEL) -> Jackpot:
    with use_rng(WinAtDraws(WIN_AT)):
        return central_level(code, **CONFIG)


def spin(c, shift) -> dict[str, Any]:
    """One red bet of STAKE through the round API (``shift``: moves the clock between rounds)."""
    shift(3)
    r = start(c, game=ROULETTE, bet={"bets": [{"type": "red", "amount": STAKE}]})
    assert r.status_code == 201, r.json()
    return r.json()


def hit(c, shift, jp: Jackpot) -> Award:
    """Spin until the must-hit level is won; the next run's WIN_AT is drawn as the test said."""
    for _ in range(20):
        body = spin(c, shift)
        if any(e.get("type") == "jackpot_award" for e in body["jackpot_events"]):
            return Award.objects.get(jackpot=jp, round_id=body["id"])
    raise AssertionError("the must-hit level was not won")


def assert_win_at_hidden(html: str, jp: Jackpot, win_at: int) -> None:
    """Neither the sealed fields nor WIN_AT (in any spelling: 2347, 23,47, 23.47) nor its salt is in the page."""
    jp.refresh_from_db()
    assert unseal(jp.win_at_sealed, code=jp.code, generation=jp.generation, nonce=jp.win_at_nonce) == win_at
    assert jp.win_at_sealed not in html
    assert jp.win_at_nonce not in html
    assert salt(code=jp.code, generation=jp.generation, nonce=jp.win_at_nonce) not in html
    major, minor = divmod(win_at, 100)
    pattern = rf"(?<![0-9A-Za-z]){win_at}(?![0-9A-Za-z])|(?<![0-9]){major}[,.]{minor:02d}(?![0-9])"
    assert re.search(pattern, html) is None, re.search(pattern, html)


def test_staff_see_a_running_must_hit_level_with_its_books_and_commitment_but_never_its_sealed_win_at(
    clock, staff_client
):
    jp = started_level()
    c = client_for(funded_player(1_000_000))
    spin(c, clock.shift)
    jackpots_fold_all()
    spin(c, clock.shift)  # pending: not folded yet, but part of the live value

    listing = staff_client.get("/admin/jackpots/jackpot/").content.decode()
    assert LEVEL in listing and kc(1_500) in listing  # 10 CZK seed + 2 x 2.50 CZK, folded or not
    assert_win_at_hidden(listing, jp, WIN_AT)

    page = staff_client.get(f"/admin/jackpots/jackpot/{jp.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    jp.refresh_from_db()
    assert jp.win_at_commitment in html
    assert f"{kc(2_000)} - {kc(3_000)}" in html  # the range
    assert kc(1_500) in html  # the live value
    assert kc(1_250) in html and kc(250) in html  # the books: folded value, pending contributions
    assert html.count(">ok<") == 3 and "MISMATCH" not in html
    assert 'name="rate_ppm"' not in html and 'name="_save"' not in html  # frozen: no inputs, no save button
    assert_win_at_hidden(html, jp, WIN_AT)


def _draft_form(**over: Any) -> dict[str, Any]:
    data = {
        "code": "central-bronze",
        "name": "Bronze",
        "name_cs": "Bronz",
        "family": "central",
        "level": "bronze",
        "pay_order": "1",
        "games": "[]",
        "basis": "stake",
        "rate_ppm": "10000",
        "split": "none",
        "background_ppm": "0",
        "trigger": "must_hit",
        "draw_ppb": "0",
        "reseed": "from_background",
        "reset_value": "500",
        "win_from": "600,00 Kč",
        "win_to": "1 200",
        "seed_per_coin": "0",
        "reference_coin": "0",
        "eligible": "{}",
        "approval_plan_version": "2026-02",
        "approval_reference": "MF-12345/2026",
    }
    data.update(over)
    return data


def test_a_central_level_starts_only_once_its_approval_in_the_game_plan_is_recorded(client):
    """GP §13(6): a central BRONZE/SILVER/GOLD level is a premium game the approved plan must describe; staff with
    ``jackpots.start_level`` (the game manager) cannot start it before the plan version and the Ministry's reference
    are recorded."""
    from tests.kit.accounts import make_staff

    client.force_login(make_staff(role="game_manager"))
    staff_client = client
    r = staff_client.post(
        "/admin/jackpots/jackpot/add/", _draft_form(approval_plan_version="", approval_reference=""), follow=True
    )
    assert r.status_code == 200 and "schválení v herním plánu" in r.content.decode()  # saved with a warning (in Czech)
    jp = Jackpot.objects.get(code="central-bronze")
    for recorded in (
        {"approval_plan_version": "", "approval_reference": ""},
        {"approval_plan_version": "2026-02", "approval_reference": "  "},
        {"approval_plan_version": "", "approval_reference": "MF-12345/2026"},
    ):
        Jackpot.objects.filter(pk=jp.pk).update(**recorded)
        r = staff_client.post(
            "/admin/jackpots/jackpot/", {"action": "start_levels", "_selected_action": [jp.pk]}, follow=True
        )
        assert NOT_APPROVED.code in r.content.decode(), recorded
        assert Jackpot.objects.get(pk=jp.pk).status == "draft"
    assert not AuditEvent.objects.filter(action="jackpots.started", object_id=str(jp.pk)).exists()
    r = staff_client.post(f"/admin/jackpots/jackpot/{jp.pk}/change/", _draft_form())  # the approval typed in
    assert r.status_code == 302
    event = AuditEvent.objects.filter(action="jackpots.configured", object_id=str(jp.pk)).latest("id")
    assert (event.new_values or {})["approval_plan_version"] == "2026-02"  # the field still missing, audited
    r = staff_client.post("/admin/jackpots/jackpot/", {"action": "start_levels", "_selected_action": [jp.pk]})
    assert r.status_code == 302 and Jackpot.objects.get(pk=jp.pk).status == "running"
    started = AuditEvent.objects.get(action="jackpots.started", object_id=str(jp.pk))
    assert started.details["approval"] == {"approval_plan_version": "2026-02", "approval_reference": "MF-12345/2026"}
    page = staff_client.get(f"/admin/jackpots/jackpot/{jp.pk}/change/").content.decode()
    assert "MF-12345/2026" in page and 'name="approval_reference"' not in page  # shown, frozen


def test_the_start_refusal_names_what_is_missing_and_kobushi_pools_need_no_approval_of_their_own():
    from core.errors import DomainError
    from jackpots.services import jackpot_create, jackpot_start

    jp = jackpot_create(
        jackpot=Jackpot(
            code="central-silver",
            name="S",
            name_cs="S",
            family="central",
            level="silver",
            pay_order=2,
            rate_ppm=10_000,
            trigger="must_hit",
            reseed="from_background",
            reset_value=100,
            win_from=200,
            win_to=300,
            approval_plan_version="2026-02",
        ),
        actor=STAFF,
    )
    with pytest.raises(DomainError) as exc:
        jackpot_start(jackpot=jp, actor=STAFF)
    assert exc.value.code == NOT_APPROVED.code and exc.value.details["missing"] == ["approval_reference"]
    assert "Ministerstva financí" in exc.value.message_cs and "Ministry of Finance" in exc.value.message_en
    # Kobushi's own pools are part of the Kobushi game (approved with its version): the fixture started them
    assert Jackpot.objects.filter(family="kobushi", status="running").count() == 2


def test_a_draft_is_added_configured_in_czk_and_started_from_the_admin_then_it_is_read_only(staff_client):
    r = staff_client.post("/admin/jackpots/jackpot/add/", _draft_form(rate_ppm="500"))
    assert r.status_code == 302, r.content.decode()[:3000]
    jp = Jackpot.objects.get(code="central-bronze")
    assert (jp.status, jp.reset_value, jp.win_from, jp.win_to) == ("draft", 50_000, 60_000, 120_000)
    assert AuditEvent.objects.filter(action="jackpots.created", object_id=str(jp.pk), actor_type="staff").exists()

    page = staff_client.get(f"/admin/jackpots/jackpot/{jp.pk}/change/").content.decode()
    assert 'name="rate_ppm"' in page and 'value="500,00\xa0Kč"' in page  # a draft is a form, amounts in CZK
    # 0.05 % is below the 0.1 % a share of stakes needs: the start is refused, shown, and nothing changes
    r = staff_client.post(
        "/admin/jackpots/jackpot/", {"action": "start_levels", "_selected_action": [jp.pk]}, follow=True
    )
    assert INVALID_CONFIG.code in r.content.decode()
    assert Jackpot.objects.get(pk=jp.pk).status == "draft"

    r = staff_client.post(f"/admin/jackpots/jackpot/{jp.pk}/change/", _draft_form(rate_ppm="10000"))
    assert r.status_code == 302
    assert Jackpot.objects.get(pk=jp.pk).rate_ppm == 10_000
    assert AuditEvent.objects.filter(action="jackpots.configured", object_id=str(jp.pk)).exists()

    r = staff_client.post("/admin/jackpots/jackpot/", {"action": "start_levels", "_selected_action": [jp.pk]})
    assert r.status_code == 302
    jp.refresh_from_db()
    assert jp.status == "running" and jp.started_at is not None and len(jp.win_at_commitment) == 64
    assert AuditEvent.objects.filter(action="jackpots.started", object_id=str(jp.pk), actor_type="staff").exists()
    page = staff_client.get(f"/admin/jackpots/jackpot/{jp.pk}/change/").content.decode()
    assert 'name="rate_ppm"' not in page and jp.win_at_commitment in page


def test_a_running_level_cannot_be_edited_or_deleted_from_the_admin(clock, staff_client):
    jp = started_level()
    spin(client_for(funded_player(1_000_000)), clock.shift)
    jackpots_fold_all()
    jp.refresh_from_db()
    before = (config_of(jp), jp.amount_micro, jp.win_at_sealed, jp.status, jp.name)
    r = staff_client.post(
        f"/admin/jackpots/jackpot/{jp.pk}/change/",
        _draft_form(code=LEVEL, name="changed", rate_ppm="1000", win_to="100 000"),
    )
    assert r.status_code == 403
    assert staff_client.post(f"/admin/jackpots/jackpot/{jp.pk}/delete/").status_code == 403
    jp.refresh_from_db()
    assert (config_of(jp), jp.amount_micro, jp.win_at_sealed, jp.status, jp.name) == before
    assert not AuditEvent.objects.filter(action="jackpots.configured").exists()


def test_staff_suspend_and_resume_a_level_and_a_wrong_transition_is_refused_and_shown(staff_client):
    jp = started_level()
    url = "/admin/jackpots/jackpot/"
    r = staff_client.post(url, {"action": "resume_levels", "_selected_action": [jp.pk]}, follow=True)
    assert BAD_TRANSITION.code in r.content.decode()
    assert Jackpot.objects.get(pk=jp.pk).status == "running"

    staff_client.post(url, {"action": "suspend_levels", "_selected_action": [jp.pk]})
    assert Jackpot.objects.get(pk=jp.pk).status == "suspended"
    page = staff_client.get(f"{url}{jp.pk}/change/").content.decode()
    assert "pozastaveno (bez příspěvků, bez výher)" in page and 'name="rate_ppm"' not in page  # still frozen
    assert staff_client.post(f"{url}{jp.pk}/change/", _draft_form(code=LEVEL)).status_code == 403

    staff_client.post(url, {"action": "resume_levels", "_selected_action": [jp.pk]})
    assert Jackpot.objects.get(pk=jp.pk).status == "running"
    changes = AuditEvent.objects.filter(action="jackpots.status_changed", object_id=str(jp.pk), actor_type="staff")
    assert list(changes.order_by("id").values_list("new_values__status", flat=True)) == ["suspended", "running"]


def test_an_award_shows_its_revealed_win_at_salt_and_commitment_and_the_next_run_stays_sealed(clock, staff_client):
    jp = started_level()
    published = jp.win_at_commitment
    with use_rng(WinAtDraws(NEXT_WIN_AT)):  # the spins' own draws come from the OS
        award = hit(client_for(funded_player(1_000_000)), clock.shift, jp)
    assert award.win_at == WIN_AT and award.win_at_commitment == published

    listing = staff_client.get(f"/admin/jackpots/award/?jackpot__id__exact={jp.pk}&status__exact=paid")
    assert listing.status_code == 200 and kc(award.amount) in listing.content.decode()
    html = staff_client.get(f"/admin/jackpots/award/{award.pk}/change/").content.decode()
    assert kc(WIN_AT) in html and award.win_at_nonce in html and published in html
    assert "odpovídá závazku" in html and "NEODPOVÍDÁ" not in html  # the staff page in Czech (the default)

    level_page = staff_client.get(f"/admin/jackpots/jackpot/{jp.pk}/change/").content.decode()
    jp.refresh_from_db()
    assert jp.generation == 1 and jp.win_at_commitment in level_page and published not in level_page
    assert_win_at_hidden(level_page, jp, NEXT_WIN_AT)


def test_the_contribution_log_is_listed_without_counting_the_whole_table(clock, staff_client):
    started_level()
    c = client_for(funded_player(1_000_000))
    rounds = [spin(c, clock.shift)["id"] for _ in range(3)]
    jackpots_fold_all()  # the log holds folded contributions (a spin writes a pending row)
    with CaptureQueriesContext(connection) as queries:
        r = staff_client.get("/admin/jackpots/contribution/")
    assert r.status_code == 200 and kc(STAKE) in r.content.decode()
    counts = [
        q["sql"]
        for q in queries.captured_queries
        if "COUNT(" in q["sql"].upper() and "jackpots_contribution" in q["sql"]
    ]
    assert counts and all("LIMIT" in sql.upper() for sql in counts), counts
    found = staff_client.get(f"/admin/jackpots/contribution/?q={rounds[1]}").content.decode()
    cell = 'class="field-round_id">{}<'.format
    assert cell(rounds[1]) in found and cell(rounds[0]) not in found and cell(rounds[2]) not in found
    assert "2,50\xa0Kč" in found  # 5 % of 50 CZK
    row = Contribution.objects.get(round_id=rounds[1])
    assert staff_client.get(f"/admin/jackpots/contribution/{row.pk}/change/").status_code == 403
    folds = staff_client.get("/admin/jackpots/fold/").content.decode()
    assert "7,50\xa0Kč" in folds  # three contributions folded at once, to the active pot
