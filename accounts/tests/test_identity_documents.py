"""Identity details: the identity document of a citizen and of a foreigner (GP §2 point 9: průkaz totožnosti) and
the permanent residence kept apart from the residence (GP §4(4)a)."""

from datetime import date

import pytest

from accounts import services
from accounts.errors import INVALID_PERSONAL_DATA
from accounts.models import PersonalData, Player
from accounts.validation import validate_document, validate_personal_data
from core.audit import Actor
from core.errors import DomainError
from tests.kit.accounts import applicant_data, make_player, make_register_record, registration_payload

TODAY = date(2026, 6, 15)
CZ_DOC = {
    "document_number": "123456789",
    "document_issuing_authority": "MěÚ Praha 1",
    "document_valid_until": "2030-01-01",
}


def problems(**overrides):
    with pytest.raises(DomainError) as exc:
        validate_personal_data(applicant_data(**overrides), today=TODAY)
    assert exc.value.code == INVALID_PERSONAL_DATA.code
    return exc.value.details["fields"]


def valid(**overrides):
    return validate_personal_data(applicant_data(**overrides), today=TODAY)


# A Czech citizen (GP §2 point 9) ------------------------------------------------------------------------------------
def test_a_czech_citizen_shows_the_identity_card():
    clean = valid(document_type="id_card", document_issuing_state="CZ")
    assert clean["document_type"] == "id_card" and clean["id_card_unavailable"] is False


def test_a_czech_citizen_may_show_a_passport_or_a_driving_licence_only_when_the_card_cannot_be_shown():
    for kind in ("passport", "driving_licence"):
        assert problems(document_type=kind) == {"document_type": ["id_card_required"]}, kind
        clean = valid(document_type=kind, id_card_unavailable=True)
        assert clean["document_type"] == kind and clean["id_card_unavailable"] is True


def test_the_declaration_comes_as_a_boolean_or_as_the_text_of_a_form_or_correction():
    assert valid(document_type="driving_licence", id_card_unavailable="true")["id_card_unavailable"] is True
    assert problems(document_type="driving_licence", id_card_unavailable="false") == {
        "document_type": ["id_card_required"]
    }
    assert problems(id_card_unavailable="perhaps") == {"id_card_unavailable": ["invalid_boolean"]}


def test_a_czech_citizen_who_shows_the_card_cannot_declare_it_unavailable():
    assert problems(document_type="id_card", id_card_unavailable=True) == {
        "id_card_unavailable": ["contradicts_document_type"]
    }


def test_a_czech_citizen_has_no_residence_permit_and_a_czech_identity_card_is_issued_by_the_czech_republic():
    assert problems(document_type="residence_permit") == {"document_type": ["not_for_czech_citizens"]}
    assert problems(document_type="id_card", document_issuing_state="SK") == {
        "document_issuing_state": ["issuing_state_mismatch"]
    }


# A foreigner (GP §2 point 9, §4(6)) ---------------------------------------------------------------------------------
def test_a_foreigner_shows_an_identity_card_of_their_state_a_passport_or_a_czech_residence_permit():
    assert valid(foreigner=True)["document_type"] == "residence_permit"  # issued by CZ
    assert valid(foreigner=True, document_type="id_card", document_issuing_state="SK")["citizenship"] == "SK"
    assert valid(foreigner=True, document_type="passport", document_issuing_state="SK")["document_type"] == "passport"


def test_a_foreigner_may_not_show_a_driving_licence():
    assert problems(foreigner=True, document_type="driving_licence", id_card_unavailable=True) == {
        "document_type": ["not_for_foreigners"]
    }


def test_a_foreigners_identity_card_is_of_their_own_state_and_the_residence_permit_czech():
    assert problems(foreigner=True, document_type="id_card", document_issuing_state="CZ") == {
        "document_issuing_state": ["issuing_state_mismatch"]
    }
    assert problems(foreigner=True, document_type="residence_permit", document_issuing_state="SK") == {
        "document_issuing_state": ["issuing_state_mismatch"]
    }


def test_a_document_recorded_at_a_branch_is_checked_against_the_holders_citizenship():
    doc = {**CZ_DOC, "document_type": "driving_licence", "document_issuing_state": "CZ"}
    with pytest.raises(DomainError) as exc:
        validate_document(doc, today=TODAY, citizenship="CZ")
    assert exc.value.details["fields"] == {"document_type": ["id_card_required"]}
    assert (
        validate_document({**doc, "id_card_unavailable": True}, today=TODAY, citizenship="CZ")["id_card_unavailable"]
        is True
    )
    with pytest.raises(DomainError) as exc:
        validate_document({**doc, "id_card_unavailable": True}, today=TODAY, citizenship="SK")
    assert exc.value.details["fields"] == {"document_type": ["not_for_foreigners"]}


