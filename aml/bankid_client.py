"""Bank iD: online AML identification by the player's bank, over OpenID Connect (docs/aml.md "Bank iD").

Bank iD (the Czech banks' identity service) is an OpenID provider. This adapter is its relying party, built on
authlib's OAuth 2.0 client and joserfc; it writes no JWT code of its own:

* :meth:`BankIdProvider.authorization_request` - the authorization code flow with PKCE (S256): a fresh ``state``,
  ``nonce`` and ``code_verifier`` and the URL of the bank's authorization endpoint (from the discovery document).
* :meth:`BankIdProvider.exchange` - the code for tokens at the token endpoint (client authentication
  ``client_secret_post``, ``client_secret_basic`` or ``private_key_jwt``); the ID token's signature checked against
  the issuer's JWKS (cached, fetched again once when the token names a key the cache does not know), its ``iss``,
  ``aud``, ``nonce``, ``exp`` and ``iat`` (not in the future, not older than ``AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS``)
  checked; then the claims read from the profile (Bank iD's "Identify") or userinfo endpoint, JSON or a signed JWT,
  whose ``sub`` must be the ID token's.
* :func:`identity_from_claims` - the verified claims (``verified_claims.claims``, Bank iD's names) mapped to the
  platform's fields, refused when they are not AML-verified (``verified_claims.verification.trust_framework``) or
  miss what an identification needs.

Every call here is a network call: callers make them outside any database transaction. Failures are the
``aml.bankid_*`` errors of :mod:`aml.errors`; nothing here writes to the database.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlsplit

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from authlib.oidc.core import CodeIDToken
from django.conf import settings
from joserfc import jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    InvalidKeyIdError,
    JoseError,
    MissingClaimError,
    UnsupportedAlgorithmError,
)
from joserfc.jwk import ECKey, KeySet, RSAKey, import_key
from joserfc.jws import JWSRegistry

from aml import errors
from core import clock

CODE = "bankid"
#: signature algorithms an ID token may use (the issuer's advertised list is intersected with these): asymmetric only
ASYMMETRIC_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
AUTH_METHODS = ("client_secret_post", "client_secret_basic", "private_key_jwt")
#: Bank iD's ``idcards[].type`` -> the platform's document type (``accounts.PersonalData.DocumentType``)
IDCARD_TYPES = {"ID": "id_card", "P": "passport", "DL": "driving_licence", "IR": "residence_permit"}
DOCUMENT_TYPES_TO_BANKID = {v: k for k, v in IDCARD_TYPES.items()}


# Configuration --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BankIdConfig:
    issuer: str
    client_id: str
    client_secret: str
    auth_method: str
    private_key: str
    assertion_alg: str
    scopes: str
    acr_values: str
    claims_endpoint: str
    trust_framework: str
    timeout: float
    ca_bundle: str
    leeway: int
    max_age: int
    cache_seconds: int

    @classmethod
    def from_settings(cls) -> BankIdConfig:
        s = settings
        return cls(
            issuer=str(s.AML_BANKID_ISSUER),
            client_id=str(s.AML_BANKID_CLIENT_ID),
            client_secret=str(s.AML_BANKID_CLIENT_SECRET),
            auth_method=str(s.AML_BANKID_TOKEN_AUTH_METHOD),
            private_key=str(s.AML_BANKID_CLIENT_PRIVATE_KEY),
            assertion_alg=str(s.AML_BANKID_CLIENT_ASSERTION_ALG),
            scopes=str(s.AML_BANKID_SCOPES),
            acr_values=str(s.AML_BANKID_ACR_VALUES),
            claims_endpoint=str(s.AML_BANKID_CLAIMS_ENDPOINT),
            trust_framework=str(s.AML_BANKID_TRUST_FRAMEWORK),
            timeout=float(s.AML_BANKID_HTTP_TIMEOUT_SECONDS),
            ca_bundle=str(s.AML_BANKID_CA_BUNDLE),
            leeway=int(s.AML_BANKID_LEEWAY_SECONDS),
            max_age=int(s.AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS),
            cache_seconds=int(s.AML_BANKID_METADATA_CACHE_SECONDS),
        )

    @property
    def verify(self) -> str | bool:
        return self.ca_bundle or True


def _checked_url(url: Any, what: str) -> str:
    """An endpoint may be https, or plain http only on this machine's loopback (the tests' local provider)."""
    if not isinstance(url, str) or not url:
        raise errors.BANKID_UNAVAILABLE(reason=f"{what} missing")
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return url
    if parts.scheme == "http" and parts.hostname:
        host = parts.hostname
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if loopback:
            return url
    raise errors.BANKID_UNAVAILABLE(reason=f"{what} is not https")


# Discovery document and JWKS, cached per issuer -----------------------------------------------------------------

_cache_lock = threading.Lock()
_metadata_cache: dict[str, tuple[float, dict[str, Any]]] = {}
_jwks_cache: dict[str, tuple[float, KeySet]] = {}


def cache_clear() -> None:
    """Forget every cached discovery document and key set (tests; a key rotation refreshes by itself)."""
    with _cache_lock:
        _metadata_cache.clear()
        _jwks_cache.clear()


def _http_get_json(url: str, config: BankIdConfig, what: str) -> dict[str, Any]:
    try:
        resp = requests.get(url, timeout=config.timeout, verify=config.verify, headers={"Accept": "application/json"})
        if resp.status_code != 200:
            raise errors.BANKID_UNAVAILABLE(reason=f"{what}: HTTP {resp.status_code}")
        data = resp.json()
    except requests.RequestException as exc:
        raise errors.BANKID_UNAVAILABLE(reason=f"{what}: {type(exc).__name__}")
    except ValueError:
        raise errors.BANKID_UNAVAILABLE(reason=f"{what}: not JSON")
    if not isinstance(data, dict):
        raise errors.BANKID_UNAVAILABLE(reason=f"{what}: not a JSON object")
    return data


# What the provider answered --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthorizationRequest:
    """Where to send the player, and what the token exchange will need (kept server-side, never sent to the app)."""

    url: str
    state: str
    nonce: str
    code_verifier: str
    issuer: str


@dataclass(frozen=True)
class BankIdAnswer:
    """What the bank asserted, after every check: the ID token's claims and the profile/userinfo response."""

    id_token: dict[str, Any]
    claims: dict[str, Any]

    @property
    def subject(self) -> str:
        return str(self.id_token.get("sub", ""))


