"""Credentials (GP §4(7)) and login sessions: e-mail link -> SMS password -> change at first login,
login/logout, lockout, idle timeout, exclusion check at every login."""

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.test import override_settings

from accounts import errors, selectors, services
from accounts.auth import TOKEN_INVALID
from accounts.errors import INVALID_CREDENTIALS, STAFF_NOT_A_PLAYER
from accounts.models import AuthToken, LoginSession, Player, RegisterCheck, SandboxSms
from accounts.tests.helpers import found
from core import clock
from core.audit import Actor
from tests.kit.accounts import (
    DEFAULT_PASSWORD,
    login_session_for,
    make_excluded,
    make_player,
    make_register_record,
    make_staff,
    registration_payload,
)
from tests.kit.clients import client_for
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db
LOGIN = "/api/v1/accounts/auth/login"
CONFIRM = "/api/v1/accounts/registration/confirm-email"
NEW_PASSWORD = "Uplne-nove-heslo-77"


def link_token(message) -> str:
    return found(r"token=(\S+)", message.body)


def sms_password() -> str:
    return found(r"first password: (\S+) -", SandboxSms.objects.order_by("-id")[0].text)


@pytest.fixture
def registered(register):
    body = registration_payload()
    make_register_record(body)
    assert register(body).status_code == 201
    return Player.objects.get(user__username=body["username"]), body


def confirm(api, commit, token):
    with commit():
        return api.get(CONFIRM, {"token": token})


def test_confirming_the_email_link_sends_the_first_password_by_sms_once(api, commit, registered):
    player, body = registered
    r = confirm(api, commit, link_token(mail.outbox[0]))
    assert r.status_code == 200 and r.json()["status"] == "password_sent"
    sms = SandboxSms.objects.get()
    assert sms.to == player.personal.phone and sms.purpose == "first_password"
    player.refresh_from_db()
    assert player.email_confirmed_at and player.user.must_change_password
    assert player.user.check_password(sms_password())
    r = confirm(api, commit, link_token(mail.outbox[0]))  # clicked again
    assert r.json()["status"] == "already_confirmed" and SandboxSms.objects.count() == 1


def test_the_link_expires_after_48_hours(api, commit, registered):
    token = link_token(mail.outbox[0])
    with time_machine.travel(clock.now() + timedelta(hours=48, seconds=1)):
        r = confirm(api, commit, token)
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.EMAIL_LINK_EXPIRED.code
    assert SandboxSms.objects.count() == 0
    with time_machine.travel(clock.now() + timedelta(hours=47, minutes=59)):
        assert confirm(api, commit, token).status_code == 200


def test_a_tampered_link_is_refused(api, commit, registered):
    r = confirm(api, commit, link_token(mail.outbox[0])[:-2] + "xx")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.EMAIL_LINK_INVALID.code
    assert SandboxSms.objects.count() == 0


def test_a_new_link_supersedes_the_old_one_and_the_answer_never_reveals_accounts(api, commit, registered):
    player, body = registered
    with commit():
        r = api.post(
            "/api/v1/accounts/registration/resend-link",
            {"username": body["username"], "email": body["email"]},
            format="json",
        )
    assert r.status_code == 202 and len(mail.outbox) == 2
    old, new = link_token(mail.outbox[0]), link_token(mail.outbox[1])
    assert confirm(api, commit, old).json()["error"]["code"] == errors.EMAIL_LINK_INVALID.code
    assert confirm(api, commit, new).json()["status"] == "password_sent"
    r = api.post(
        "/api/v1/accounts/registration/resend-link", {"username": "nobody", "email": "x@example.cz"}, format="json"
    )
    assert r.status_code == 202 and len(mail.outbox) == 2


def login(api, username, password):
    return api.post(LOGIN, {"username": username, "password": password}, format="json")


