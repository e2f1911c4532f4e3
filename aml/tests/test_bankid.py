"""Online AML identification with Bank iD (GP §4(4)b; the AML Act): OpenID Connect against a real local OpenID
provider (``tests.kit.oidc``) started for each test, through the player API: start -> the bank's authorization
endpoint -> the app forwards code + state -> the code exchanged, the ID token and the claims checked, the verified
claims compared with the registration -> identified. Each fault is refused with its error and identifies nobody."""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import time_machine
from django.db import connection

from accounts.models import IdentityVerification
from accounts.selectors import registration_steps
from aml import bankid_client, errors, selectors
from aml.errors import BANKID_STATE_INVALID, COMPLIANCE_REVIEW
from aml.models import BankIdAuthorization, ComplianceCase, IdentificationCheck
from aml.services import pep_declare, screening_run
from core import clock
from core.audit import Actor
from core.models import AuditEvent
from tests.kit.aml import BANKID_APP, SYSTEM, applicant, client, make_staff
from tests.kit.oidc import LocalOpenIDProvider, bankid_idcard, bankid_profile_for
from tests.kit.refusals import refused_response

pytestmark = pytest.mark.django_db
API = "/api/v1/aml/identifications/bankid"


def code(r) -> str:
    return r.json()["error"]["code"]


def start(player, redirect_url: str = BANKID_APP) -> dict:
    r = client(player).post(API, {"redirect_url": redirect_url}, format="json")
    assert r.status_code == 201, r.content
    return r.json()


def callback(player, answer: dict):
    body = {k: answer[k] for k in ("state", "code", "error") if k in answer}
    return client(player).post(f"{API}/callback", body, format="json")


def flow(op: LocalOpenIDProvider, player, **profile_overrides):
    """The whole journey: the bank knows the person (their registration, changed by ``profile_overrides``), the
    player starts, signs in at the bank, and the app forwards what the bank sent back."""
    op.login(bankid_profile_for(player, **profile_overrides))
    started = start(player)
    return callback(player, op.authorize(started["authorization_url"]))


def assert_nobody_identified(player, error_code: str | None = None) -> None:
    player.refresh_from_db()
    assert player.aml_identified_at is None
    assert not IdentificationCheck.objects.filter(player=player, status="approved").exists()
    assert not IdentityVerification.objects.filter(player=player).exists()
    if error_code is not None:
        auth = BankIdAuthorization.objects.filter(player=player).latest("created_at", "pk")
        assert (auth.status, auth.error_code, auth.identification_id) == ("failed", error_code, None)


# The journey ---------------------------------------------------------------------------------------------------------


