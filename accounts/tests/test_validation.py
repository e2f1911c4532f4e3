"""GP §4(4)a personal data validation: birth number, contacts, address, document, age."""

from datetime import date

import pytest

from accounts.errors import INVALID_PERSONAL_DATA, UNDERAGE
from accounts.validation import age_on, require_adult, validate_personal_data
from core.errors import DomainError
from tests.kit.accounts import applicant_data, birth_number_for

TODAY = date(2026, 6, 15)


def problems(**overrides):
    with pytest.raises(DomainError) as exc:
        validate_personal_data(applicant_data(**overrides), today=TODAY)
    assert exc.value.code == INVALID_PERSONAL_DATA.code
    return exc.value.details["fields"]


def test_valid_data_are_cleaned_phone_to_e164_and_postal_code_to_the_czech_form():
    clean = validate_personal_data(applicant_data(phone="731 000 123", residence_postal_code="11000", n=4), today=TODAY)
    assert clean["phone"] == "+420731000123"
    assert clean["residence_postal_code"] == "110 00"


def test_a_birth_number_with_a_wrong_check_digit_is_refused():
    bn = birth_number_for(date(1980, 1, 1), serial=12)
    wrong = bn[:-1] + str((int(bn[-1]) + 1) % 10)
    assert problems(birth_number=wrong, date_of_birth="1980-01-01", sex="M") == {"birth_number": ["checksum"]}


def test_a_birth_number_with_a_slash_is_accepted():
    bn = birth_number_for(date(1980, 1, 1), serial=12)
    clean = validate_personal_data(
        applicant_data(birth_number=f"{bn[:6]}/{bn[6:]}", date_of_birth="1980-01-01", sex="M"), today=TODAY
    )
    assert clean["birth_number"] == bn


def test_a_birth_number_must_match_the_date_of_birth():
    bn = birth_number_for(date(1980, 1, 1), serial=12)
    assert problems(birth_number=bn, date_of_birth="1980-01-02", sex="M") == {"birth_number": ["dob_mismatch"]}


def test_a_birth_number_must_match_the_sex_women_have_fifty_added_to_the_month():
    woman = birth_number_for(date(1985, 3, 4), sex="F", serial=7)
    assert woman[2:4] == "53"
    assert problems(birth_number=woman, date_of_birth="1985-03-04", sex="M") == {"birth_number": ["sex_mismatch"]}
    validate_personal_data(applicant_data(birth_number=woman, date_of_birth="1985-03-04", sex="F"), today=TODAY)


def test_a_czech_citizen_needs_a_birth_number_but_a_foreigner_may_have_none():
    assert problems(birth_number="", citizenship="CZ") == {"birth_number": ["required_for_czech_citizens"]}
    clean = validate_personal_data(applicant_data(foreigner=True), today=TODAY)
    assert clean["birth_number"] == "" and clean["citizenship"] == "SK"


def test_email_phone_postal_code_and_country_are_checked():
    assert problems(email="not-an-email")["email"] == ["invalid_email"]
    assert problems(phone="+420 12")["phone"] == ["invalid_phone"]
    assert problems(residence_postal_code="010 00")["residence_postal_code"] == ["invalid_postal_code"]
    assert problems(citizenship="XX")["citizenship"] == ["invalid_country"]


def test_residence_must_be_in_the_czech_republic_with_a_house_number():
    assert problems(residence_country="SK")["residence_country"] == ["residence_not_cz"]
    assert problems(residence_street="Vodičkova")["residence_street"] == ["house_number_missing"]


def test_all_problems_are_reported_at_once_including_missing_fields():
    found = problems(given_names="", email="x", document_type="library_card")
    assert found["given_names"] == ["required"]
    assert found["email"] == ["invalid_email"]
    assert found["document_type"] == ["invalid_choice"]


def test_an_unknown_field_is_refused():
    assert problems(favourite_colour="red") == {"favourite_colour": ["unknown_field"]}


def test_a_document_valid_until_yesterday_is_refused_and_one_valid_until_today_is_accepted():
    assert problems(document_valid_until="2026-06-14")["document_valid_until"] == ["document_expired"]
    validate_personal_data(applicant_data(document_valid_until="2026-06-15"), today=TODAY)


def test_age_is_counted_in_full_years_on_the_day_of_the_check():
    require_adult(date(2008, 6, 15), TODAY)  # 18th birthday today
    with pytest.raises(DomainError) as exc:
        require_adult(date(2008, 6, 16), TODAY)  # 18 tomorrow
    assert exc.value.code == UNDERAGE.code


def test_someone_born_on_29_february_comes_of_age_on_1_march_in_a_common_year():
    assert age_on(date(2008, 2, 29), date(2026, 2, 28)) == 17
    assert age_on(date(2008, 2, 29), date(2026, 3, 1)) == 18


def test_a_date_of_birth_in_the_future_is_refused():
    assert "in_future" in problems(date_of_birth="2030-01-01", birth_number="")["date_of_birth"]
