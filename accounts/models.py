"""People: users (credentials), players (one per person), personal data, consents,
login sessions, identity checks, duplicates, and the sandbox tables of the adapters.

Other apps reference ``accounts.Player`` as *the* participant and read it only through
``accounts.selectors``; writes go through ``accounts.services``.
"""
import hashlib

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q


class User(AbstractUser):
    """Credentials of a player or a staff member (staff: is_staff)."""

    must_change_password = models.BooleanField(default=False)  # GP §4(7): first password changed at first login


class Player(models.Model):
    """A participant (Účastník). One per person (GP §5(3)).

    The status moves only through the services in ``accounts.services.lifecycle`` (each
    transition is audited). Deadlines are row fields read by sweepers.
    """

    class Status(models.TextChoices):
        APPLICANT = "applicant", "applicant (data entered, age not yet verified)"
        TEMPORARY = "temporary", "temporary account (GP §5(1))"
        ACTIVE = "active", "player account"
        SUSPENDED = "suspended", "suspended"
        CLOSING = "closing", "closing (settlement pending)"
        CLOSED = "closed", "closed"
        EXPIRED = "expired", "temporary account expired (GP §5(2)a)"
        REJECTED = "rejected", "registration refused (register check failed or not finished)"

    TERMINAL = (Status.CLOSED, Status.EXPIRED, Status.REJECTED)

    class Channel(models.TextChoices):
        ONLINE = "online", "online (self-service)"
        BRANCH = "branch", "branch (staff)"

    class ClosureMethod(models.TextChoices):
        TRANSFER = "transfer", "transfer to the registered payment method"
        BRANCH_CASH = "branch_cash", "cash at a branch (max 5,000 CZK / 24 h)"

    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="player")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.APPLICANT, db_index=True)
    created_at = models.DateTimeField()
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.ONLINE)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    status_reason = models.CharField(max_length=200, blank=True, default="")
    suspended_from = models.CharField(max_length=20, blank=True, default="")  # status to return to

    # Register checks that could not run yet (register unavailable): retried by a sweeper.
    checks_retry_at = models.DateTimeField(null=True, blank=True, db_index=True)
    checks_attempts = models.PositiveIntegerField(default=0)
    identity_verified_at = models.DateTimeField(null=True, blank=True)  # GP §4(4)c
    aml_identified_at = models.DateTimeField(null=True, blank=True)  # GP §4(4)b

    # Temporary account (GP §5(1), §5(2)a).
    temporary_activated_at = models.DateTimeField(null=True, blank=True)
    temporary_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    completed_at = models.DateTimeField(null=True, blank=True)  # GP §4(8)

    # Credentials (GP §4(7)): e-mail link -> first password by SMS -> changed at first login.
    email_link_seq = models.PositiveIntegerField(default=0)
    email_link_used_seq = models.PositiveIntegerField(default=0)
    email_confirmed_at = models.DateTimeField(null=True, blank=True)
    first_password_sent_at = models.DateTimeField(null=True, blank=True)

    # Closure (GP §4(10), §5(15)) and the balance hand-off to the wallet.
    closure_requested_at = models.DateTimeField(null=True, blank=True)
    closure_method = models.CharField(max_length=20, choices=ClosureMethod.choices, blank=True, default="")
    closed_at = models.DateTimeField(null=True, blank=True)
    # "refund" (GP §5(2)e) or "settlement" (GP §5(15)): the wallet process still to be started.
    balance_handoff = models.CharField(max_length=20, blank=True, default="")
    balance_handoff_at = models.DateTimeField(null=True, blank=True)
    balance_handoff_error = models.CharField(max_length=200, blank=True, default="")

    # Flags that refuse betting (GP §3(3), exclusion register).
    barred_insider = models.BooleanField(default=False)
    barred_insider_note = models.CharField(max_length=200, blank=True, default="")
    exclusion_listed = models.BooleanField(default=False)
    exclusion_checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["balance_handoff"], name="acc_player_handoff_idx",
                         condition=~Q(balance_handoff="")),
        ]

    def __str__(self):
        return f"{self.user.username} ({self.status})"