def test_a_player_identified_by_their_bank_is_aml_identified_and_the_registration_step_is_done(bankid_op):
    """GP §4(4)b: the bank identified the person; the platform checks the bank's signed assertion and compares the
    verified data with the registration, then records the AML identification like the document provider's."""
    player = applicant()
    pep_declare(player=player, relation="none", actor=Actor.player(player))
    screening_run(player=player, actor=SYSTEM)
    assert "aml_identification" in registration_steps(player)["missing"]
    bankid_op.login(bankid_profile_for(player))

    started = start(player)
    url = urlsplit(started["authorization_url"])
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert f"{url.scheme}://{url.netloc}{url.path}" == bankid_op.base_url + "/auth"
    assert query["response_type"] == "code" and query["client_id"] == bankid_op.client_id
    assert query["redirect_uri"] == BANKID_APP == started["redirect_url"]
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) == 43
    assert query["nonce"] and query["state"] and "openid" in query["scope"].split()
    auth = BankIdAuthorization.objects.get(player=player)
    assert auth.status == "started" and auth.code_verifier not in started["authorization_url"]

    answer = bankid_op.authorize(started["authorization_url"])  # the player's browser at the bank
    assert answer["redirect_uri"] == BANKID_APP and answer["state"] == query["state"] and answer["code"]
    r = callback(player, answer)

    assert r.status_code == 200, r.content
    assert r.json()["status"] == "approved" and r.json()["provider"] == "bankid"
    player.refresh_from_db()
    assert player.aml_identified_at is not None
    assert "aml_identification" not in registration_steps(player)["missing"]
    assert registration_steps(player)["steps"][0]["done"]  # nothing else changed
    pd = player.personal
    check = IdentificationCheck.objects.get(pk=r.json()["id"])
    assert (check.status, check.reasons, check.score) == ("approved", [], None)
    assert (check.document_type, check.document_number, check.document_issuing_state, check.document_valid_until) == (
        pd.document_type,
        pd.document_number,
        "CZ",
        pd.document_valid_until,
    )
    verified = check.verified_claims
    assert (
        verified["verification"]["trust_framework"] == "cz_aml" and verified["claims"]["birthnumber"] == pd.birth_number
    )
    assert verified["issuer"] == bankid_op.issuer and verified["id_token"]["aud"] == bankid_op.client_id
    assert verified["pep"] is False and check.extracted["surname"] == pd.surname
    iv = IdentityVerification.objects.get(player=player)
    assert (iv.method, iv.document_number) == ("bankid", pd.document_number)
    assert "Bank iD" in iv.note and "cz_aml" in iv.note
    auth.refresh_from_db()
    assert (auth.status, auth.identification_id, auth.error_code) == ("completed", check.pk, "")
    assert auth.code_verifier == auth.nonce == ""
    assert auth.subject == verified["subject"]
    assert ("POST", "/token") in bankid_op.requests and ("GET", "/profile") in bankid_op.requests
    actions = set(AuditEvent.objects.filter(details__player_id=player.pk).values_list("action", flat=True))
    assert {
        "aml.bankid_started",
        "aml.bankid_completed",
        "aml.identification_answered",
        "accounts.identity.verified_online",
        "aml.pep_claim_received",
    } <= actions
    assert client(player).get(f"/api/v1/aml/identifications/{check.pk}").json()["status"] == "approved"
    assert client(player).get("/api/v1/aml/status").json()["identified"] is True


def test_names_match_without_case_and_accents_as_with_the_document_provider(bankid_op):
    player = applicant()
    pd = player.personal
    r = flow(bankid_op, player, given_name=pd.given_names.upper(), family_name=pd.surname.replace("á", "a").upper())
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "approved"


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic", "private_key_jwt"])
def test_each_client_authentication_bankid_accepts_works_and_a_wrong_credential_is_refused(settings, method):
    from joserfc.jwk import RSAKey

    client_key = RSAKey.generate_key(2048, parameters={"kid": "platform-client"})
    public = RSAKey.import_key(client_key.as_dict(private=False))
    bankid_client.cache_clear()
    with LocalOpenIDProvider(redirect_uris=[BANKID_APP], auth_method=method, client_public_key=public) as op:
        for name, value in op.settings().items():
            setattr(settings, name, value)
        settings.AML_BANKID_CLIENT_PRIVATE_KEY = json.dumps(client_key.as_dict(private=True))
        good = applicant()
        r = flow(op, good)
        assert r.status_code == 200, r.content
        if method == "private_key_jwt":
            other = RSAKey.generate_key(2048, parameters={"kid": "platform-client"})
            settings.AML_BANKID_CLIENT_PRIVATE_KEY = json.dumps(other.as_dict(private=True))
        else:
            settings.AML_BANKID_CLIENT_SECRET = "not-the-secret"
        bad = applicant()
        refused_response(flow(op, bad), errors.BANKID_TOKEN_REFUSED, provider_error="invalid_client")
        assert_nobody_identified(bad, errors.BANKID_TOKEN_REFUSED.code)
    bankid_client.cache_clear()


def test_over_tls_the_issuer_is_trusted_through_the_configured_ca_and_refused_without_it(settings):
    bankid_client.cache_clear()
    with LocalOpenIDProvider(redirect_uris=[BANKID_APP], tls=True) as op:
        assert op.issuer.startswith("https://127.0.0.1:")
        for name, value in op.settings().items():
            setattr(settings, name, value)
        player = applicant()
        assert flow(op, player).status_code == 200
        bankid_client.cache_clear()
        settings.AML_BANKID_CA_BUNDLE = ""  # the system's CAs do not know the local provider's certificate
        other = applicant()
        r = client(other).post(API, {"redirect_url": BANKID_APP}, format="json")
        refused_response(r, errors.BANKID_UNAVAILABLE, 503)
        assert not BankIdAuthorization.objects.filter(player=other).exists()
    bankid_client.cache_clear()


