"""The game plan and terms in force before every stake (GP §3(5)) and changes announced before they apply
(GP §8(1)): publication, the refusal at ``effective_at``, acceptance, the announcement, registration."""

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.db import transaction

from accounts import errors, rules, selectors, services, terms
from accounts.models import Message, Player, TermsAcceptance, TermsVersion
from core import clock
from core.audit import Actor
from core.errors import VALIDATION, DomainError
from core.models import AuditEvent
from tests.kit.accounts import make_player, make_register_record, make_staff, registration_payload
from tests.kit.clients import client_for
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db
STAFF = Actor.system("test-staff")
NOTICE = rules.terms_min_notice()
ACCEPT = "/api/v1/accounts/me/terms/accept"


def publish(effective_at=None, **overrides):
    fields = {
        "title": "Minimální sázka 0,20 Kč",
        "summary_cs": "Minimální sázka se zvyšuje na 0,20 Kč (HP §8 odst. 1).",
        "summary_en": "The minimum stake rises to 0.20 CZK (GP §8(1)).",
        "text_cs": "Herní plán ...",
        "text_en": "Game plan ...",
        **overrides,
    }
    return services.terms_publish(effective_at=effective_at or clock.now() + NOTICE, actor=STAFF, **fields)


def stake(player):
    """The gate every bet passes (limits' stake decision under the caller's wallet lock), GP §3(5) included."""
    from core.money import Money
    from limits.services import stake_gate
    from wallet.services import wallet_lock

    with transaction.atomic():
        wallet_lock(player=player)
        return stake_gate(
            player=fresh(player),
            kind="technical",
            stake=Money(100),
            game_code="test_slot",
            game_max_bet=Money(100_000),
            now=clock.now(),
        )


def fresh(player):
    """The player as the token authentication loads it (with the user)."""
    return Player.objects.select_related("user").get(pk=player.pk)


# Publication ---------------------------------------------------------------------------------------------------------
def test_versions_are_numbered_in_order_and_the_publication_is_audited():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        v1 = publish()
        v2 = publish(
            start + NOTICE + timedelta(days=1),
            document_url="https://operator.example/hp-3.pdf",
            document_sha256="A" * 64,
            text_cs="",
            text_en="",
        )
    assert (v1.version, v2.version) == (1, 2) and v2.sha256 == "a" * 64 and v1.published_at == start
    assert len(v1.sha256) == 64 and v1.sha256 != v2.sha256
    event = AuditEvent.objects.get(action="accounts.terms.published", object_id=str(v1.pk))
    assert event.details["version"] == 1 and event.actor_label == STAFF.label


def test_a_version_takes_effect_at_the_earliest_after_the_minimum_notice():
    """GP §8(1): a change is announced before it applies; the plan names no period, the platform's is a setting."""
    start = clock.now()
    with time_machine.travel(start, tick=False):
        with pytest.raises(DomainError) as exc:
            publish(start + NOTICE - timedelta(seconds=1))
        assert exc.value.code == errors.TERMS_NOTICE_TOO_SHORT.code
        assert TermsVersion.objects.count() == 0
        assert publish(start + NOTICE).version == 1


def test_the_notice_is_never_shorter_than_the_snapshot_time(settings):
    settings.ACCOUNTS_TERMS_MIN_NOTICE_DAYS = 0
    settings.ACCOUNTS_TERMS_SNAPSHOT_SECONDS = 60
    start = clock.now()
    with time_machine.travel(start, tick=False):
        with pytest.raises(DomainError):
            publish(start + timedelta(seconds=59))
        publish(start + timedelta(seconds=60))


def test_a_new_version_takes_effect_after_the_previous_one():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        publish(start + NOTICE + timedelta(days=2))
        with pytest.raises(DomainError) as exc:
            publish(start + NOTICE + timedelta(days=2))
    assert exc.value.code == errors.TERMS_EFFECTIVE_ORDER.code and TermsVersion.objects.count() == 1