@dataclass(frozen=True)
class BankIdDocument:
    type: str  # the platform's document type
    number: str
    issuing_state: str
    issuing_authority: str
    valid_until: date


@dataclass(frozen=True)
class BankIdIdentity:
    """The verified claims, in the platform's terms (the mapping is documented in docs/aml.md)."""

    given_names: str
    surname: str
    date_of_birth: date
    birth_number: str
    nationalities: tuple[str, ...]
    documents: tuple[BankIdDocument, ...]
    permanent_residence: dict[str, str] = field(default_factory=dict)
    pep: bool | None = None
    limited_legal_capacity: bool | None = None
    majority: bool | None = None
    trust_framework: str = ""
    verification_process: str = ""
    transaction: str = ""
    verification: dict[str, Any] = field(default_factory=dict)  # ``verified_claims.verification`` as received
    verified_claims: dict[str, Any] = field(default_factory=dict)  # ``verified_claims.claims`` as received

    def extracted(self, document: BankIdDocument) -> dict[str, Any]:
        """The fields compared with the registration, named as the document provider's ``extracted``."""
        out: dict[str, Any] = {
            "given_names": self.given_names,
            "surname": self.surname,
            "date_of_birth": self.date_of_birth.isoformat(),
            "document_type": document.type,
            "document_number": document.number,
            "document_issuing_state": document.issuing_state,
            "document_issuing_authority": document.issuing_authority,
            "document_valid_until": document.valid_until.isoformat(),
            "nationalities": list(self.nationalities),
        }
        if self.birth_number:
            out["birth_number"] = self.birth_number
        if self.permanent_residence:
            out["permanent_residence"] = self.permanent_residence
        return out


# The relying party -----------------------------------------------------------------------------------------------