# The ID token --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"nonce": "not-the-nonce-we-sent"}, "nonce"),
        ({"nonce": None}, "missing_nonce"),
        ({"iss": "https://oidc.elsewhere.example/"}, "issuer"),
        ({"aud": "another-client"}, "audience"),
        ({"aud": ["another-client", "platform-tests"]}, "missing_azp"),
        ({"sub": None}, "missing_sub"),
    ],
)
def test_an_id_token_with_a_wrong_claim_is_refused_and_nobody_is_identified(bankid_op, changes, reason):
    bankid_op.id_token_changes = changes
    player = applicant()
    refused_response(flow(bankid_op, player), errors.BANKID_ID_TOKEN_INVALID, reason=reason)
    assert_nobody_identified(player, errors.BANKID_ID_TOKEN_INVALID.code)
    assert not IdentificationCheck.objects.filter(player=player).exists()


def test_an_expired_id_token_is_refused_from_its_exp_minus_the_leeway(bankid_op, settings):
    """exp <= now - leeway: expired (the clock skew allowed is AML_BANKID_LEEWAY_SECONDS)."""
    t0 = clock.now().replace(microsecond=0)
    leeway = settings.AML_BANKID_LEEWAY_SECONDS
    with time_machine.travel(t0, tick=False):
        now = int(t0.timestamp())
        bankid_op.id_token_changes = {"exp": now - leeway}
        late = applicant()
        refused_response(flow(bankid_op, late), errors.BANKID_ID_TOKEN_INVALID, reason="expired")
        assert_nobody_identified(late, errors.BANKID_ID_TOKEN_INVALID.code)
        bankid_op.id_token_changes = {"exp": now - leeway + 1}
        in_time = applicant()
        assert flow(bankid_op, in_time).status_code == 200


def test_an_id_token_issued_in_the_future_or_too_long_ago_is_refused(bankid_op, settings):
    t0 = clock.now().replace(microsecond=0)
    leeway, max_age = settings.AML_BANKID_LEEWAY_SECONDS, settings.AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS
    with time_machine.travel(t0, tick=False):
        now = int(t0.timestamp())
        for iat, outcome in (
            (now + leeway + 1, "issued_in_future"),
            (now + leeway, None),
            (now - max_age - leeway - 1, "too_old"),
            (now - max_age - leeway, None),
        ):
            bankid_op.id_token_changes = {"iat": iat}
            player = applicant()
            r = flow(bankid_op, player)
            if outcome is None:
                assert r.status_code == 200, (iat - now, r.content)
            else:
                refused_response(r, errors.BANKID_ID_TOKEN_INVALID, reason=outcome)
                assert_nobody_identified(player, errors.BANKID_ID_TOKEN_INVALID.code)


def test_an_id_token_signed_by_another_key_is_refused(bankid_op):
    """The same kid as the published key, but another key: the signature fails. An unknown kid: the key set is
    fetched again once (a rotation would be found), then refused."""
    bankid_op.signing_key = bankid_op.foreign_key(kid=bankid_op.kid)
    forged = applicant()
    refused_response(flow(bankid_op, forged), errors.BANKID_ID_TOKEN_INVALID, reason="signature")
    assert_nobody_identified(forged, errors.BANKID_ID_TOKEN_INVALID.code)

    fetched = bankid_op.requests.count(("GET", "/.well-known/jwks"))
    bankid_op.signing_key = bankid_op.foreign_key()
    unknown = applicant()
    refused_response(flow(bankid_op, unknown), errors.BANKID_ID_TOKEN_INVALID, reason="unknown_key")
    assert_nobody_identified(unknown, errors.BANKID_ID_TOKEN_INVALID.code)
    assert bankid_op.requests.count(("GET", "/.well-known/jwks")) == fetched + 1


def test_the_key_set_is_cached_and_fetched_again_when_the_issuer_rotates_its_keys(bankid_op):
    assert flow(bankid_op, applicant()).status_code == 200
    assert flow(bankid_op, applicant()).status_code == 200
    assert bankid_op.requests.count(("GET", "/.well-known/jwks")) == 1
    assert bankid_op.requests.count(("GET", "/.well-known/openid-configuration")) == 1
    bankid_op.rotate_keys()
    assert flow(bankid_op, applicant()).status_code == 200  # unknown kid -> the new key set
    assert bankid_op.requests.count(("GET", "/.well-known/jwks")) == 2