def test_the_first_password_must_be_changed_before_anything_else_works(api, commit, registered):
    player, body = registered
    confirm(api, commit, link_token(mail.outbox[0]))
    first = sms_password()
    r = login(api, body["username"], first)
    assert r.status_code == 200 and r.json()["must_change_password"] is True
    c = client_for(player, r.json()["token"])
    for url in ("/api/v1/accounts/me", "/api/v1/accounts/registration/steps", "/api/v1/accounts/me/export"):
        resp = c.get(url)
        assert resp.status_code == 403 and resp.json()["error"]["code"] == errors.PASSWORD_CHANGE_REQUIRED.code
    assert (
        refusal_code(selectors.betting_refusal(Player.objects.get(pk=player.pk)))
        == errors.PASSWORD_CHANGE_REQUIRED.code
    )
    r = c.post("/api/v1/accounts/auth/password", {"old_password": first, "new_password": "short"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.PASSWORD_INVALID.code
    r = c.post("/api/v1/accounts/auth/password", {"old_password": "wrong", "new_password": NEW_PASSWORD}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.OLD_PASSWORD_WRONG.code
    r = c.post("/api/v1/accounts/auth/password", {"old_password": first, "new_password": NEW_PASSWORD}, format="json")
    assert r.status_code == 200
    assert c.get("/api/v1/accounts/me").status_code == 200
    assert login(api, body["username"], first).status_code == 401
    assert login(api, body["username"], NEW_PASSWORD).status_code == 200


def test_a_password_change_ends_the_other_sessions_and_tokens_and_keeps_the_current_one(api):
    """Whoever knew the old password is signed out everywhere. The player changes the password on device
    A; the session on device B ends (forced, ``password_changed``) and its token is refused, as is any other token;
    A stays signed in (the token the change was made with is kept, by design: the first-password change at first
    login happens in the session opened with the first password)."""
    player = make_player()
    a = login(api, player.user.username, DEFAULT_PASSWORD).json()
    b = login(api, player.user.username, DEFAULT_PASSWORD).json()
    ca, cb = client_for(player, a["token"]), client_for(player, b["token"])
    untracked = client_for(player)  # a token of no login session
    assert cb.get("/api/v1/accounts/me").status_code == 200 and untracked.get("/api/v1/accounts/me").status_code == 200
    r = ca.post(
        "/api/v1/accounts/auth/password",
        {"old_password": DEFAULT_PASSWORD, "new_password": NEW_PASSWORD},
        format="json",
    )
    assert r.status_code == 200, r.content
    for old in (cb, untracked):
        r = old.get("/api/v1/accounts/me")
        assert r.status_code == 401 and r.json()["error"]["code"] == TOKEN_INVALID.code
    assert ca.get("/api/v1/accounts/me").status_code == 200
    sessions = {s["id"]: s for s in ca.get("/api/v1/accounts/auth/sessions").json()["results"]}
    assert sessions[a["session_id"]]["ended_at"] is None
    assert sessions[b["session_id"]]["ended_at"] is not None and sessions[b["session_id"]]["end_reason"] == "forced"
    assert LoginSession.objects.get(pk=b["session_id"]).end_detail == "password_changed"
    assert login(api, player.user.username, DEFAULT_PASSWORD).status_code == 401


def test_logout_works_while_the_password_change_is_pending(api, commit, registered):
    player, body = registered
    confirm(api, commit, link_token(mail.outbox[0]))
    token = login(api, body["username"], sms_password()).json()["token"]
    c = client_for(player, token)
    assert c.post("/api/v1/accounts/auth/logout").status_code == 204
    assert c.get("/api/v1/accounts/me").json()["error"]["code"] == TOKEN_INVALID.code


def test_no_login_is_possible_before_the_link_is_confirmed(api, registered):
    player, body = registered
    r = login(api, body["username"], "anything-at-all")
    assert r.status_code == 401 and r.json()["error"]["code"] == errors.INVALID_CREDENTIALS.code
    assert LoginSession.objects.count() == 0


def test_login_opens_a_tracked_session_and_logout_ends_it(api):
    player = make_player()
    r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code == 200
    session = LoginSession.objects.get(player=player)
    assert session.ended_at is None and r.json()["session_id"] == session.pk
    assert AuthToken.objects.get(session=session).revoked_at is None
    c = client_for(player, r.json()["token"])
    assert c.post("/api/v1/accounts/auth/logout").status_code == 204
    session.refresh_from_db()
    assert session.end_reason == "logout" and session.ended_at
    assert AuthToken.objects.get(session=session).revoked_at is not None
    assert c.get("/api/v1/accounts/me").status_code == 401


def test_a_wrong_password_is_refused_and_opens_no_session(api):
    player = make_player()
    r = login(api, player.user.username, "wrong-password")
    assert r.status_code == 401 and r.json()["error"]["code"] == errors.INVALID_CREDENTIALS.code
    assert LoginSession.objects.count() == 0


def test_five_failures_lock_the_username_out_even_for_the_right_password(api):
    player = make_player()
    for _ in range(4):
        assert login(api, player.user.username, "wrong-password").status_code == 401
    r = login(api, player.user.username, "wrong-password")
    assert r.status_code == 429 and r.json()["error"]["code"] == errors.LOCKED_OUT.code
    assert int(r["Retry-After"]) > 0
    r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code == 429 and r.json()["error"]["code"] == errors.LOCKED_OUT.code
    assert LoginSession.objects.count() == 0
    other = make_player()  # per username: others are not affected
    assert login(api, other.user.username, DEFAULT_PASSWORD).status_code == 200


def test_the_lockout_ends_after_the_cool_off(api):
    player = make_player()
    for _ in range(5):
        login(api, player.user.username, "wrong-password")
    with time_machine.travel(clock.now() + timedelta(minutes=31)):
        assert login(api, player.user.username, DEFAULT_PASSWORD).status_code == 200


def test_a_listed_person_cannot_log_in_and_is_flagged(api):
    player = make_player()
    make_excluded(player)
    r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code == 403 and r.json()["error"]["code"] == errors.EXCLUDED_PERSON.code
    player.refresh_from_db()
    assert player.exclusion_listed and LoginSession.objects.count() == 0
    assert RegisterCheck.objects.get(player=player).result == "listed"
    assert refusal_code(selectors.betting_refusal(player)) == errors.EXCLUDED_PERSON.code


def test_login_is_refused_while_the_exclusion_register_cannot_answer(api):
    player = make_player()
    make_excluded(player, outcome="unavailable")
    r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code == 503 and r.json()["error"]["code"] == errors.REGISTER_UNAVAILABLE.code
    assert LoginSession.objects.count() == 0


@pytest.mark.parametrize("status", ["closed", "expired", "rejected"])
def test_an_ended_account_cannot_log_in(api, status):
    player = make_player(status=status)
    r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code == 403 and r.json()["error"]["code"] == errors.ACCOUNT_NOT_USABLE.code


def test_a_temporary_account_past_its_deadline_cannot_log_in_even_before_the_job_ran(api):
    player = make_player(status="temporary")
    with time_machine.travel(player.temporary_expires_at):
        r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code == 403 and r.json()["error"]["code"] == errors.TEMPORARY_EXPIRED.code


def test_the_limits_login_check_can_refuse_a_login(api):
    from limits.services import self_listing_request

    player = make_player()
    self_listing_request(player=player, actor=Actor.player(player))  # (the panic button lets the account in)
    r = login(api, player.user.username, DEFAULT_PASSWORD)
    assert r.status_code >= 400 and r.json()["error"]["code"].startswith("limits.")
    assert LoginSession.objects.count() == 0


def test_an_idle_session_times_out_at_30_minutes_not_before():
    player = make_player()
    start = clock.now()
    session, key = login_session_for(player, at=start)
    c = client_for(player, key)
    with time_machine.travel(start + timedelta(minutes=29, seconds=59), tick=False):
        assert c.get("/api/v1/accounts/me").status_code == 200  # activity moves last_seen_at
    last = start + timedelta(minutes=29, seconds=59)
    with time_machine.travel(last + timedelta(minutes=30), tick=False):
        r = c.get("/api/v1/accounts/me")
    assert r.status_code == 401 and r.json()["error"]["code"] == errors.SESSION_EXPIRED.code
    session.refresh_from_db()
    assert session.end_reason == "timeout" and session.ended_at == last + timedelta(minutes=30)


@override_settings(ACCOUNTS_SESSION_IDLE_MINUTES=10)
def test_the_timeout_sweeper_ends_idle_sessions_at_their_idle_deadline():
    player = make_player()
    start = clock.now()
    idle, _ = login_session_for(player, at=start)
    fresh, _ = login_session_for(player, at=start + timedelta(minutes=5))
    with time_machine.travel(start + timedelta(minutes=10), tick=False):
        assert services.sessions_timeout_due() == 1
        assert services.sessions_timeout_due() == 0  # safe to run twice
    idle.refresh_from_db()
    fresh.refresh_from_db()
    assert idle.end_reason == "timeout" and idle.ended_at == start + timedelta(minutes=10)
    assert fresh.ended_at is None


def test_force_logout_ends_every_session_and_revokes_every_token():
    player = make_player()
    s1, k1 = login_session_for(player)
    s2, k2 = login_session_for(player)
    plain = client_for(player)
    assert services.player_force_logout(player=player, reason="daily_time_limit", actor=Actor.system()) == 2
    for s in (s1, s2):
        s.refresh_from_db()
        assert s.end_reason == "forced" and s.end_detail == "daily_time_limit"
    for c in (client_for(player, k1), client_for(player, k2), plain):
        assert c.get("/api/v1/accounts/me").status_code == 401


def test_session_end_is_idempotent_and_keeps_the_first_end():
    player = make_player()
    session, _ = login_session_for(player)
    at = clock.now()
    services.session_end(session=session, reason="logout", at=at)
    services.session_end(session=session, reason="forced", at=at + timedelta(hours=1))
    session.refresh_from_db()
    assert session.end_reason == "logout" and session.ended_at == at


def test_login_sessions_returns_the_sessions_overlapping_a_window():
    player = make_player()
    t0 = clock.now()
    before, _ = login_session_for(player, at=t0 - timedelta(hours=3))
    services.session_end(session=before, reason="logout", at=t0 - timedelta(hours=2))
    across, _ = login_session_for(player, at=t0 - timedelta(minutes=30))
    services.session_end(session=across, reason="logout", at=t0 + timedelta(minutes=30))
    still_open, _ = login_session_for(player, at=t0 + timedelta(minutes=10))
    after, _ = login_session_for(player, at=t0 + timedelta(hours=2))
    got = list(selectors.login_sessions(player, t0, t0 + timedelta(hours=1)))
    assert got == [across, still_open]


def test_another_players_sessions_are_never_listed():
    me, other = make_player(), make_player()
    login_session_for(other)
    mine, key = login_session_for(me)
    r = client_for(me, key).get("/api/v1/accounts/auth/sessions")
    assert r.status_code == 200 and [s["id"] for s in r.json()["results"]] == [mine.pk]


def test_passwords_are_hashed_with_argon2_outside_tests():
    from django.conf import settings

    assert "Argon2PasswordHasher" in [h for h in settings.PASSWORD_HASHERS if "Argon2" in h][0]
    assert settings.PASSWORD_HASHERS.index("django.contrib.auth.hashers.Argon2PasswordHasher") <= 1


@override_settings(ACCOUNTS_SESSION_MAX_HOURS=24)
def test_even_an_active_session_ends_after_24_hours():
    player = make_player()
    start = clock.now()
    session, key = login_session_for(player, at=start)
    c = client_for(player, key)
    for minutes in range(20, 24 * 60, 20):  # busy all day long
        with time_machine.travel(start + timedelta(minutes=minutes), tick=False):
            assert c.get("/api/v1/accounts/me").status_code == 200
    with time_machine.travel(start + timedelta(hours=24), tick=False):
        r = c.get("/api/v1/accounts/me")
    assert r.status_code == 401 and r.json()["error"]["code"] == errors.SESSION_EXPIRED.code
    session.refresh_from_db()
    assert session.ended_at == start + timedelta(hours=24) and session.end_detail == "max_age"


def test_a_staff_member_signing_in_to_the_player_api_is_told_to_use_the_admin_not_wrong_password(api, db):
    """The review's operator got "Wrong username or password" with the right password."""
    staff = make_staff(role="support")
    r = login(api, staff.username, DEFAULT_PASSWORD)
    assert r.status_code == 403 and r.json()["error"]["code"] == STAFF_NOT_A_PLAYER.code
    assert "/admin/" in r.json()["error"]["message_en"] and "/admin/" in r.json()["error"]["message_cs"]
    assert not LoginSession.objects.exists() and not AuthToken.objects.exists()
    # the wrong password of a staff account is the plain refusal: nothing says the account exists
    r = login(api, staff.username, "not-the-password")
    assert r.status_code == 401 and r.json()["error"]["code"] == INVALID_CREDENTIALS.code