# The permanent residence (GP §4(4)a) ---------------------------------------------------------------------------------
def test_without_another_permanent_residence_it_is_the_residence():
    clean = valid(residence_street="Vodičkova 7", residence_city="Praha", residence_postal_code="11000")
    assert (
        clean["permanent_residence_street"],
        clean["permanent_residence_city"],
        clean["permanent_residence_postal_code"],
        clean["permanent_residence_country"],
    ) == ("Vodičkova 7", "Praha", "110 00", "CZ")


def test_a_permanent_residence_apart_from_the_residence_is_kept():
    clean = valid(
        permanent_residence_street="Masarykova 12",
        permanent_residence_city="Brno",
        permanent_residence_postal_code="60200",
        permanent_residence_country="cz",
    )
    assert clean["residence_city"] == "Praha" and clean["permanent_residence_city"] == "Brno"
    assert clean["permanent_residence_postal_code"] == "602 00" and clean["permanent_residence_country"] == "CZ"


def test_a_foreigners_permanent_residence_may_be_abroad_with_that_countrys_postal_code():
    clean = valid(
        foreigner=True,
        permanent_residence_street="Hlavná 1",
        permanent_residence_city="Košice",
        permanent_residence_postal_code="040 01",
        permanent_residence_country="SK",
    )
    assert clean["permanent_residence_country"] == "SK" and clean["residence_country"] == "CZ"
    assert (
        valid(
            foreigner=True,
            permanent_residence_street="Main Street 1",
            permanent_residence_city="Dublin",
            permanent_residence_country="IE",
        )["permanent_residence_postal_code"]
        == ""
    )


def test_a_partial_or_invalid_permanent_residence_is_refused():
    assert problems(permanent_residence_city="Brno") == {
        "permanent_residence_street": ["required"],
        "permanent_residence_country": ["required"],
    }
    assert problems(
        permanent_residence_street="Masarykova 12", permanent_residence_city="Brno", permanent_residence_country="CZ"
    ) == {"permanent_residence_postal_code": ["invalid_postal_code"]}
    assert problems(
        permanent_residence_street="Masarykova",
        permanent_residence_city="Brno",
        permanent_residence_postal_code="602 00",
        permanent_residence_country="CZ",
    ) == {"permanent_residence_street": ["house_number_missing"]}
    assert problems(
        permanent_residence_street="Ulica 1",
        permanent_residence_city="X",
        permanent_residence_postal_code="!!",
        permanent_residence_country="XX",
    ) == {
        "permanent_residence_country": ["invalid_country"],
        "permanent_residence_postal_code": ["invalid_postal_code"],
    }


# Through the API and the services -------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_registration_accepts_the_new_optional_fields_and_stores_both_addresses(register):
    payload = registration_payload(
        document_type="driving_licence",
        id_card_unavailable=True,
        permanent_residence_street="Masarykova 12",
        permanent_residence_city="Brno",
        permanent_residence_postal_code="602 00",
        permanent_residence_country="CZ",
    )
    make_register_record(payload)
    r = register(payload)
    assert r.status_code == 201, r.content
    pd = PersonalData.objects.get(player__user__username=payload["username"])
    assert pd.document_type == "driving_licence" and pd.id_card_unavailable
    assert pd.residence_city == "Praha" and pd.permanent_residence_city == "Brno"


@pytest.mark.django_db
def test_registration_without_the_new_fields_still_works_as_before(register):
    payload = registration_payload()
    make_register_record(payload)
    assert register(payload).status_code == 201
    pd = PersonalData.objects.get(player__user__username=payload["username"])
    assert pd.permanent_residence_street == pd.residence_street and not pd.id_card_unavailable


@pytest.mark.django_db
def test_a_czech_driving_licence_without_the_declaration_is_refused_by_the_api(register):
    payload = registration_payload(document_type="driving_licence")
    make_register_record(payload)
    r = register(payload)
    assert r.status_code == 400 and r.json()["error"]["details"]["fields"] == {"document_type": ["id_card_required"]}
    assert Player.objects.count() == 0


@pytest.mark.django_db
def test_a_correction_of_the_residence_leaves_the_permanent_residence_alone():
    player = make_player()
    before = player.personal.permanent_residence_street
    services.personal_data_update(
        player=player, changes={"residence_street": "Národní 5"}, actor=Actor.system("test"), reason="moved"
    )
    player.personal.refresh_from_db()
    assert player.personal.residence_street == "Národní 5" and player.personal.permanent_residence_street == before