# The code, the state and PKCE ----------------------------------------------------------------------------------------


@pytest.mark.django_db(databases=["default", "refusal_log"])
def test_a_replayed_code_is_refused_with_its_state_and_with_a_fresh_state(bankid_op):
    player = applicant()
    bankid_op.login(bankid_profile_for(player))
    answer = bankid_op.authorize(start(player)["authorization_url"])
    assert callback(player, answer).status_code == 200
    player.refresh_from_db()
    identified_at = player.aml_identified_at

    refused_response(callback(player, answer), errors.BANKID_STATE_INVALID, status="completed")  # the same answer again

    thief = applicant()  # someone who captured the code starts a sign-in of their own and sends that code
    started = start(thief)
    state = parse_qs(urlsplit(started["authorization_url"]).query)["state"][0]
    refused_response(
        callback(thief, {"state": state, "code": answer["code"]}),
        errors.BANKID_TOKEN_REFUSED,
        provider_error="invalid_grant",
    )
    assert_nobody_identified(thief, errors.BANKID_TOKEN_REFUSED.code)
    player.refresh_from_db()
    assert player.aml_identified_at == identified_at
    assert IdentificationCheck.objects.filter(provider="bankid").count() == 1


@pytest.mark.django_db(databases=["default", "refusal_log"])
def test_an_unknown_or_another_players_state_is_refused_and_recorded_and_leaves_the_owners_sign_in_usable(bankid_op):
    owner, other = applicant(), applicant()
    bankid_op.login(bankid_profile_for(owner))
    answer = bankid_op.authorize(start(owner)["authorization_url"])
    refused_response(callback(owner, {"state": "made-up-state", "code": answer["code"]}), errors.BANKID_STATE_INVALID)
    refused_response(callback(other, answer), errors.BANKID_STATE_INVALID)  # the owner's state is not the other's
    assert_nobody_identified(other)
    refusals = AuditEvent.objects.using("refusal_log").filter(action="security.bankid_state_refused")
    assert refusals.count() == 2
    assert callback(owner, answer).status_code == 200  # the code was never sent to the bank by the refusals


@pytest.mark.django_db(databases=["default", "refusal_log"])
def test_a_code_sent_with_another_sign_ins_state_fails_pkce_and_a_superseded_state_is_refused(bankid_op):
    """PKCE (RFC 7636): the code was issued for the first sign-in's challenge; sent with the second sign-in's
    state, the second verifier goes to the bank, which refuses it. Starting again makes the first state unusable."""
    player = applicant()
    bankid_op.login(bankid_profile_for(player))
    first = bankid_op.authorize(start(player)["authorization_url"])
    second = start(player)
    second_state = parse_qs(urlsplit(second["authorization_url"]).query)["state"][0]
    refused_response(callback(player, first), errors.BANKID_STATE_INVALID, status="superseded")
    body = refused_response(
        callback(player, {"state": second_state, "code": first["code"]}),
        errors.BANKID_TOKEN_REFUSED,
        provider_error="invalid_grant",
    )
    assert "PKCE" in body["details"]["description"]
    assert_nobody_identified(player, errors.BANKID_TOKEN_REFUSED.code)


def test_the_sign_in_expires_after_the_session_minutes(bankid_op, settings):
    t0 = clock.now().replace(microsecond=0)
    minutes = settings.AML_BANKID_SESSION_MINUTES
    in_time, late = applicant(), applicant()
    with time_machine.travel(t0, tick=False):
        started = {p.pk: start(p) for p in (in_time, late)}
    with time_machine.travel(t0 + timedelta(minutes=minutes, seconds=-2), tick=False):
        bankid_op.login(bankid_profile_for(in_time))
        answer_in_time = bankid_op.authorize(started[in_time.pk]["authorization_url"])
        bankid_op.login(bankid_profile_for(late))
        answer_late = bankid_op.authorize(started[late.pk]["authorization_url"])
    with time_machine.travel(t0 + timedelta(minutes=minutes, seconds=-1), tick=False):
        assert callback(in_time, answer_in_time).status_code == 200
    with time_machine.travel(t0 + timedelta(minutes=minutes), tick=False):
        refused_response(callback(late, answer_late), errors.BANKID_SESSION_EXPIRED)
    assert_nobody_identified(late)
    assert BankIdAuthorization.objects.get(player=late).status == "expired"