@pytest.mark.parametrize(
    "overrides",
    [
        {"text_cs": "", "text_en": ""},  # neither texts nor a document
        {"text_en": ""},  # one language only
        {"document_url": "https://operator.example/hp.pdf", "document_sha256": "a" * 64},  # both forms
        {"text_cs": "", "text_en": "", "document_url": "https://operator.example/hp.pdf", "document_sha256": "xyz"},
        {"text_cs": "", "text_en": "", "document_url": "javascript:alert(1)", "document_sha256": "a" * 64},
        {"summary_en": ""},
        {"title": " "},
    ],
)
def test_a_version_needs_its_content_in_both_languages_or_a_document_with_its_hash(overrides):
    with pytest.raises(DomainError) as exc:
        publish(**overrides)
    assert exc.value.code == errors.TERMS_INVALID.code and TermsVersion.objects.count() == 0


# Before every stake (GP §3(5)) ----------------------------------------------------------------------------------------
def test_stakes_are_allowed_until_effective_at_then_refused_until_the_player_accepts():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="active")
        version = publish()
    effective = version.effective_at
    with time_machine.travel(effective - timedelta(seconds=1), tick=False):
        assert selectors.betting_refusal(fresh(player)) is None
        stake(player)  # the stake passes the gate
    with time_machine.travel(effective, tick=False):
        refusal = selectors.betting_refusal(fresh(player))
        assert refusal_code(refusal) == errors.TERMS_NOT_ACCEPTED.code
        assert refusal is not None and refusal.details["version"] == 1 and "(verze 1)" in refusal.message_cs
        with pytest.raises(DomainError) as exc:
            stake(player)
        assert exc.value.code == errors.TERMS_NOT_ACCEPTED.code
        services.terms_accept(player=player, version=1, actor=Actor.player(player))
        assert selectors.betting_refusal(fresh(player)) is None
        stake(player)


def test_a_player_who_accepted_an_announced_version_ahead_is_never_stopped():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="active")
        publish()
        services.terms_accept(player=player, version=1, actor=Actor.player(player))
    with time_machine.travel(start + NOTICE, tick=False):
        assert selectors.betting_refusal(fresh(player)) is None


def test_before_any_published_version_nobody_is_refused_for_the_terms():
    assert selectors.betting_refusal(fresh(make_player(status="active"))) is None


def test_the_account_state_refusal_comes_first():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="suspended")
        publish()
    with time_machine.travel(start + NOTICE, tick=False):
        assert refusal_code(selectors.betting_refusal(fresh(player))) == errors.SUSPENDED.code


def test_betting_refusal_adds_no_sql_statement_on_the_stake_path(django_assert_num_queries):
    """The round path is counted (games test_round_cost): the version in force comes from the per-process snapshot
    and the accepted version from the player row the token authentication loaded."""
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = fresh(make_player(status="active"))
        publish()
        terms.published()  # the process loaded its snapshot (once per ACCOUNTS_TERMS_SNAPSHOT_SECONDS)
        with django_assert_num_queries(0):
            assert selectors.betting_refusal(player) is None
    with time_machine.travel(start + NOTICE, tick=False), django_assert_num_queries(0):
        assert refusal_code(selectors.betting_refusal(player)) == errors.TERMS_NOT_ACCEPTED.code


def test_a_version_published_by_another_process_is_seen_within_the_snapshot_time(monkeypatch):
    start = clock.now()
    with time_machine.travel(start, tick=False):
        assert terms.in_force(start + NOTICE) is None  # snapshot loaded: nothing published
        TermsVersion.objects.create(
            version=1,
            title="t",
            summary_cs="s",
            summary_en="s",
            text_cs="a",
            text_en="b",
            sha256="0" * 64,
            published_at=start,
            effective_at=start + NOTICE,
            min_stake=10,
            stake_step=10,
        )  # elsewhere
        assert terms.in_force(start + NOTICE) is None  # this process does not know yet
        later = terms.time.monotonic() + rules.terms_snapshot_seconds()
        monkeypatch.setattr(terms.time, "monotonic", lambda: later)
        found = terms.in_force(start + NOTICE)
    assert found is not None and found.version == 1  # known long before it applies (notice >= snapshot time)