class PersonalData(models.Model):
    """GP §4(4)a personal data (ZHH + AML) of one player. Changes only through services (audited)."""

    class Sex(models.TextChoices):
        MALE = "M", "male"
        FEMALE = "F", "female"

    class DocumentType(models.TextChoices):
        ID_CARD = "id_card", "identity card (občanský průkaz)"
        PASSPORT = "passport", "passport"
        RESIDENCE_PERMIT = "residence_permit", "residence permit"

    player = models.OneToOneField(Player, on_delete=models.PROTECT, related_name="personal")
    given_names = models.CharField(max_length=100)
    surname = models.CharField(max_length=100)
    birth_surname = models.CharField(max_length=100, blank=True, default="")
    birth_number = models.CharField(max_length=10, blank=True, default="")  # digits only; foreigners may lack one
    date_of_birth = models.DateField()
    place_of_birth = models.CharField(max_length=100)
    sex = models.CharField(max_length=1, choices=Sex.choices)
    citizenship = models.CharField(max_length=2)  # ISO 3166-1 alpha-2
    residence_street = models.CharField(max_length=200)
    residence_city = models.CharField(max_length=100)
    residence_postal_code = models.CharField(max_length=6)
    residence_country = models.CharField(max_length=2, default="CZ")
    correspondence_address = models.CharField(max_length=300, blank=True, default="")
    phone = models.CharField(max_length=20)  # E.164
    email = models.EmailField()
    data_box_id = models.CharField(max_length=7, blank=True, default="")
    document_type = models.CharField(max_length=20, choices=DocumentType.choices)
    document_number = models.CharField(max_length=30)
    document_issuing_state = models.CharField(max_length=2)
    document_issuing_authority = models.CharField(max_length=100)
    document_valid_until = models.DateField()

    # Normalised keys for duplicate detection (GP §4(4)c) and the stable person key (ZHH §14a).
    email_key = models.CharField(max_length=254, db_index=True)
    document_key = models.CharField(max_length=40, db_index=True)
    name_dob_key = models.CharField(max_length=250, db_index=True)
    person_key = models.CharField(max_length=64, db_index=True)
    updated_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["birth_number"], name="acc_pd_birth_number_idx"),
            models.Index(fields=["phone"], name="acc_pd_phone_idx"),
        ]

    def __str__(self):
        return f"{self.given_names} {self.surname} ({self.date_of_birth})"


class Consent(models.Model):
    """A consent or acknowledgement with the document version (GP §4(4)d, §12(3),(6))."""

    class Kind(models.TextChoices):
        TERMS = "terms", "general terms and conditions"
        DATA_PROCESSING = "data_processing", "personal-data processing (mandatory)"
        GAME_PLAN = "game_plan", "acknowledged the game plan"
        MARKETING = "marketing", "marketing (optional)"

    MANDATORY = (Kind.TERMS, Kind.DATA_PROCESSING, Kind.GAME_PLAN)

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="consents")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    version = models.CharField(max_length=30)
    given_at = models.DateTimeField()
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-given_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "kind"], condition=Q(withdrawn_at__isnull=True),
                                    name="acc_consent_one_live_per_kind"),
        ]


class LoginSession(models.Model):
    """One login: started by POST auth/login, ended by logout, idle timeout or a forced logout.

    The limits app counts logins per month and logged-in time from these rows.
    """

    class EndReason(models.TextChoices):
        LOGOUT = "logout", "logout"
        TIMEOUT = "timeout", "idle timeout"
        FORCED = "forced", "forced (limits, exclusion, staff, closure ...)"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="login_sessions")
    started_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, blank=True, default="")
    end_detail = models.CharField(max_length=200, blank=True, default="")
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["player", "started_at"], name="acc_session_player_start_idx"),
            models.Index(fields=["last_seen_at"], name="acc_session_open_idx", condition=Q(ended_at__isnull=True)),
        ]