def test_a_player_who_cancels_at_the_bank_is_told_so_and_may_start_again(bankid_op):
    player = applicant()
    bankid_op.deny("access_denied")
    answer = bankid_op.authorize(start(player)["authorization_url"])
    assert answer["error"] == "access_denied" and "code" not in answer
    refused_response(callback(player, answer), errors.BANKID_DENIED, error="access_denied")
    assert_nobody_identified(player, errors.BANKID_DENIED.code)
    assert flow(bankid_op, player).status_code == 200


# The claims ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "mismatch"),
    [
        ({"family_name": "Jiná"}, "surname_mismatch"),
        ({"given_name": "Petr"}, "given_names_mismatch"),
        ({"birthdate": "1960-01-01"}, "date_of_birth_mismatch"),
        ({"birthnumber": "7001010008"}, "birth_number_mismatch"),
        ({"nationality": "SK"}, "citizenship_mismatch"),
        ({"idcards": [bankid_idcard(number="999888777")]}, "document_number_mismatch"),
        ({"idcards": [bankid_idcard(number="X", valid_to="2020-01-01")]}, "document_expired"),
    ],
)
def test_verified_claims_that_differ_from_the_registration_identify_nobody_and_go_to_staff(
    bankid_op, overrides, mismatch
):
    player = applicant()
    if "idcards" in overrides and overrides["idcards"][0]["number"] == "X":  # the registration's number, expired
        overrides = {"idcards": [bankid_idcard(number=player.personal.document_number, valid_to="2020-01-01")]}
    body = refused_response(flow(bankid_op, player, **overrides), errors.BANKID_CLAIMS_MISMATCH, status="doubtful")
    assert mismatch in body["details"]["reasons"] and mismatch in body["message_en"]
    assert_nobody_identified(player)
    check = IdentificationCheck.objects.get(pk=body["details"]["identification_id"])
    assert (check.provider, check.status) == ("bankid", "doubtful")
    assert BankIdAuthorization.objects.get(player=player).status == "completed"  # the sign-in itself worked


def test_staff_approve_a_doubtful_bank_id_identification_with_a_note_and_see_what_the_bank_verified(bankid_op):
    player = applicant()
    body = refused_response(flow(bankid_op, player, family_name="Nováková-Jiná"), errors.BANKID_CLAIMS_MISMATCH)
    check_id = body["details"]["identification_id"]
    staff = client(make_staff(role="compliance"))
    queue = staff.get("/api/v1/aml/staff/identifications").json()["results"]
    row = next(c for c in queue if c["id"] == check_id)
    assert row["provider"] == "bankid" and row["reasons"] == ["surname_mismatch"]
    assert row["verified_claims"]["claims"]["family_name"] == "Nováková-Jiná"
    r = staff.post(
        f"/api/v1/aml/staff/identifications/{check_id}/review",
        {"approve": True, "note": "married name, certificate seen"},
        format="json",
    )
    assert r.status_code == 200 and r.json()["status"] == "approved"
    player.refresh_from_db()
    assert player.aml_identified_at is not None
    assert IdentityVerification.objects.get(player=player).method == "bankid"


@pytest.mark.parametrize(
    ("overrides", "error", "details"),
    [
        ({"trust_framework": None}, errors.BANKID_NOT_AML_VERIFIED, {}),
        ({"trust_framework": "eidas"}, errors.BANKID_NOT_AML_VERIFIED, {"received": "eidas"}),
        ({"idcards": []}, errors.BANKID_CLAIMS_INVALID, {"missing": ["idcards"]}),
        (
            {"idcards": [bankid_idcard(number="123456789", type="VS")]},
            errors.BANKID_CLAIMS_INVALID,
            {"missing": ["idcards"]},
        ),
        ({"birthdate": "1980"}, errors.BANKID_CLAIMS_INVALID, {"missing": ["birthdate"]}),
    ],
)
def test_claims_that_are_not_aml_verified_or_incomplete_are_refused(bankid_op, overrides, error, details):
    player = applicant()
    refused_response(flow(bankid_op, player, **overrides), error, **details)
    assert_nobody_identified(player, error.code)
    assert not IdentificationCheck.objects.filter(player=player).exists()