class BankIdProvider:
    """The Bank iD relying party (see the module docstring)."""

    code = CODE

    def __init__(self, config: BankIdConfig | None = None) -> None:
        self.config = config or BankIdConfig.from_settings()

    # metadata -----------------------------------------------------------------------------------------------------
    def metadata(self) -> dict[str, Any]:
        """The issuer's discovery document (``<issuer>/.well-known/openid-configuration``), cached."""
        c = self.config
        issuer = _checked_url(c.issuer, "AML_BANKID_ISSUER")
        with _cache_lock:
            hit = _metadata_cache.get(issuer)
        if hit is not None and time.monotonic() - hit[0] < c.cache_seconds:
            return hit[1]
        meta = _http_get_json(issuer.rstrip("/") + "/.well-known/openid-configuration", c, "discovery")
        if meta.get("issuer") != issuer:  # OpenID Connect Discovery 1.0, section 4.3
            raise errors.BANKID_UNAVAILABLE(reason="the discovery document names another issuer")
        for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            _checked_url(meta.get(name), name)
        methods = meta.get("code_challenge_methods_supported")
        if isinstance(methods, list) and "S256" not in methods:
            raise errors.BANKID_UNAVAILABLE(reason="the issuer does not support PKCE S256")
        with _cache_lock:
            _metadata_cache[issuer] = (time.monotonic(), meta)
        return meta

    def key_set(self, *, refresh: bool = False) -> KeySet:
        """The issuer's signing keys (``jwks_uri``), cached; ``refresh`` fetches them again."""
        uri = _checked_url(self.metadata().get("jwks_uri"), "jwks_uri")
        with _cache_lock:
            hit = _jwks_cache.get(uri)
        if hit is not None and not refresh and time.monotonic() - hit[0] < self.config.cache_seconds:
            return hit[1]
        data = _http_get_json(uri, self.config, "jwks")
        try:
            # the type: ignore below: joserfc wants its TypedDict; it checks the JSON
            keys = KeySet.import_key_set(data)  # type: ignore[arg-type]
        except (JoseError, ValueError, KeyError, TypeError):
            raise errors.BANKID_UNAVAILABLE(reason="jwks: not a key set")
        with _cache_lock:
            _jwks_cache[uri] = (time.monotonic(), keys)
        return keys

    def _algorithms(self) -> list[str]:
        advertised = self.metadata().get("id_token_signing_alg_values_supported") or ["RS256"]
        algs = [a for a in ASYMMETRIC_ALGORITHMS if a in advertised]
        if not algs:
            raise errors.BANKID_UNAVAILABLE(reason="the issuer signs ID tokens with no algorithm accepted here")
        return algs

    def _claims_url(self) -> str:
        meta = self.metadata()
        name = "profile_endpoint" if self.config.claims_endpoint == "profile" else "userinfo_endpoint"
        return _checked_url(meta.get(name), name)

    # the client ---------------------------------------------------------------------------------------------------
    def _client_credential(self) -> Any:
        c = self.config
        if c.auth_method != "private_key_jwt":
            return c.client_secret
        text = c.private_key.strip()
        try:
            if text.startswith("{"):
                return import_key(json.loads(text))
            try:
                return RSAKey.import_key(text)
            except (JoseError, ValueError):
                return ECKey.import_key(text)
        except (JoseError, ValueError, TypeError):
            raise errors.BANKID_UNAVAILABLE(reason="AML_BANKID_CLIENT_PRIVATE_KEY is not a private key")

    def _session(self, *, redirect_uri: str = "", token: dict[str, Any] | None = None) -> OAuth2Session:
        c = self.config
        if c.auth_method not in AUTH_METHODS:
            raise errors.BANKID_UNAVAILABLE(reason="AML_BANKID_TOKEN_AUTH_METHOD unknown")
        session = OAuth2Session(
            client_id=c.client_id,
            client_secret=self._client_credential(),
            token_endpoint_auth_method=c.auth_method,
            scope=c.scopes,
            redirect_uri=redirect_uri or None,
            code_challenge_method="S256",
            token=token,
            default_timeout=c.timeout,
        )
        session.verify = c.verify  # and with each request too: requests lets REQUESTS_CA_BUNDLE override a session's
        if c.auth_method == "private_key_jwt":
            session.register_client_auth_method(PrivateKeyJWT(self.metadata()["token_endpoint"], alg=c.assertion_alg))
        return session

    # 1. where to send the player --------------------------------------------------------------------------------
    def authorization_request(self, *, redirect_uri: str) -> AuthorizationRequest:
        meta = self.metadata()
        state, nonce, verifier = generate_token(43), generate_token(43), generate_token(64)  # RFC 7636: 43-128
        extra = {"nonce": nonce, "prompt": "login"}
        if self.config.acr_values:
            extra["acr_values"] = self.config.acr_values
        with self._session(redirect_uri=redirect_uri) as session:
            url, _ = session.create_authorization_url(
                meta["authorization_endpoint"], state=state, code_verifier=verifier, **extra
            )
        return AuthorizationRequest(
            url=url, state=state, nonce=nonce, code_verifier=verifier, issuer=self.config.issuer
        )

    # 2. the code for tokens, checked ------------------------------------------------------------------------------
    def exchange(self, *, code: str, code_verifier: str, redirect_uri: str, nonce: str) -> BankIdAnswer:
        token = self._fetch_token(code=code, code_verifier=code_verifier, redirect_uri=redirect_uri)
        id_token = self.validate_id_token(
            str(token.get("id_token") or ""), nonce=nonce, access_token=str(token.get("access_token") or "")
        )
        claims = self.fetch_claims(token)
        if str(claims.get("sub", "")) != str(id_token.get("sub", "")):  # OpenID Connect Core 1.0, section 5.3.2
            raise errors.BANKID_CLAIMS_INVALID(reason="subject_mismatch")
        return BankIdAnswer(id_token=id_token, claims=claims)

    def _fetch_token(self, *, code: str, code_verifier: str, redirect_uri: str) -> dict[str, Any]:
        token_endpoint = self.metadata()["token_endpoint"]
        try:
            with self._session(redirect_uri=redirect_uri) as session:
                token: dict[str, Any] = dict(
                    session.fetch_token(
                        token_endpoint,
                        grant_type="authorization_code",
                        code=code,
                        code_verifier=code_verifier,
                        redirect_uri=redirect_uri,
                        verify=self.config.verify,
                        timeout=self.config.timeout,
                    )
                )
        except AuthlibBaseError as exc:  # the token endpoint's OAuth error (invalid_grant, invalid_client ...)
            raise errors.BANKID_TOKEN_REFUSED(
                provider_error=str(exc.error)[:60], description=str(exc.description or "")[:200]
            )
        except requests.RequestException as exc:
            raise errors.BANKID_UNAVAILABLE(reason=f"token: {type(exc).__name__}")
        except ValueError:
            raise errors.BANKID_UNAVAILABLE(reason="token: not JSON")
        if str(token.get("token_type", "")).lower() != "bearer" or not token.get("access_token"):
            raise errors.BANKID_TOKEN_REFUSED(provider_error="no_bearer_token", description="")
        return token

    def validate_id_token(self, id_token: str, *, nonce: str, access_token: str = "") -> dict[str, Any]:
        """The ID token's signature (the issuer's JWKS), then iss, aud, azp, nonce, exp, iat and at_hash (authlib's
        :class:`CodeIDToken` rules) with ``AML_BANKID_LEEWAY_SECONDS`` of clock skew; returns its claims."""
        if not id_token:
            raise errors.BANKID_ID_TOKEN_INVALID(reason="missing")
        registry = JWSRegistry(algorithms=self._algorithms(), strict_check_header=False)
        try:
            try:
                decoded = jwt.decode(id_token, self.key_set(), registry=registry)
            except InvalidKeyIdError:  # a key the cache does not know: the issuer may have rotated its keys
                decoded = jwt.decode(id_token, self.key_set(refresh=True), registry=registry)
        except InvalidKeyIdError:
            raise errors.BANKID_ID_TOKEN_INVALID(reason="unknown_key")
        except BadSignatureError:
            raise errors.BANKID_ID_TOKEN_INVALID(reason="signature")
        except UnsupportedAlgorithmError:
            raise errors.BANKID_ID_TOKEN_INVALID(reason="algorithm")
        except (JoseError, ValueError, TypeError):
            raise errors.BANKID_ID_TOKEN_INVALID(reason="malformed")
        c = self.config
        now = int(clock.now().timestamp())
        options: dict[str, Any] = {
            "iss": {"essential": True, "value": c.issuer},
            "aud": {"essential": True, "value": c.client_id},
        }
        claims = CodeIDToken(
            decoded.claims,
            decoded.header,
            options,
            {"nonce": nonce, "client_id": c.client_id, "access_token": access_token},
        )
        try:
            claims.validate(now=now, leeway=c.leeway)
        except ExpiredTokenError:
            raise errors.BANKID_ID_TOKEN_INVALID(reason="expired")
        except MissingClaimError as exc:
            raise errors.BANKID_ID_TOKEN_INVALID(reason=f"missing_{exc.claim}")
        except InvalidClaimError as exc:
            reason = {"iss": "issuer", "aud": "audience", "iat": "issued_in_future", "nbf": "not_yet_valid"}.get(
                exc.claim, exc.claim
            )
            raise errors.BANKID_ID_TOKEN_INVALID(reason=reason)
        if now - int(claims["iat"]) > c.max_age + c.leeway:
            raise errors.BANKID_ID_TOKEN_INVALID(reason="too_old")
        if c.acr_values and str(claims.get("acr") or "") not in c.acr_values.split():
            raise errors.BANKID_ID_TOKEN_INVALID(reason="acr")  # the sign-in was not at the level asked (loa3)
        return dict(claims)

    # 3. the verified claims ---------------------------------------------------------------------------------------
    def fetch_claims(self, token: dict[str, Any]) -> dict[str, Any]:
        """The profile (or userinfo) response for the access token: a JSON object, or a JWT signed by the issuer."""
        url = self._claims_url()
        try:
            with self._session(token=token) as session:
                resp = session.get(
                    url,
                    headers={"Accept": "application/json, application/jwt"},
                    verify=self.config.verify,
                    timeout=self.config.timeout,
                )
        except AuthlibBaseError as exc:
            raise errors.BANKID_TOKEN_REFUSED(provider_error=str(exc.error)[:60], description="")
        except requests.RequestException as exc:
            raise errors.BANKID_UNAVAILABLE(reason=f"claims: {type(exc).__name__}")
        if resp.status_code >= 500:
            raise errors.BANKID_UNAVAILABLE(reason=f"claims: HTTP {resp.status_code}")
        if resp.status_code != 200:
            raise errors.BANKID_TOKEN_REFUSED(provider_error=f"claims_http_{resp.status_code}", description="")
        if resp.headers.get("Content-Type", "").split(";")[0].strip() == "application/jwt":
            return self._signed_claims(resp.text)
        try:
            data = resp.json()
        except ValueError:
            raise errors.BANKID_CLAIMS_INVALID(reason="not_json")
        if not isinstance(data, dict):
            raise errors.BANKID_CLAIMS_INVALID(reason="not_an_object")
        return data

    def _signed_claims(self, text: str) -> dict[str, Any]:
        registry = JWSRegistry(algorithms=self._algorithms(), strict_check_header=False)
        try:
            try:
                decoded = jwt.decode(text.strip(), self.key_set(), registry=registry)
            except InvalidKeyIdError:
                decoded = jwt.decode(text.strip(), self.key_set(refresh=True), registry=registry)
        except JoseError:
            raise errors.BANKID_CLAIMS_INVALID(reason="signature")
        data = dict(decoded.claims)
        if "iss" in data and data["iss"] != self.config.issuer:
            raise errors.BANKID_CLAIMS_INVALID(reason="issuer")
        aud = data.get("aud")
        if aud is not None and self.config.client_id not in ([aud] if isinstance(aud, str) else aud):
            raise errors.BANKID_CLAIMS_INVALID(reason="audience")
        return data


