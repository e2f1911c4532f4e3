"""A real, local OpenID provider in the shape of Bank iD, for tests (importable without pytest).

:class:`LocalOpenIDProvider` is an HTTP server on 127.0.0.1 (a thread; plain HTTP, or HTTPS with a self-signed
certificate and its CA file for ``AML_BANKID_CA_BUNDLE``) with its own RSA keys, written with joserfc and authlib's
PKCE helper. It serves what the platform's relying party (``aml.bankid_client``) uses, as Bank iD does:

* ``GET /.well-known/openid-configuration`` (discovery: issuer with a trailing slash, endpoints, PS512 ID tokens,
  PKCE S256, the client authentication it accepts), ``GET /.well-known/jwks`` (its public keys);
* ``GET /auth`` (authorization endpoint): checks the client, the registered redirect URI, ``response_type=code``,
  ``scope`` with ``openid`` and an S256 code challenge, then answers as if the person set with :meth:`login` had
  signed in and consented: ``302`` to the redirect URI with ``code`` and ``state`` (or ``error=access_denied``
  after :meth:`deny`, ``error=login_required`` when nobody is signed in);
* ``POST /token``: the client authentication of ``auth_method`` (``client_secret_post``, ``client_secret_basic``
  or ``private_key_jwt`` against ``client_public_key``), then the code once (a second use is ``invalid_grant`` and
  revokes what the first issued), the same redirect URI, and the PKCE verifier; answers a Bearer access token and
  an ID token (``iss``, ``sub``, ``aud``, ``exp``, ``iat``, ``auth_time``, ``nonce``, ``acr``, ``jti``);
* ``GET /profile`` (Bank iD "Identify": the whole profile, ``verified_claims`` included) and ``GET /userinfo``
  (Bank iD "Connect": names, gender and birth date), for the access token; as a signed JWT with
  ``claims_as_jwt``.

Faults a test can ask for: ``id_token_changes`` (claims changed or, with None, removed in the next ID tokens, e.g.
``{"nonce": "other"}``, ``{"exp": ...}``, ``{"iss": ...}``, ``{"aud": ...}``), ``signing_key`` (sign ID tokens
with another key, e.g. :meth:`foreign_key`), :meth:`rotate_keys`. ``requests`` lists what it was asked.

:func:`bankid_profile` builds a profile in Bank iD's claim names; :func:`bankid_profile_for` one that matches a
player's registration (``accounts.PersonalData``). Typical use::

    with LocalOpenIDProvider(redirect_uris=[APP]) as op:
        op.login(bankid_profile_for(player))
        ... settings.AML_BANKID_ISSUER = op.issuer ...
        answer = op.authorize(authorization_url)  # what the bank sends back to the app: {"code", "state"}
"""

from __future__ import annotations

import base64
import copy
import datetime as dt
import ipaddress
import json
import secrets
import ssl
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import requests
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import Key, KeySet, RSAKey
from joserfc.jws import JWSRegistry

ID_TOKEN_ALG = "PS512"  # as Bank iD signs
# The published API's scopes and the /profile claims each releases ("Bank iD APIs for Service Providers" 2.0.x)
SCOPE_CLAIMS: dict[str, tuple[str, ...]] = {
    "openid": (),
    "offline_access": (),
    "notification.claims_updated": (),
    "profile.name": ("given_name", "family_name", "middle_name"),
    "profile.titles": ("title_prefix", "title_suffix"),
    "profile.gender": ("gender",),
    "profile.birthdate": ("birthdate", "age", "date_of_death"),
    "profile.birthnumber": ("birthnumber",),
    "profile.birthplaceNationality": ("birthplace", "birthcountry", "primary_nationality", "nationalities"),
    "profile.maritalstatus": ("maritalstatus",),
    "profile.addresses": ("addresses",),
    "profile.idcards": ("idcards",),
    "profile.paymentAccounts": ("paymentAccounts", "paymentAccountsDetails"),
    "profile.email": ("email",),
    "profile.phonenumber": ("phone_number",),
    "profile.zoneinfo": ("zoneinfo",),
    "profile.locale": ("locale",),
    "profile.updatedat": ("updated_at",),
    "profile.legalstatus": ("majority", "pep", "limited_legal_capacity"),
    "profile.verification": ("verified_claims",),
}
SCOPES = tuple(SCOPE_CLAIMS)
CODE_LIFETIME_SECONDS = 60
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
BANK_ICO = "45244782"  # a Czech bank's company number, as Bank iD's ``verification_process``