def test_claims_about_another_subject_than_the_id_token_are_refused(bankid_op):
    """OpenID Connect Core 5.3.2: the userinfo/profile ``sub`` must be the ID token's."""
    bankid_op.id_token_changes = {"sub": "someone-else"}
    player = applicant()
    refused_response(flow(bankid_op, player), errors.BANKID_CLAIMS_INVALID, reason="subject_mismatch")
    assert_nobody_identified(player, errors.BANKID_CLAIMS_INVALID.code)


def test_the_claims_may_come_as_a_jwt_signed_by_the_issuer(bankid_op):
    bankid_op.claims_as_jwt = True
    assert flow(bankid_op, applicant()).status_code == 200


def test_the_connect_userinfo_endpoint_is_not_aml_verified_and_has_no_identity_document(bankid_op, settings):
    """Bank iD Connect's userinfo carries names and the birth date without the AML verification or a document:
    it cannot identify (the profile endpoint, Bank iD Identify, can)."""
    settings.AML_BANKID_CLAIMS_ENDPOINT = "userinfo"
    player = applicant()
    refused_response(flow(bankid_op, player), errors.BANKID_NOT_AML_VERIFIED)
    assert ("GET", "/userinfo") in bankid_op.requests and ("GET", "/profile") not in bankid_op.requests
    assert_nobody_identified(player, errors.BANKID_NOT_AML_VERIFIED.code)
    settings.AML_BANKID_TRUST_FRAMEWORK = ""  # not required: the claims still lack the identity document
    other = applicant()
    refused_response(flow(bankid_op, other), errors.BANKID_CLAIMS_INVALID, missing=["idcards"])
    assert_nobody_identified(other, errors.BANKID_CLAIMS_INVALID.code)


# Bank iD as published: loa3, the profile.* scopes, the legal status ------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"limited_legal_capacity": True}, "limited_legal_capacity"),
        ({"majority": False}, "not_of_age"),
    ],
)
def test_a_person_with_limited_legal_capacity_or_not_of_age_is_refused(bankid_op, overrides, reason):
    """profile.legalstatus: such a person may not play; before, limited legal capacity went to staff as a
    mismatch and majority was not read at all."""
    player = applicant()
    refused_response(flow(bankid_op, player, **overrides), errors.BANKID_NOT_ELIGIBLE, http=403, reason=reason)
    assert_nobody_identified(player, errors.BANKID_NOT_ELIGIBLE.code)
    assert not IdentificationCheck.objects.filter(player=player).exists()


def test_the_sign_in_asks_loa3_and_the_profile_scopes_and_an_id_token_of_another_level_is_refused(bankid_op):
    player = applicant()
    bankid_op.login(bankid_profile_for(player))
    url = start(player)["authorization_url"]
    query = dict(parse_qsl(urlsplit(url).query))
    assert query["acr_values"] == "loa3"
    assert {
        "openid",
        "profile.name",
        "profile.birthdate",
        "profile.birthnumber",
        "profile.idcards",
        "profile.legalstatus",
        "profile.verification",
    } <= set(query["scope"].split())
    assert all(s == "openid" or s.startswith("profile.") for s in query["scope"].split())
    other = applicant()
    bankid_op.id_token_changes = {"acr": "loa2"}
    refused_response(flow(bankid_op, other), errors.BANKID_ID_TOKEN_INVALID, reason="acr")
    assert_nobody_identified(other, errors.BANKID_ID_TOKEN_INVALID.code)


def test_without_the_legalstatus_scope_the_claims_are_incomplete(bankid_op, settings):
    settings.AML_BANKID_SCOPES = settings.AML_BANKID_SCOPES.replace(" profile.legalstatus", "")
    player = applicant()
    refused_response(flow(bankid_op, player), errors.BANKID_CLAIMS_INVALID, missing=["legalstatus"])