# The claims, in the platform's terms -----------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _date(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) and len(value) == 10 else None
    except ValueError:
        return None


def _documents(idcards: Any) -> tuple[BankIdDocument, ...]:
    out = []
    for card in idcards if isinstance(idcards, list) else []:
        if not isinstance(card, dict):
            continue
        kind = IDCARD_TYPES.get(_text(card.get("type")).upper())
        number = _text(card.get("number")).replace(" ", "").upper()
        country = _text(card.get("country")).upper()
        valid = _date(card.get("valid_to"))
        if kind and number and len(country) == 2 and valid is not None:
            out.append(
                BankIdDocument(
                    type=kind,
                    number=number[:30],
                    issuing_state=country,
                    issuing_authority=_text(card.get("issuer"))[:100],
                    valid_until=valid,
                )
            )
    return tuple(out)


def _permanent_residence(addresses: Any) -> dict[str, str]:
    for a in addresses if isinstance(addresses, list) else []:
        if isinstance(a, dict) and _text(a.get("type")) == "PERMANENT_RESIDENCE":
            keys = ("street", "buildingapartment", "streetnumber", "city", "zipcode", "country", "ruian_reference")
            return {k: _text(a.get(k))[:100] for k in keys if _text(a.get(k))}
    return {}


def _flag(*values: Any) -> bool | None:
    for v in values:
        if isinstance(v, bool):
            return v
    return None