# Acceptance through the API ------------------------------------------------------------------------------------------
def test_a_player_accepts_the_version_in_force_and_the_acceptance_is_recorded_once():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="active")
        publish()
    c = client_for(player)
    with time_machine.travel(start + NOTICE, tick=False):
        assert c.get("/api/v1/accounts/me").json()["betting_refusal"] == errors.TERMS_NOT_ACCEPTED.code
        r = c.post(ACCEPT, {"version": 1}, format="json")
        assert r.status_code == 200, r.content
        assert r.json()["version"] == 1 and r.json()["source"] == "api"
        again = c.post(ACCEPT, {"version": 1}, format="json")
        assert again.status_code == 200 and again.json()["accepted_at"] == r.json()["accepted_at"]
        me = c.get("/api/v1/accounts/me").json()
    assert me["betting_refusal"] is None and me["terms_version_accepted"] == 1
    acceptance = TermsAcceptance.objects.get(player=player)
    assert acceptance.source_address == "127.0.0.1" and acceptance.accepted_at == start + NOTICE
    assert AuditEvent.objects.filter(action="accounts.terms.accepted").count() == 1


def test_accepting_an_unknown_or_an_older_version_is_a_400_and_changes_nothing():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="active")
        publish()
        publish(start + NOTICE + timedelta(days=1))
    c = client_for(player)
    with time_machine.travel(start + NOTICE + timedelta(days=1), tick=False):  # version 2 is in force
        unknown = c.post(ACCEPT, {"version": 3}, format="json")
        older = c.post(ACCEPT, {"version": 1}, format="json")
        for bad in ({"version": 0}, {"version": "two"}, {}, {"version": 2**40}):
            r = c.post(ACCEPT, bad, format="json")
            assert r.status_code == 400 and r.json()["error"]["code"] == VALIDATION.code, bad
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == errors.TERMS_VERSION_UNKNOWN.code
    assert older.status_code == 400 and older.json()["error"]["code"] == errors.TERMS_VERSION_OUTDATED.code
    assert older.json()["error"]["details"]["current"] == 2
    player.refresh_from_db()
    assert player.terms_version_accepted is None and TermsAcceptance.objects.count() == 0


def test_after_accepting_an_announced_version_the_older_one_in_force_cannot_be_accepted():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="active")
        publish()
    with time_machine.travel(start + NOTICE, tick=False):
        publish(start + 2 * NOTICE)
        services.terms_accept(player=player, version=2, actor=Actor.player(player))
        with pytest.raises(DomainError) as exc:
            services.terms_accept(player=player, version=1, actor=Actor.player(player))
        assert exc.value.code == errors.TERMS_VERSION_OUTDATED.code
        assert selectors.betting_refusal(fresh(player)) is None  # version 2 accepted covers version 1
    player.refresh_from_db()
    assert player.terms_version_accepted == 2


def test_the_public_terms_endpoint_shows_the_version_in_force_and_the_announced_ones(api):
    start = clock.now()
    with time_machine.travel(start, tick=False):
        assert api.get("/api/v1/accounts/terms").json() == {"current": None, "upcoming": []}
        publish()
        body = api.get("/api/v1/accounts/terms").json()
    assert body["current"] is None and [v["version"] for v in body["upcoming"]] == [1]
    with time_machine.travel(start + NOTICE, tick=False):
        body = api.get("/api/v1/accounts/terms").json()
    assert body["current"]["version"] == 1 and body["current"]["text_en"] == "Game plan ..." and body["upcoming"] == []


# Registration ---------------------------------------------------------------------------------------------------------
def test_registration_records_the_acceptance_of_the_version_in_force(register):
    start = clock.now()
    with time_machine.travel(start, tick=False):
        publish()
    with time_machine.travel(start + NOTICE, tick=False):
        payload = registration_payload()
        make_register_record(payload)
        payload["consents"]["plan_version"] = 1
        r = register(payload)
        assert r.status_code == 201, r.content
        player = Player.objects.get(user__username=payload["username"])
        assert player.terms_version_accepted == 1
        acceptance = TermsAcceptance.objects.get(player=player)
        assert acceptance.source == "registration" and acceptance.source_address == "127.0.0.1"