def test_the_birth_number_comes_without_the_slash_and_a_malformed_one_is_refused(bankid_op):
    player = applicant()
    assert flow(bankid_op, player, birthnumber=player.personal.birth_number).status_code == 200
    other = applicant()
    refused_response(
        flow(bankid_op, other, birthnumber="70010A0008"), errors.BANKID_CLAIMS_INVALID, reason="birthnumber"
    )


def test_the_local_provider_refuses_a_level_other_than_loa3_as_bank_id_does(bankid_op):
    player = applicant()
    bankid_op.login(bankid_profile_for(player))
    url = start(player)["authorization_url"].replace("acr_values=loa3", "acr_values=loa2")
    answer = bankid_op.authorize(url)
    assert answer["error"] == "invalid_request" and "code" not in answer


# PEP (the AML duties' due diligence) ------------------------------------------------------------------------------


def test_the_banks_pep_claim_opens_a_blocking_case_for_compliance_and_false_opens_none(bankid_op):
    pep = applicant()
    pep_declare(player=pep, relation="none", actor=Actor.player(pep))
    screening_run(player=pep, actor=SYSTEM)
    assert flow(bankid_op, pep, pep=True).status_code == 200  # identified: who the person is is not in doubt
    case = ComplianceCase.objects.get(player=pep)
    assert (case.kind, case.blocking, case.status, case.details["declared_relation"]) == (
        "pep_claimed",
        True,
        "open",
        "none",
    )
    assert selectors.bankid_pep_claim(pep) is True
    refusal = selectors.compliance_refusal(pep, "completion")
    assert refusal is not None and refusal.code == COMPLIANCE_REVIEW.code
    assert "aml_compliance" in registration_steps(pep)["missing"]

    plain = applicant()
    assert flow(bankid_op, plain, pep=False).status_code == 200
    assert not ComplianceCase.objects.filter(player=plain).exists()
    assert selectors.bankid_pep_claim(plain) is False
    silent = applicant()
    assert flow(bankid_op, silent, pep=None).status_code == 200
    assert selectors.bankid_pep_claim(silent) is None and not ComplianceCase.objects.filter(player=silent).exists()


# Refusals before the bank ------------------------------------------------------------------------------------------


def test_the_start_refuses_an_address_not_allowed_a_disabled_bank_id_and_players_who_may_not_start(
    bankid_op, settings, commit
):
    from aml.services import identification_start
    from tests.kit.aml import document, images

    player = applicant()
    c = client(player)
    refused_response(
        c.post(API, {"redirect_url": BANKID_APP + "/other"}, format="json"), errors.BANKID_REDIRECT_NOT_ALLOWED, 400
    )
    refused_response(
        c.post(API, {"redirect_url": "https://evil.example/steal"}, format="json"),
        errors.BANKID_REDIRECT_NOT_ALLOWED,
        400,
    )
    assert c.post(API, {}, format="json").status_code == 400
    identified = applicant()
    assert flow(bankid_op, identified).status_code == 200
    refused_response(
        client(identified).post(API, {"redirect_url": BANKID_APP}, format="json"), errors.ALREADY_IDENTIFIED
    )
    busy = applicant()
    identification_start(player=busy, document=document(), images=images(), actor=Actor.player(busy))
    refused_response(
        client(busy).post(API, {"redirect_url": BANKID_APP}, format="json"), errors.IDENTIFICATION_IN_PROGRESS
    )
    settings.AML_BANKID_ENABLED = False
    refused_response(c.post(API, {"redirect_url": BANKID_APP}, format="json"), errors.BANKID_DISABLED, 404)
    refused_response(c.post(f"{API}/callback", {"state": "x", "code": "y"}, format="json"), errors.BANKID_DISABLED, 404)
    assert not BankIdAuthorization.objects.filter(player__in=[player, busy]).exists()
    assert client().post(API, {"redirect_url": BANKID_APP}, format="json").status_code == 401
    assert client(make_staff()).post(API, {"redirect_url": BANKID_APP}, format="json").status_code == 403