def identity_from_claims(claims: dict[str, Any], *, trust_framework: str) -> BankIdIdentity:
    """The verified claims (``verified_claims.claims``) of a profile/userinfo response, in the platform's terms.

    Refused with ``aml.bankid_not_aml_verified`` when the response has no verified claims or they were verified
    under another trust framework than ``trust_framework`` (Bank iD's AML identification says ``cz_aml``; empty:
    not checked), and with ``aml.bankid_claims_invalid`` (``missing`` names them) when the names, the full birth
    date or a usable identity document (type ID, P, DL or IR, its number, country and validity) are missing.
    The PEP, majority and limited-legal-capacity flags (``profile.legalstatus``) are read from the verified claims,
    else from the top level: limited legal capacity, ``majority: false`` or a birth date under 18 years ago are
    refused (``aml.bankid_not_eligible``). ``birthnumber`` comes without the slash (one is removed if sent)."""
    found = claims.get("verified_claims")
    if isinstance(found, list):  # OpenID Connect for Identity Assurance allows several: the first one
        found = next((v for v in found if isinstance(v, dict)), None)
    if not isinstance(found, dict) or not isinstance(found.get("claims"), dict):
        raise errors.BANKID_NOT_AML_VERIFIED(trust_framework=trust_framework or None)
    verified: dict[str, Any] = found
    verification: dict[str, Any] = verified["verification"] if isinstance(verified.get("verification"), dict) else {}
    framework = _text(verification.get("trust_framework"))
    if trust_framework and framework != trust_framework:
        raise errors.BANKID_NOT_AML_VERIFIED(trust_framework=trust_framework, received=framework or None)
    v = verified["claims"]
    given, family, dob = _text(v.get("given_name")), _text(v.get("family_name")), _date(v.get("birthdate"))
    documents = _documents(v.get("idcards"))
    missing = [
        name
        for name, ok in (("given_name", given), ("family_name", family), ("birthdate", dob), ("idcards", documents))
        if not ok
    ]
    if missing or dob is None:
        raise errors.BANKID_CLAIMS_INVALID(reason="missing", missing=missing)
    nationalities = [_text(v.get("primary_nationality")).upper()]
    nationalities += [_text(n).upper() for n in v.get("nationalities") or [] if isinstance(n, str)]
    birth_number = _text(v.get("birthnumber")).replace("/", "")  # Bank iD sends it without the slash
    if birth_number and not (birth_number.isdigit() and len(birth_number) in (9, 10)):
        raise errors.BANKID_CLAIMS_INVALID(reason="birthnumber")
    # profile.legalstatus: majority (adult), limited_legal_capacity; neither may play (ZHH §7)
    limited = _flag(v.get("limited_legal_capacity"), claims.get("limited_legal_capacity"))
    majority = _flag(v.get("majority"), claims.get("majority"))
    if limited is None or majority is None:  # the scope profile.legalstatus was not granted or not answered
        raise errors.BANKID_CLAIMS_INVALID(reason="missing", missing=["legalstatus"])
    if limited:
        raise errors.BANKID_NOT_ELIGIBLE(reason="limited_legal_capacity")
    today = clock.business_date()
    adult = (today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))) >= 18
    if majority is False or not adult:
        raise errors.BANKID_NOT_ELIGIBLE(reason="not_of_age")
    return BankIdIdentity(
        given_names=given[:100],
        surname=family[:100],
        date_of_birth=dob,
        birth_number=birth_number,
        nationalities=tuple(dict.fromkeys(n for n in nationalities if len(n) == 2)),
        documents=documents,
        permanent_residence=_permanent_residence(v.get("addresses")),
        pep=_flag(v.get("pep"), claims.get("pep")),
        limited_legal_capacity=limited,
        majority=majority,
        trust_framework=framework,
        verification_process=_text(verification.get("verification_process"))[:40],
        transaction=_text(claims.get("txn"))[:80],
        verification=dict(verification),
        verified_claims=dict(v),
    )