def new_signing_key(kid: str | None = None) -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": kid or f"op-{uuid.uuid4().hex[:12]}", "use": "sig"})


class LocalOpenIDProvider:
    """See the module docstring."""

    def __init__(
        self,
        *,
        client_id: str = "platform-tests",
        client_secret: str | None = None,
        redirect_uris: Iterable[str] = (),
        auth_method: str = "client_secret_post",
        client_public_key: Key | None = None,
        tls: bool = False,
        alg: str = ID_TOKEN_ALG,
    ) -> None:
        self.client_id = client_id
        self.client_secret = client_secret or secrets.token_urlsafe(32)
        self.redirect_uris = set(redirect_uris)
        self.auth_method = auth_method
        self.client_public_key = client_public_key
        self.tls = tls
        self.alg = alg
        self.keys: list[RSAKey] = [new_signing_key()]
        self.signing_key: Key | None = None  # None: the first published key
        self.id_token_changes: dict[str, Any] = {}
        self.claims_as_jwt = False
        self.requests: list[tuple[str, str]] = []
        self._identity: dict[str, Any] | None = None
        self._deny = ""
        self._codes: dict[str, dict[str, Any]] = {}
        self._tokens: dict[str, dict[str, Any]] = {}
        self._assertion_ids: set[str] = set()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.ca_file = ""

    # lifecycle ----------------------------------------------------------------------------------------------------
    def start(self) -> LocalOpenIDProvider:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        if self.tls:
            self._tmp = tempfile.TemporaryDirectory(prefix="local-op-")
            cert, key = _self_signed_certificate(Path(self._tmp.name))
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            server.socket = context.wrap_socket(server.socket, server_side=True)
            self.ca_file = str(cert)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="local-openid-provider", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> LocalOpenIDProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the local OpenID provider is not started")
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self._server.server_address[1]}"

    @property
    def issuer(self) -> str:
        return self.base_url + "/"  # Bank iD's issuer ends with a slash

    @property
    def token_endpoint(self) -> str:
        return self.base_url + "/token"

    def settings(self) -> dict[str, Any]:
        """The platform's ``AML_BANKID_*`` settings for this provider."""
        return {
            "AML_BANKID_ENABLED": True,
            "AML_BANKID_ISSUER": self.issuer,
            "AML_BANKID_CLIENT_ID": self.client_id,
            "AML_BANKID_CLIENT_SECRET": self.client_secret,
            "AML_BANKID_TOKEN_AUTH_METHOD": self.auth_method,
            "AML_BANKID_REDIRECT_URLS": sorted(self.redirect_uris),
            "AML_BANKID_CA_BUNDLE": self.ca_file,
        }

    def environment(self) -> dict[str, str]:
        """The same as environment variables, for a platform started in another process (e.g. with production
        settings, which require https: start the provider with ``tls=True``)."""
        values = self.settings()
        return {
            name: ("true" if value is True else ",".join(value) if isinstance(value, list) else str(value))
            for name, value in values.items()
        }

    # the person at the bank, and faults ---------------------------------------------------------------------------
    def login(self, profile: dict[str, Any] | None) -> None:
        """The person signed in at the bank (a :func:`bankid_profile`); None: nobody."""
        self._identity = copy.deepcopy(profile)
        self._deny = ""

    def deny(self, error: str = "access_denied") -> None:
        """The person cancels at the bank: the next authorization answers this error."""
        self._deny = error

    def rotate_keys(self) -> RSAKey:
        """Publish a new signing key instead of the old one (a new kid); returns the new key."""
        key = new_signing_key()
        self.keys = [key]
        self.signing_key = None
        return key

    @staticmethod
    def foreign_key(kid: str | None = None) -> RSAKey:
        """A key this provider never published (with ``kid``, e.g. the published key's kid)."""
        return new_signing_key(kid)

    @property
    def kid(self) -> str:
        return str(self.keys[0].kid)

    # the browser ------------------------------------------------------------------------------------------------
    def authorize(self, authorization_url: str) -> dict[str, str]:
        """Follow the authorization URL as the player's browser does; returns the query the bank sends back to the
        redirect URI (``code`` and ``state``, or ``error``). Raises when the provider shows an error page."""
        resp = requests.get(authorization_url, allow_redirects=False, timeout=10, verify=self.ca_file or True)
        if resp.status_code != 302:
            raise AssertionError(f"the authorization endpoint answered {resp.status_code}: {resp.text[:300]}")
        location = resp.headers["Location"]
        query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        query["redirect_uri"] = location.split("?")[0]
        return query

    # tokens -------------------------------------------------------------------------------------------------------
    def sign(self, claims: dict[str, Any], *, key: Key | None = None, alg: str | None = None) -> str:
        key = key or self.signing_key or self.keys[0]
        header = {"alg": alg or self.alg, "kid": key.kid}
        return jwt.encode(header, claims, key, algorithms=[alg or self.alg])

    def id_token(self, grant: dict[str, Any], *, access_token: str) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": grant["sub"],
            "aud": self.client_id,
            "exp": now + 600,
            "iat": now,
            "auth_time": now,
            "acr": "loa3",
            "jti": str(uuid.uuid4()),
        }
        if grant.get("nonce"):
            claims["nonce"] = grant["nonce"]
        for name, value in self.id_token_changes.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return self.sign(claims)

    def _client_authenticated(self, form: dict[str, str], headers: Any) -> bool:
        if self.auth_method == "client_secret_post":
            return form.get("client_id") == self.client_id and secrets.compare_digest(
                form.get("client_secret", ""), self.client_secret
            )
        if self.auth_method == "client_secret_basic":
            value = headers.get("Authorization", "")
            if not value.startswith("Basic "):
                return False
            try:
                user, _, password = base64.b64decode(value[6:]).decode().partition(":")
            except ValueError:
                return False
            return user == self.client_id and secrets.compare_digest(password, self.client_secret)
        if self.auth_method == "private_key_jwt":
            if form.get("client_assertion_type") != ASSERTION_TYPE or self.client_public_key is None:
                return False
            try:
                token = jwt.decode(
                    form.get("client_assertion", ""),
                    self.client_public_key,
                    registry=JWSRegistry(algorithms=["RS256", "PS256", "PS512", "ES256"]),
                )
                jwt.JWTClaimsRegistry(
                    leeway=30,
                    iss={"essential": True, "value": self.client_id},
                    sub={"essential": True, "value": self.client_id},
                    aud={"essential": True, "values": [self.token_endpoint, self.issuer]},
                    exp={"essential": True},
                    jti={"essential": True},
                ).validate(token.claims)
            except JoseError:
                return False
            jti = str(token.claims["jti"])
            with self._lock:
                if jti in self._assertion_ids:
                    return False
                self._assertion_ids.add(jti)
            return True
        return False

    def _token(self, form: dict[str, str], headers: Any) -> tuple[int, dict[str, Any]]:
        if not self._client_authenticated(form, headers):
            return 401, {"error": "invalid_client", "error_description": "client authentication failed"}
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        code = form.get("code", "")
        with self._lock:
            grant = self._codes.get(code)
            if grant is None:
                return 400, {"error": "invalid_grant", "error_description": "unknown code"}
            if grant["used"]:  # RFC 6749 section 4.1.2: refuse, and revoke the tokens issued for it
                for token in grant["access_tokens"]:
                    self._tokens.pop(token, None)
                return 400, {"error": "invalid_grant", "error_description": "code already used"}
            grant["used"] = True
        if time.time() - grant["issued_at"] > CODE_LIFETIME_SECONDS:
            return 400, {"error": "invalid_grant", "error_description": "code expired"}
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri differs"}
        if create_s256_code_challenge(form.get("code_verifier", "")) != grant["code_challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
        access_token = secrets.token_urlsafe(32)
        with self._lock:
            self._tokens[access_token] = grant
            grant["access_tokens"].append(access_token)
        return 200, {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": 3600,
            "scope": grant["scope"],
            "id_token": self.id_token(grant, access_token=access_token),
        }

    def _authorize(self, query: dict[str, str]) -> tuple[int, str]:
        """(status, Location or error text)."""
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.client_id or redirect_uri not in self.redirect_uris:
            return 400, "unknown client or unregistered redirect_uri"  # never redirect to an unknown address
        state = query.get("state", "")

        def back(**params: str) -> tuple[int, str]:
            return 302, f"{redirect_uri}?{urlencode({**params, 'state': state})}"

        if query.get("response_type") != "code":
            return back(error="unsupported_response_type")
        if "openid" not in query.get("scope", "").split():
            return back(error="invalid_scope")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return back(error="invalid_request", error_description="PKCE S256 required")
        if query.get("acr_values", "loa3") != "loa3":  # Bank iD's only level since API 2.0.0
            return back(error="invalid_request", error_description="acr_values: only loa3 is supported")
        unknown = [s for s in query.get("scope", "").split() if s not in SCOPES]
        if unknown:
            return back(error="invalid_scope", error_description=" ".join(unknown)[:200])
        if self._deny:
            return back(error=self._deny)
        if self._identity is None:
            return back(error="login_required")
        profile = copy.deepcopy(self._identity)
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = {
                "redirect_uri": redirect_uri,
                "code_challenge": query["code_challenge"],
                "nonce": query.get("nonce", ""),
                "scope": query.get("scope", ""),
                "profile": profile,
                "sub": profile["sub"],
                "issued_at": time.time(),
                "used": False,
                "access_tokens": [],
            }
        return back(code=code)

    def _claims(self, path: str, headers: Any) -> tuple[int, dict[str, Any] | str]:
        value = headers.get("Authorization", "")
        with self._lock:
            grant = self._tokens.get(value[7:]) if value.startswith("Bearer ") else None
        if grant is None:
            return 401, {"error": "invalid_token"}
        profile = copy.deepcopy(grant["profile"])
        granted = {c for scope in str(grant.get("scope", "")).split() for c in SCOPE_CLAIMS.get(scope, ())}
        verified = profile.get("verified_claims")
        profile = {k: v for k, v in profile.items() if k in granted or k in ("sub", "txn")}
        if "verified_claims" in granted and isinstance(verified, dict):  # only what the scopes release, verified
            claims = verified.get("claims") or {}
            profile["verified_claims"] = {**verified, "claims": {k: v for k, v in claims.items() if k in granted}}
        if path == "/userinfo":  # Bank iD Connect: the basic claims only
            basic = {k: profile[k] for k in ("given_name", "family_name", "gender", "birthdate") if k in profile}
            profile = {"sub": profile["sub"], "txn": profile.get("txn"), "verified_claims": {"claims": basic}, **basic}
        if self.claims_as_jwt:
            return 200, self.sign({**profile, "iss": self.issuer, "aud": self.client_id})
        return 200, profile

    def discovery(self) -> dict[str, Any]:
        base = self.base_url
        return {
            "issuer": self.issuer,
            "authorization_endpoint": base + "/auth",
            "token_endpoint": self.token_endpoint,
            "userinfo_endpoint": base + "/userinfo",
            "profile_endpoint": base + "/profile",
            "jwks_uri": base + "/.well-known/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": [self.alg],
            "token_endpoint_auth_methods_supported": [self.auth_method],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": list(SCOPES),
            "acr_values_supported": ["loa3"],
            "claims_supported": [
                "sub",
                "txn",
                "verified_claims",
                "given_name",
                "family_name",
                "birthdate",
                "birthnumber",
                "primary_nationality",
                "nationalities",
                "addresses",
                "idcards",
                "pep",
                "majority",
                "limited_legal_capacity",
            ],
        }

    def jwks(self) -> dict[str, Any]:
        return dict(KeySet(list(self.keys)).as_dict(private=False))


def _handler_for(op: LocalOpenIDProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, body: dict[str, Any] | str, *, location: str = "") -> None:
            if isinstance(body, dict):
                raw, ctype = json.dumps(body).encode(), "application/json"
            else:
                raw, ctype = body.encode(), ("application/jwt" if status == 200 else "text/plain")
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(raw)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            op.requests.append(("GET", path))
            if path == "/.well-known/openid-configuration":
                self._send(200, op.discovery())
            elif path == "/.well-known/jwks":
                self._send(200, op.jwks())
            elif path == "/auth":
                status, text = op._authorize({k: v[0] for k, v in parse_qs(query).items()})
                if status == 302:
                    self._send(302, "", location=text)
                else:
                    self._send(status, {"error": "invalid_request", "error_description": text})
            elif path in ("/profile", "/userinfo"):
                status, body = op._claims(path, self.headers)
                self._send(status, body)
            else:
                self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:
            path = self.path.partition("?")[0]
            op.requests.append(("POST", path))
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if path == "/token":
                status, body = op._token(form, self.headers)
                self._send(status, body)
            else:
                self._send(404, {"error": "not_found"})

    return Handler


def _self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that is its own CA (so its file is the CA bundle), and its key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "local OpenID provider")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