def test_registration_before_any_version_records_none_and_a_wrong_plan_version_is_refused(register):
    payload = registration_payload()
    make_register_record(payload)
    wrong = {**payload, "consents": {**payload["consents"], "plan_version": 1}}
    r = register(wrong)
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CONSENT_VERSION_OUTDATED.code
    assert register(payload).status_code == 201
    assert Player.objects.get(user__username=payload["username"]).terms_version_accepted is None


# The announcement (GP §8(1)) ------------------------------------------------------------------------------------------
def test_every_active_and_temporary_player_is_told_once_before_the_version_applies(django_capture_on_commit_callbacks):
    start = clock.now()
    with time_machine.travel(start, tick=False):
        active, temporary = make_player(status="active"), make_player(status="temporary")
        suspended, closed = make_player(status="suspended"), make_player(status="closed")
        ahead = make_player(status="active")
        version = publish()
        services.terms_accept(player=ahead, version=1, actor=Actor.player(ahead))
        with django_capture_on_commit_callbacks(execute=True):
            assert services.terms_announce_due() == 2
            assert services.terms_announce_due() == 0  # safe to run twice
    told = Message.objects.filter(reference="accounts.terms:1")
    assert set(told.values_list("player_id", flat=True)) == {active.pk, temporary.pk}
    assert {suspended.pk, closed.pk, ahead.pk}.isdisjoint(told.values_list("player_id", flat=True))
    msg = told.get(player=active)
    assert msg.kind == "terms_version" and "0,20 Kč" in msg.body_cs and "0.20 CZK" in msg.body_en
    assert len(mail.outbox) == 2 and all(m.subject.startswith("Nové znění") for m in mail.outbox)
    version.refresh_from_db()
    assert version.announced_at == start
    with time_machine.travel(start + timedelta(days=1), tick=False):
        newcomer = make_player(status="temporary")  # registered after the announcement, before it applies
        assert services.terms_announce_due() == 1
    assert told.filter(player=newcomer).exists()
    with time_machine.travel(version.effective_at, tick=False):
        make_player(status="active")
        assert services.terms_announce_due() == 0  # in force: the refusal itself tells the player now


def test_the_announcement_goes_in_batches():
    start = clock.now()
    with time_machine.travel(start, tick=False):
        for _ in range(3):
            make_player(status="active")
        version = publish()
        assert services.terms_announce_due(limit=2) == 2
        version.refresh_from_db()
        assert version.announced_at is None
        assert services.terms_announce_due(limit=2) == 1
    version.refresh_from_db()
    assert version.announced_at is not None


# Staff ---------------------------------------------------------------------------------------------------------------
def test_staff_publish_a_version_in_the_admin_in_prague_time(client):
    staff = make_staff(superuser=True)
    client.force_login(staff)
    assert client.get("/admin/accounts/termsversion/").status_code == 200
    start = clock.now()
    with time_machine.travel(start, tick=False):
        when = clock.local(start + NOTICE + timedelta(days=1)).replace(second=0, microsecond=0)
        form = {
            "title": "Krok sázky 0,20 Kč",
            "summary_cs": "Krok sázky 0,20 Kč.",
            "summary_en": "Stake step 0.20 CZK.",
            "document_url": "https://operator.example/hp-2.pdf",
            "document_sha256": "b" * 64,
            "effective_at": when.strftime("%Y-%m-%d %H:%M"),
        }
        r = client.post("/admin/accounts/termsversion/publish/", form)
        assert r.status_code == 302, r.content[:2000]
        too_soon = {**form, "effective_at": clock.local(start + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")}
        r = client.post("/admin/accounts/termsversion/publish/", too_soon)
        assert r.status_code == 200 and errors.TERMS_NOTICE_TOO_SHORT.code.encode() in r.content
    version = TermsVersion.objects.get()
    assert version.effective_at == when and version.published_by == staff
    assert AuditEvent.objects.get(action="accounts.terms.published").actor_type == "staff"
    assert client.get(f"/admin/accounts/termsversion/{version.pk}/change/").status_code == 200
    assert client.get("/admin/accounts/termsversion/add/").status_code == 403