def test_an_issuer_that_does_not_answer_or_names_another_issuer_is_unavailable(bankid_op, settings):
    player = applicant()
    settings.AML_BANKID_ISSUER = bankid_op.base_url  # without the trailing slash: not the issuer it declares
    refused_response(
        client(player).post(API, {"redirect_url": BANKID_APP}, format="json"), errors.BANKID_UNAVAILABLE, 503
    )
    port = int(urlsplit(bankid_op.base_url).port or 0)
    bankid_op.stop()
    bankid_client.cache_clear()
    settings.AML_BANKID_ISSUER = f"http://127.0.0.1:{port}/"
    refused_response(
        client(player).post(API, {"redirect_url": BANKID_APP}, format="json"), errors.BANKID_UNAVAILABLE, 503
    )
    settings.AML_BANKID_ISSUER = "http://oidc.example.cz/"  # plain http off this machine
    refused_response(
        client(player).post(API, {"redirect_url": BANKID_APP}, format="json"), errors.BANKID_UNAVAILABLE, 503
    )
    assert not BankIdAuthorization.objects.filter(player=player).exists()


@pytest.mark.django_db(transaction=True)
def test_no_call_to_the_bank_is_made_inside_a_database_transaction(bankid_op, monkeypatch):
    """The locking policy: no network call while a database lock (a transaction) is held."""
    import requests.adapters

    seen: list[tuple[str, bool]] = []
    real_send = requests.adapters.HTTPAdapter.send

    def send(self, request, *args, **kwargs):
        seen.append((urlsplit(request.url).path, connection.in_atomic_block))
        return real_send(self, request, *args, **kwargs)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)
    player = applicant()
    assert flow(bankid_op, player).status_code == 200
    paths = {p for p, _ in seen}
    assert {"/.well-known/openid-configuration", "/token", "/.well-known/jwks", "/profile"} <= paths
    assert [p for p, atomic in seen if atomic] == []
    player.refresh_from_db()
    assert player.aml_identified_at is not None


def test_staff_see_each_sign_in_and_how_it_ended_in_the_admin_without_its_secrets(bankid_op):
    from django.test import Client
    from django.urls import reverse

    player = applicant()
    bankid_op.id_token_changes = {"nonce": "other"}
    bankid_op.login(bankid_profile_for(player))
    started = start(player)
    secrets = BankIdAuthorization.objects.values_list("code_verifier", "nonce").get(player=player)
    assert all(len(v) >= 43 for v in secrets)
    callback(player, bankid_op.authorize(started["authorization_url"]))
    auth = BankIdAuthorization.objects.get(player=player)
    assert (auth.status, auth.code_verifier, auth.nonce) == ("failed", "", "")  # erased once the sign-in ended
    c = Client(raise_request_exception=False)
    c.force_login(make_staff(superuser=True))
    listing = c.get(reverse("admin:aml_bankidauthorization_changelist"))
    page = c.get(reverse("admin:aml_bankidauthorization_change", args=[auth.pk]))
    assert listing.status_code == page.status_code == 200
    html = page.content.decode()
    assert errors.BANKID_ID_TOKEN_INVALID.code in html and "reason=nonce" in html
    assert all(v not in html for v in secrets) and auth.state_hash not in html


@pytest.mark.django_db(transaction=True)
def test_the_same_answer_sent_twice_at_once_identifies_once(bankid_op):
    """Two requests with one state at the same instant (a double tap, a replay racing the real one): the sign-in is
    claimed by one of them under its row lock; the other is refused; one identification, one code exchange."""
    import threading

    from aml.services import bankid_complete
    from core.errors import DomainError

    player = applicant()
    bankid_op.login(bankid_profile_for(player))
    answer = bankid_op.authorize(start(player)["authorization_url"])
    barrier = threading.Barrier(2)
    outcomes: list[str] = []
    lock = threading.Lock()

    def call() -> None:
        try:
            barrier.wait(timeout=20)
            bankid_complete(player=player, state=answer["state"], code=answer["code"], actor=Actor.player(player))
            result = "approved"
        except DomainError as exc:
            result = exc.code
        except Exception as exc:  # noqa: BLE001 - a deadlock or an unexpected error would land here
            result = repr(exc)
        finally:
            connection.close()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == [BANKID_STATE_INVALID.code, "approved"], outcomes
    assert IdentificationCheck.objects.filter(player=player).count() == 1
    assert bankid_op.requests.count(("POST", "/token")) == 1