# Profiles in Bank iD's claim names -------------------------------------------------------------------------------


def bankid_profile(
    *,
    given_name: str,
    family_name: str,
    birthdate: str,
    birthnumber: str = "",
    gender: str = "male",
    nationality: str = "CZ",
    idcards: list[dict[str, Any]] | None = None,
    addresses: list[dict[str, Any]] | None = None,
    pep: bool | None = False,
    limited_legal_capacity: bool = False,
    majority: bool = True,
    trust_framework: str | None = "cz_aml",
    sub: str | None = None,
    txn: str | None = None,
) -> dict[str, Any]:
    """A Bank iD profile response (``/profile``): the claims at the top level and, verified, in
    ``verified_claims`` (with ``verification``: ``trust_framework`` and the bank's company number; no
    ``verification`` when ``trust_framework`` is None)."""
    claims: dict[str, Any] = {
        "given_name": given_name,
        "family_name": family_name,
        "gender": gender,
        "birthdate": birthdate,
        "birthplace": "Praha",
        "primary_nationality": nationality,
        "nationalities": [nationality],
        "maritalstatus": "SINGLE",
        "majority": majority,
        "limited_legal_capacity": limited_legal_capacity,
        "addresses": addresses if addresses is not None else [],
        "idcards": idcards if idcards is not None else [],
    }
    if birthnumber:
        claims["birthnumber"] = birthnumber
    if pep is not None:
        claims["pep"] = pep
    verified: dict[str, Any] = {"claims": copy.deepcopy(claims)}
    if trust_framework is not None:
        verified["verification"] = {
            "trust_framework": trust_framework,
            "verification_process": BANK_ICO,
            "time": "2024-05-02T10:00:00+02:00",
        }
    return {"sub": sub or str(uuid.uuid4()), "txn": txn or str(uuid.uuid4()), "verified_claims": verified, **claims}