class AuthToken(models.Model):
    """A revocable API token; only its SHA-256 is stored. Login tokens belong to a LoginSession."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="auth_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=50, blank=True, default="")
    session = models.ForeignKey(LoginSession, null=True, blank=True, on_delete=models.CASCADE, related_name="tokens")

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()


class RegisterCheck(models.Model):
    """One question asked of a state register and its answer (population / exclusion)."""

    class Register(models.TextChoices):
        POPULATION = "population", "population register (GP §4(4)c)"
        EXCLUSION = "exclusion", "register of excluded persons"

    class Result(models.TextChoices):
        FOUND = "found", "found, data match"
        NOT_FOUND = "not_found", "not found"
        MISMATCH = "mismatch", "data mismatch"
        UNDER_18 = "under_18", "under 18"
        LISTED = "listed", "listed"
        NOT_LISTED = "not_listed", "not listed"
        UNAVAILABLE = "unavailable", "register unavailable"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="register_checks")
    register = models.CharField(max_length=20, choices=Register.choices)
    context = models.CharField(max_length=30)  # registration, retry, login, periodic, staff ...
    result = models.CharField(max_length=20, choices=Result.choices)
    details = models.JSONField(default=dict, blank=True)
    checked_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-checked_at", "-id"]


class IdentityVerification(models.Model):
    """AML identification (GP §4(4)b): online through the register match, or at a branch by staff."""

    class Method(models.TextChoices):
        ONLINE_REGISTER = "online_register", "online, population register match"
        BRANCH = "branch", "at a branch, document inspected by staff"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="identity_verifications")
    method = models.CharField(max_length=20, choices=Method.choices)
    document_type = models.CharField(max_length=20)
    document_number = models.CharField(max_length=30)
    document_issuing_state = models.CharField(max_length=2)
    document_issuing_authority = models.CharField(max_length=100)
    document_valid_until = models.DateField()
    likeness_confirmed = models.BooleanField(default=False)
    verified_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    verified_at = models.DateTimeField()
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-verified_at", "-id"]


class DuplicateCase(models.Model):
    """Personal data matching another person (GP §4(4)c, §5(3)).

    ``registration``: a refused application waiting for customer support (the submitted data
    are kept in ``application``); ``accounts``: existing accounts of one person found later,
    whose deposits and withdrawals are frozen while the case is open.
    """

    class Kind(models.TextChoices):
        REGISTRATION = "registration", "refused registration"
        ACCOUNTS = "accounts", "existing accounts"

    class State(models.TextChoices):
        OPEN = "open", "open"
        DISTINCT = "distinct", "resolved: different persons"
        CONFIRMED = "confirmed", "resolved: the same person"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    state = models.CharField(max_length=20, choices=State.choices, default=State.OPEN, db_index=True)
    players = models.ManyToManyField(Player, related_name="duplicate_cases", blank=True)
    matched_fields = models.JSONField(default=list)
    application = models.JSONField(null=True, blank=True)  # the refused registration's data
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    resolution_note = models.CharField(max_length=500, blank=True, default="")
    registered_player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"duplicate case #{self.pk} ({self.kind}, {self.state})"


class CorrectionRequest(models.Model):
    """A player's request to correct personal data (GP §12(7)); staff decide in the admin."""

    class State(models.TextChoices):
        PENDING = "pending", "pending"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="correction_requests")
    changes = models.JSONField()  # {field: new value}
    note = models.CharField(max_length=500, blank=True, default="")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING, db_index=True)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    decision_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]


class BarredPerson(models.Model):
    """GP §3(3): the operator's shareholders, employees and statutory officers (kept by staff)."""

    class Role(models.TextChoices):
        SHAREHOLDER = "shareholder", "shareholder"
        EMPLOYEE = "employee", "employee"
        OFFICER = "officer", "statutory officer"

    given_names = models.CharField(max_length=100)
    surname = models.CharField(max_length=100)
    date_of_birth = models.DateField()
    birth_number = models.CharField(max_length=10, blank=True, default="")
    role = models.CharField(max_length=20, choices=Role.choices)
    active = models.BooleanField(default=True)
    name_dob_key = models.CharField(max_length=250, db_index=True, editable=False)
    note = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "barred persons (GP §3(3))"

    def __str__(self):
        return f"{self.given_names} {self.surname} ({self.role})"


# Sandbox tables of the adapters (development, tests, demo) --------------------------------
class SandboxPopulationRecord(models.Model):
    """A person as the sandbox population register knows them."""

    birth_number = models.CharField(max_length=10, blank=True, default="", db_index=True)
    given_names = models.CharField(max_length=100)
    surname = models.CharField(max_length=100)
    date_of_birth = models.DateField()
    sex = models.CharField(max_length=1, blank=True, default="")
    citizenship = models.CharField(max_length=2, default="CZ")
    resident_in_cz = models.BooleanField(default=True)
    simulate_unavailable = models.BooleanField(default=False, help_text="answer 'register unavailable' for this person")
    note = models.CharField(max_length=200, blank=True, default="")

    def __str__(self):
        return f"{self.given_names} {self.surname} {self.date_of_birth} {self.birth_number}"


class SandboxExclusionEntry(models.Model):
    """An entry of the sandbox register of excluded persons."""

    class Outcome(models.TextChoices):
        LISTED = "listed", "listed"
        UNAVAILABLE = "unavailable", "answer 'register unavailable'"

    birth_number = models.CharField(max_length=10, blank=True, default="", db_index=True)
    given_names = models.CharField(max_length=100, blank=True, default="")
    surname = models.CharField(max_length=100, blank=True, default="")
    date_of_birth = models.DateField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.LISTED)
    listed_until = models.DateTimeField(null=True, blank=True)
    source = models.CharField(max_length=20, default="ministry")  # ministry | self_request
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "sandbox exclusion entries"


class SandboxSms(models.Model):
    """An SMS 'sent' by the sandbox gateway (tests and the demo read the first password here)."""

    to = models.CharField(max_length=20, db_index=True)
    text = models.TextField()
    purpose = models.CharField(max_length=50, blank=True, default="")
    sent_at = models.DateTimeField()

    class Meta:
        ordering = ["-sent_at", "-id"]
        verbose_name = "sandbox SMS"
        verbose_name_plural = "sandbox SMS"
