"""A new user, through the API alone (plus what staff and the registers provide in the sandbox):
register -> e-mail link -> SMS password -> change it -> see the remaining steps and the 30-day
deadline; a duplicate birth number is refused; an excluded person can neither register nor log in;
on day 31 the scheduled job cancels the unfinished temporary account."""

from datetime import datetime, timedelta

import pytest
import time_machine
from django.core import mail
from rest_framework.test import APIClient

from accounts.errors import DUPLICATE_PERSONAL_DATA, EXCLUDED_PERSON, PASSWORD_CHANGE_REQUIRED
from accounts.models import Player, SandboxSms
from accounts.schedules import BEAT_SCHEDULE
from accounts.tasks import temporary_expire
from accounts.tests.helpers import found
from tests.kit.accounts import make_excluded, make_register_record, registration_payload

API = "/api/v1/accounts"
START = datetime.fromisoformat("2026-03-02T09:00:00+00:00")


def client():
    return APIClient(raise_request_exception=False)


@pytest.mark.django_db(transaction=True)
def test_a_new_user_registers_gets_credentials_sees_the_deadline_and_is_cancelled_on_day_31():
    with time_machine.travel(START, tick=False):
        anon = client()
        documents = anon.get(f"{API}/registration/documents").json()
        body = registration_payload(username="nova.hracka")
        body["consents"] = {
            "terms": documents["terms"],
            "data_processing": documents["data_processing"],
            "game_plan": documents["game_plan"],
            "marketing": False,
        }
        make_register_record(body)  # the population register knows her (sandbox, filled by staff)

        # 1. register
        r = anon.post(f"{API}/registration", body, format="json")
        assert r.status_code == 201, r.json()
        assert r.json()["status"] == "temporary"
        assert r.json()["temporary_expires_at"] == "2026-04-01T09:00:00Z"  # 30 days (GP §5(2)a)

        # 2. the e-mail link, then the first password by SMS
        assert len(mail.outbox) == 1 and mail.outbox[0].to == [body["email"]]
        link = found(r"https?://\S+/registration/confirm-email\?token=(\S+)", str(mail.outbox[0].body))
        assert SandboxSms.objects.count() == 0  # nothing before the link is confirmed
        r = anon.get(f"{API}/registration/confirm-email", {"token": link})
        assert r.status_code == 200 and r.json()["status"] == "password_sent"
        sms = SandboxSms.objects.get(to=body["phone"])
        first_password = found(r"first password: (\S+) -", sms.text)

        # 3. log in; nothing but the password change works yet
        r = anon.post(f"{API}/auth/login", {"username": "nova.hracka", "password": first_password}, format="json")
        assert r.status_code == 200 and r.json()["must_change_password"] is True
        me = client()
        me.credentials(HTTP_AUTHORIZATION=f"Token {r.json()['token']}")
        r = me.get(f"{API}/registration/steps")
        assert r.status_code == 403 and r.json()["error"]["code"] == PASSWORD_CHANGE_REQUIRED.code
        r = me.post(
            f"{API}/auth/password",
            {"old_password": first_password, "new_password": "Moje-nove-heslo-2026"},
            format="json",
        )
        assert r.status_code == 200

        # 4. the remaining steps and the deadline
        r = me.get(f"{API}/registration/steps")
        assert r.status_code == 200
        steps = r.json()
        assert steps["status"] == "temporary" and steps["deadline"] == "2026-04-01T09:00:00Z"
        assert steps["seconds_left"] == 30 * 24 * 3600
        done = {s["code"]: s["done"] for s in steps["steps"]}
        assert done["personal_data"] and done["identity_verified"] and done["email_confirmed"]
        assert done["password_changed"] and done["consents"]
        assert steps["missing"] == ["aml_identification", "self_limits", "payment_method", "aml_compliance"]
        assert all(s["deadline"] == "2026-04-01T09:00:00Z" for s in steps["steps"] if not s["done"])

        # 5. the same birth number again: refused, referred to support
        dup = registration_payload(
            username="druhy.pokus",
            birth_number=body["birth_number"],
            date_of_birth=body["date_of_birth"],
            sex=body["sex"],
        )
        r = client().post(f"{API}/registration", dup, format="json")
        assert r.status_code == 409
        err = r.json()["error"]
        assert err["code"] == DUPLICATE_PERSONAL_DATA.code and "support" in err["message_en"]
        assert not Player.objects.filter(user__username="druhy.pokus").exists()

        # 6. an excluded person can neither register ...
        excluded = registration_payload(username="vyloucena.osoba")
        make_register_record(excluded)
        make_excluded(excluded)
        r = client().post(f"{API}/registration", excluded, format="json")
        assert r.status_code == 403 and r.json()["error"]["code"] == EXCLUDED_PERSON.code
        assert not Player.objects.filter(user__username="vyloucena.osoba").exists()

    # ... nor log in once listed
    with time_machine.travel(START + timedelta(days=2), tick=False):
        make_excluded(body)
        r = client().post(
            f"{API}/auth/login", {"username": "nova.hracka", "password": "Moje-nove-heslo-2026"}, format="json"
        )
        assert r.status_code == 403 and r.json()["error"]["code"] == EXCLUDED_PERSON.code
        assert me.get(f"{API}/me").status_code == 401  # the open session was ended at once

    # 7. day 30 minus a minute: still there; day 31: the scheduled job cancels it
    assert BEAT_SCHEDULE["accounts.temporary_expire"]["task"] == "accounts.temporary_expire"
    player = Player.objects.get(user__username="nova.hracka")
    with time_machine.travel(START + timedelta(days=29, hours=23, minutes=59), tick=False):
        assert temporary_expire.apply().get() == 0
        player.refresh_from_db()
        assert player.status == "temporary"
    mail.outbox.clear()
    with time_machine.travel(START + timedelta(days=30, hours=1), tick=False):
        assert temporary_expire.apply().get() == 1
    player.refresh_from_db()
    assert player.status == "expired" and player.balance_handoff == "refund"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [body["email"]]
    assert "cancelled" in mail.outbox[0].subject