def bankid_idcard(
    *,
    number: str,
    type: str = "ID",
    country: str = "CZ",
    valid_to: str = "2034-12-31",
    issuer: str = "Úřad městské části Praha 1",
) -> dict[str, Any]:
    return {
        "type": type,
        "description": "Občanský průkaz" if type == "ID" else type,
        "country": country,
        "number": number,
        "valid_to": valid_to,
        "issuer": issuer,
        "issue_date": "2024-01-02",
    }


def bankid_profile_for(player: Any, **overrides: Any) -> dict[str, Any]:
    """A Bank iD profile of the person of ``player``'s registration (their ``PersonalData``); ``overrides`` change
    :func:`bankid_profile`'s arguments (e.g. ``family_name="Jiná"`` for data that do not match)."""
    pd = player.personal
    card_type = {"id_card": "ID", "passport": "P", "driving_licence": "DL", "residence_permit": "IR"}[pd.document_type]
    args: dict[str, Any] = {
        "given_name": pd.given_names,
        "family_name": pd.surname,
        "birthdate": pd.date_of_birth.isoformat(),
        "birthnumber": pd.birth_number,
        "gender": "female" if pd.sex == "F" else "male",
        "nationality": pd.citizenship,
        "idcards": [
            bankid_idcard(
                number=pd.document_number,
                type=card_type,
                country=pd.document_issuing_state,
                valid_to=pd.document_valid_until.isoformat(),
                issuer=pd.document_issuing_authority,
            )
        ],
        "addresses": [
            {
                "type": "PERMANENT_RESIDENCE",
                "street": pd.residence_street.rsplit(" ", 1)[0],
                "streetnumber": pd.residence_street.rsplit(" ", 1)[-1],
                "city": pd.residence_city,
                "zipcode": pd.residence_postal_code.replace(" ", ""),
                "country": pd.residence_country,
            }
        ],
    }
    args.update(overrides)
    return bankid_profile(**args)
