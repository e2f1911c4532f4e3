"""Errors, request ids, the catch-all and idempotency keys, through real HTTP requests."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from core.errors import NOT_AUTHENTICATED, SERVER_ERROR
from core.idempotency import KEY_CONFLICT, KEY_REQUIRED
from core.models import IdempotencyRecord, TaskHeartbeat
from tests.kit.accounts import make_player, token_for
from tests.kit.clients import client_for

pytestmark = pytest.mark.urls("core.tests.urls_test")


@pytest.mark.django_db
def test_a_domain_error_has_the_one_shape_in_czech_by_default_and_english_on_request():
    c = client_for(make_player())
    r = c.post("/effect", {"refuse": True}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert r.status_code == 409
    err = r.json()["error"]
    assert err["code"] == "test.refused" and err["message"] == "Zamítnuto." and err["message_en"] == "Refused."
    assert err["details"] == {"reason": "asked to"} and err["request_id"]
    r = c.post("/effect", {"refuse": True}, format="json", HTTP_IDEMPOTENCY_KEY="k2", HTTP_ACCEPT_LANGUAGE="en")
    assert r.json()["error"]["message"] == "Refused."


@pytest.mark.django_db
def test_an_unexpected_exception_is_a_logged_500_with_an_error_id_and_no_stack_trace(caplog):
    c = APIClient(raise_request_exception=False)
    r = c.get("/boom")
    assert r.status_code == 500
    err = r.json()["error"]
    assert err["code"] == SERVER_ERROR.code and len(err["details"]["error_id"]) == 16
    assert "secret" not in r.content.decode()
    assert any(err["details"]["error_id"] in rec.getMessage() for rec in caplog.records)
    r = c.get("/plain-boom")
    assert r.status_code == 500 and "secret" not in r.content.decode()
    assert r.json()["error"]["code"] == SERVER_ERROR.code


@pytest.mark.django_db
def test_every_response_carries_a_request_id_and_a_well_formed_client_id_is_kept():
    c = APIClient()
    assert len(c.get("/ok")["X-Request-ID"]) == 32
    assert c.get("/ok", HTTP_X_REQUEST_ID="client-req-12345")["X-Request-ID"] == "client-req-12345"
    assert c.get("/ok", HTTP_X_REQUEST_ID="bad id with spaces")["X-Request-ID"] != "bad id with spaces"


@pytest.mark.django_db
def test_unauthenticated_and_not_found_use_the_error_shape():
    c = APIClient()
    r = c.post("/effect", {}, format="json")
    assert r.status_code == 401 and r.json()["error"]["code"] == NOT_AUTHENTICATED.code
    c.credentials(HTTP_AUTHORIZATION="Token nonsense")
    r = c.post("/effect", {}, format="json")
    assert r.status_code == 401 and r.json()["error"]["code"] == "auth.token_invalid"


@pytest.mark.django_db
def test_a_money_moving_call_without_an_idempotency_key_is_refused_and_changes_nothing():
    c = client_for(make_player())
    r = c.post("/effect", {"marker": "m"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == KEY_REQUIRED.code
    assert TaskHeartbeat.objects.count() == 0


@pytest.mark.django_db
def test_a_replayed_key_returns_the_stored_result_and_moves_nothing():
    c = client_for(make_player())
    r1 = c.post("/effect", {"marker": "a"}, format="json", HTTP_IDEMPOTENCY_KEY="same")
    r2 = c.post("/effect", {"marker": "a"}, format="json", HTTP_IDEMPOTENCY_KEY="same")
    assert r1.status_code == r2.status_code == 201
    assert r1.json() == r2.json() and r2["Idempotent-Replayed"] == "true"
    assert TaskHeartbeat.objects.count() == 1


@pytest.mark.django_db
def test_the_same_key_with_a_different_body_is_a_409_conflict():
    c = client_for(make_player())
    c.post("/effect", {"marker": "a"}, format="json", HTTP_IDEMPOTENCY_KEY="same")
    r = c.post("/effect", {"marker": "b"}, format="json", HTTP_IDEMPOTENCY_KEY="same")
    assert r.status_code == 409 and r.json()["error"]["code"] == KEY_CONFLICT.code
    assert TaskHeartbeat.objects.count() == 1


@pytest.mark.django_db
def test_keys_are_scoped_per_caller_so_two_players_never_share_a_result():
    c1, c2 = client_for(make_player()), client_for(make_player())
    r1 = c1.post("/effect", {"marker": "p1"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    r2 = c2.post("/effect", {"marker": "p2"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert r1.json()["id"] != r2.json()["id"] and TaskHeartbeat.objects.count() == 2


@pytest.mark.django_db
def test_a_refused_call_is_not_stored_so_a_later_retry_can_succeed():
    c = client_for(make_player())
    assert c.post("/effect", {"refuse": True}, format="json", HTTP_IDEMPOTENCY_KEY="r").status_code == 409
    assert IdempotencyRecord.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_concurrent_twins_with_one_key_have_exactly_one_effect():
    player = make_player()
    key = token_for(player.user)
    results = []

    def fire():
        try:
            c = APIClient(raise_request_exception=False)
            c.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            r = c.post("/effect", {"marker": "twin", "slow": True}, format="json", HTTP_IDEMPOTENCY_KEY="twin-key")
            results.append((r.status_code, r.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=fire) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [s for s, _ in results] == [201] * 6
    assert len({b["id"] for _, b in results}) == 1
    assert TaskHeartbeat.objects.filter(marker="twin").count() == 1
