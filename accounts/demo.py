"""Demo data of the accounts app (idempotent): sandbox register records and players in each state."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, TextIO

from django.conf import settings
from django.db import transaction

from accounts import rules
from accounts.adapters import RegisterUnavailable, uses_aisg
from accounts.aisg.sandbox_keys import keys_of_url
from accounts.demo_people import applicant_data, birth_number_for, make_personal_data
from accounts.models import (
    BarredPerson,
    Consent,
    DataRequest,
    DuplicateCase,
    Player,
    RegisterReview,
    SandboxExclusionEntry,
    SandboxPopulationRecord,
    User,
)
from accounts.services import barred_person_save, data_request_create, exclusion_check, registration_submit
from core import clock
from core.audit import Actor
from core.errors import DomainError

DEMO_PASSWORD = "Demo-heslo-2026"


#: the demo player whose AML identification is still to be done (the aml demo's doubtful identification)
UNIDENTIFIED = "demo_identifying"
#: the demo player for whom the sandbox register of excluded persons does not answer (the register queue's item)
REGISTER_SILENT = "demo_suspended"
#: the demo player whose person is on the sandbox PEP list (``aml/data/sandbox_screening_list.json``, SBX-PEP-002):
#: the aml demo screens it, and the hit waits in compliance's queue
LISTED_PEP = "demo_pep"
_PEP_DOB = date(1975, 6, 30)
#: personal data other than the generated ones (``applicant_data``), per demo player
OVERRIDES: dict[str, dict[str, Any]] = {
    LISTED_PEP: {
        "given_names": "Marie",
        "surname": "Ministrová",
        "sex": "F",
        "date_of_birth": _PEP_DOB.isoformat(),
        "birth_number": birth_number_for(_PEP_DOB, sex="F", serial=906),
    },
}


def seed(stdout: TextIO) -> None:
    now = clock.now()
    people = [
        # username, status, n (data seed), note
        ("demo_active", Player.Status.ACTIVE, 9001, "verified player"),
        ("demo_temporary", Player.Status.TEMPORARY, 9002, "temporary account, 30-day deadline running"),
        ("demo_excluded", Player.Status.ACTIVE, 9003, "listed in the sandbox exclusion register"),
        ("demo_suspended", Player.Status.SUSPENDED, 9004, "suspended by staff"),
        # the AML identification not done yet: the aml demo presents a document the provider finds doubtful
        ("demo_identifying", Player.Status.TEMPORARY, 9005, "temporary account, its AML identification under review"),
        # the person is a politically exposed person on the sandbox list: the aml demo's screening finds the hit
        (LISTED_PEP, Player.Status.TEMPORARY, 9006, "temporary account, found on the PEP list by the screening"),
    ]
    with transaction.atomic():
        for username, status, n, note in people:
            data = applicant_data(n=n, **OVERRIDES.get(username, {}))
            if not SandboxPopulationRecord.objects.filter(birth_number=data["birth_number"]).exists():
                SandboxPopulationRecord.objects.create(
                    birth_number=data["birth_number"],
                    given_names=data["given_names"],
                    surname=data["surname"],
                    date_of_birth=date.fromisoformat(data["date_of_birth"]),
                    sex=data["sex"],
                    note=f"demo: {note}",
                )
            if User.objects.filter(username=username).exists():
                continue
            user = User.objects.create_user(
                username=username,
                password=DEMO_PASSWORD,
                email=data["email"],
                first_name=data["given_names"],
                last_name=data["surname"],
            )
            player = Player.objects.create(
                user=user,
                status=status,
                created_at=now,
                status_changed_at=now,
                status_reason=f"demo: {note}",
                identity_verified_at=now,
                aml_identified_at=None if username == UNIDENTIFIED else now,
                temporary_activated_at=now,
                temporary_expires_at=now + timedelta(days=30),
                email_confirmed_at=now,
                first_password_sent_at=now,
                completed_at=None if status == Player.Status.TEMPORARY else now,
                suspended_from=Player.Status.ACTIVE if status == Player.Status.SUSPENDED else "",
            )
            make_personal_data(player, n=n, **OVERRIDES.get(username, {}))
            for kind, version in rules.document_versions().items():
                if kind != "marketing":
                    Consent.objects.create(player=player, kind=kind, version=version, given_at=now)
            if username == "demo_excluded":
                pd = player.personal
                SandboxExclusionEntry.objects.get_or_create(
                    birth_number=pd.birth_number,
                    defaults={
                        "given_names": pd.given_names,
                        "surname": pd.surname,
                        "date_of_birth": pd.date_of_birth,
                        "created_at": now,
                    },
                )
        # A person the sandbox register knows, free to register through the API (see docs/accounts.md).
        free = applicant_data(n=9100)
        SandboxPopulationRecord.objects.get_or_create(
            birth_number=free["birth_number"],
            defaults={
                "given_names": free["given_names"],
                "surname": free["surname"],
                "date_of_birth": date.fromisoformat(free["date_of_birth"]),
                "sex": free["sex"],
                "note": "demo: free to register online",
            },
        )
        if not DuplicateCase.objects.filter(application__demo=True).exists():  # compliance's duplicate queue
            DuplicateCase.objects.create(
                kind=DuplicateCase.Kind.REGISTRATION,
                created_at=now,
                matched_fields=["birth_number"],
                application={
                    "demo": True,
                    "username": "demo_duplicate",
                    "given_names": "Jan",
                    "surname": "Novák",
                    "note": "demo: a refused registration with the birth number of an existing player",
                },
            )
        if not BarredPerson.objects.exists():
            barred_person_save(
                person=BarredPerson(
                    given_names="Petr",
                    surname="Zaměstnanec",
                    date_of_birth=date(1980, 5, 5),
                    role="employee",
                    note="demo insider (GP §3(3))",
                ),
                actor=Actor.system("demo"),
            )
    _data_request(stdout)
    _register_outage(stdout)
    _aisg_answers(stdout)
    anybody = (
        " (with the AISG sandbox any identity but its documented surnames registers: docs/accounts.md)"
        if uses_aisg()
        else ""
    )
    stdout.write(
        f"accounts: demo players {', '.join(p[0] for p in people)} / {DEMO_PASSWORD}; "
        f"free sandbox identity for online registration: birth number {free['birth_number']} "
        f"({free['given_names']} {free['surname']}, {free['date_of_birth']}){anybody}"
    )


def _data_request(stdout: TextIO) -> None:
    """A personal-data request of the active demo player for compliance to answer (GDPR art. 15; idempotent)."""
    player = Player.objects.filter(user__username="demo_active").first()
    if player is None or DataRequest.objects.filter(player=player).exists():
        return
    data_request_create(
        player=player,
        kind=DataRequest.Kind.EXPLANATION,
        actor=Actor.player(player),
        text="[demo] Which of my personal data do you process, and why?",
    )
    stdout.write("accounts: demo_active asked how the personal data are processed (compliance answers)")


def _register_outage(stdout: TextIO) -> None:
    """The sandbox register of excluded persons does not answer for the suspended demo player (its entry's outcome
    is "unavailable", the sandbox's outage); staff's exclusion check (the admin's action) fails closed and opens the
    outage case in the queue "register answers to review" (``accounts.check_exclusion``). Idempotent: skipped once
    the player has a case."""
    player = Player.objects.select_related("personal").filter(user__username=REGISTER_SILENT).first()
    if player is None or RegisterReview.objects.filter(player=player).exists():
        return
    pd = player.personal
    SandboxExclusionEntry.objects.get_or_create(
        birth_number=pd.birth_number,
        defaults={
            "given_names": pd.given_names,
            "surname": pd.surname,
            "date_of_birth": pd.date_of_birth,
            "outcome": SandboxExclusionEntry.Outcome.UNAVAILABLE,
            "created_at": clock.now(),
        },
    )
    try:
        exclusion_check(player=player, actor=Actor.system("accounts.demo"), context="staff")
    except RegisterUnavailable as exc:
        stdout.write(f"accounts: the exclusion register did not answer for {REGISTER_SILENT} ({exc}): staff review it")


#: the registrations the AISG sandbox refuses, by its documented surnames (``accounts.aisg.sandbox.SURNAME_RULES``):
#: a person the population register does not find, and one it says is under 18 (the birth date declared is adult)
#: (surname, the data seed: odd for a woman, even for a man, as the birth number encodes it, what AISG answers)
AISG_REFUSED = (("Nenalezená", 9201, "not found (NENALEZENA)"), ("Nezletilý", 9202, "under 18 (Plnoleta=NE)"))


def _aisg_answers(stdout: TextIO) -> None:
    """Two online registrations the Ministry's AISG interface refuses (with ``make run``, the AISG sandbox answers;
    ``accounts.aisg.sandbox``): through the registration service, whose decision table refuses them and opens a
    manual review each in the queue "register answers to review". Only when both registers are AISG's sandbox;
    idempotent: a surname with an open registration review is not sent again."""
    if not uses_aisg() or keys_of_url(settings.ACCOUNTS_AISG_URL) is None:
        stdout.write("accounts: the registers are not the AISG sandbox (make run configures it): no AISG refusals")
        return
    for surname, n, what in AISG_REFUSED:
        if RegisterReview.objects.filter(context="registration", details__application__surname=surname).exists():
            continue
        data = applicant_data(n=n, surname=surname)
        consents = {kind: version for kind, version in rules.document_versions().items() if kind != "marketing"}
        try:
            registration_submit(data=data, consents={**consents, "marketing": False}, username=f"demo_aisg_{n}")
        except DomainError as err:
            stdout.write(f"accounts: AISG answered {what} for {data['given_names']} {surname}: refused ({err.code})")
