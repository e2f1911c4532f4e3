"""OpenAPI extensions (a schema a client can be generated from).

The schema class :class:`AutoSchema` adds to what drf-spectacular derives:

- **tags by area**: the app of the path (``accounts``, ``wallet``, ``limits``, ``games``, ...), its staff API apart;
- **the Idempotency-Key header** exactly where the view method carries ``@idempotent()`` (required where it is);
- **every error response** with the house error shape (the ``Error`` component) and the codes the operation can
  give, derived from the code (``core.api_errors.view_errors``), plus the generic ones (400, 401, 403, 404, 429
  with ``Retry-After``, 500, 503);
- **a request example for every body**: the view's own (``request_examples`` on the view: a game's bet per game)
  or one built from the serializer's fields;
- optional read-only fields stay optional;
- **the language**: served (``/api/schema``, read by ``/api/docs``) the schema follows the request's language
  (``Accept-Language``, or ``?lang=``); generated outside a request (``manage.py spectacular --file``, the file
  published to integrators) it is English, whatever the default language (:class:`SchemaGenerator`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from drf_spectacular import generators, openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import force_instance, list_hash
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from core import errors as core_errors
from core.api_errors import view_errors
from core.api_money import INVALID_MONEY
from core.api_money import example as money_example
from core.errors import ErrorDef
from core.idempotency import KEY_CONFLICT, KEY_INVALID, KEY_REQUIRED, idempotency_rule

STAFF_SUFFIX = " (staff)"


def _fields_of(serializer: Any) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    """The fields of a serializer given as a class or an instance (drf-spectacular's ``force_instance`` is untyped)."""
    # the type: ignore below: drf-spectacular is untyped
    return force_instance(serializer).fields  # type: ignore[no-untyped-call, no-any-return]


def rate_limits_text() -> str:
    """The rate limits as this deployment configures them (``settings.THROTTLE_RATES``, from ``THROTTLE_RATE_*``), so
    the schema a client reads says what the server it came from enforces."""
    rates = settings.THROTTLE_RATES
    return (
        f"Rate limits: {rates['anon']} per address without a login, {rates['user']} per signed-in user, "
        f"{rates['login']} for the login; every 429 carries Retry-After (seconds). docs/player-api.md, Conventions."
    )


ERROR_STATUSES = {
    400: "Bad request",
    401: "Not authenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    410: "Gone",
    413: "Too large",
    415: "Unsupported media type",
    422: "Refused",
    429: "Too many requests",
    500: "Server error",
    503: "Unavailable",
}


def view_method(view: Any, method: str) -> Any:
    """The view's handler of an HTTP method (``post``), or None."""
    return getattr(view, method.lower(), None)


#: the language of a schema generated outside a request: the file integrators read
SCHEMA_FILE_LANGUAGE = "en"


class SchemaGenerator(generators.SchemaGenerator):
    """The schema in the request's language when served; in English when there is no request (a file)."""

    def get_schema(self, request: HttpRequest | None = None, public: bool = False) -> dict[str, Any]:
        if request is not None:
            return super().get_schema(request=request, public=public)  # type: ignore[no-untyped-call,no-any-return]
        with translation.override(SCHEMA_FILE_LANGUAGE):
            return super().get_schema(request=None, public=public)  # type: ignore[no-untyped-call,no-any-return]


class ErrorBodySerializer(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="stable code: branch on it (listed per response)")
    message = serializers.CharField(help_text="in the request language (Accept-Language: en, else Czech)")
    message_cs = serializers.CharField()
    message_en = serializers.CharField()
    details = serializers.DictField(
        help_text="the figures of the refusal (a limit, what is left, the allowed values, the field)"
    )
    request_id = serializers.CharField(allow_null=True, help_text="quote it to support (X-Request-ID)")


class ErrorSerializer(serializers.Serializer[Any]):
    """The one error shape of every refusal (core/errors.py)."""

    error = ErrorBodySerializer()


def has_money(serializer: Any) -> bool:
    """Whether a request serializer takes an amount (a field marked ``money``: ``core.api_money.MoneyField``, a
    money limit's value, a game's bet)."""
    if isinstance(serializer, dict):  # one per media type
        return any(has_money(s) for s in serializer.values())
    try:
        fields = _fields_of(serializer).values()
    except AttributeError:  # safe: documentation only; a request that is not a serializer (None, a plain type)
        return False  # has no fields, and the server's own parsing decides what it accepts
    for field in fields:
        if getattr(field, "money", False):
            return True
        child = getattr(field, "child", None)
        if isinstance(field, serializers.BaseSerializer) and has_money(field):
            return True
        if child is not None and (
            getattr(child, "money", False) or (isinstance(child, serializers.BaseSerializer) and has_money(child))
        ):
            return True
    return False


def has_files(serializer: Any) -> bool:
    """Whether a request serializer takes a file (then its body is multipart/form-data too)."""
    try:
        fields = _fields_of(serializer).values()
    except AttributeError:  # safe: documentation only (as in has_money)
        return False
    return any(
        isinstance(f, serializers.FileField) or isinstance(getattr(f, "child", None), serializers.FileField)
        for f in fields
    )


def sample(field: Any) -> Any:
    """An example value of a request field (for the body example of the schema)."""
    if getattr(field, "money", False):
        return money_example(50000) if not hasattr(field, "example") else field.example
    if isinstance(field, serializers.BaseSerializer):
        inner = {name: sample(f) for name, f in getattr(field, "fields", {}).items() if not f.read_only}
        return [inner] if getattr(field, "many", False) else inner
    if isinstance(field, serializers.ListField):
        return [sample(field.child)] if field.child is not None else []
    if isinstance(field, serializers.ChoiceField):
        return next(iter(field.choices), "")
    if isinstance(field, serializers.BooleanField):
        return False
    if isinstance(field, serializers.IntegerField):
        return max(1, field.min_value or 1) if isinstance(field.min_value, int) or field.min_value is None else 1
    if isinstance(field, serializers.DateTimeField):
        return "2026-03-02T09:00:00Z"
    if isinstance(field, serializers.DateField):
        return "2026-03-02"
    if isinstance(field, serializers.EmailField):
        return "jan.novak@example.cz"
    if isinstance(field, (serializers.FileField,)):
        return "<file>"
    if isinstance(field, (serializers.DictField, serializers.JSONField)):
        return {}
    return "string"


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, but a read-only field declared ``required=False`` is optional in the schema as it
    is in the answer. drf-spectacular lists every read-only field as required, while DRF leaves a
    field with ``required=False`` out of the answer when its value is absent (``SkipField``): so
    ``value_at_coin`` of a jackpot level, present only with ``?coin_value=``, was declared required and a client
    generated from the schema would refuse every display answer. Other read-only fields stay required (they are
    always in the answer)."""

    # --- tags ----------------------------------------------------------------------------------------------------
    def get_tags(self) -> list[str]:
        """The app of ``/api/v1/<app>/...`` (its staff API, ``/api/v1/<app>/staff/...``, as ``<app> (staff)``)."""
        match = re.match(r"^/api/v1/([^/]+)(/staff/)?", self.path)
        if match is None:
            return super().get_tags()
        return [match.group(1) + (STAFF_SUFFIX if match.group(2) else "")]

    # --- errors --------------------------------------------------------------------------------------------------
    def operation_errors(self) -> list[ErrorDef]:
        """The error definitions this operation can give: derived from the view's code, then the generic ones."""
        found = view_errors(type(self.view), self.method)
        rule = idempotency_rule(view_method(self.view, self.method))
        found -= {KEY_REQUIRED, KEY_INVALID, KEY_CONFLICT}  # named by the decorator: per its rule, below
        if rule is not None:
            found |= {KEY_INVALID, KEY_CONFLICT} | ({KEY_REQUIRED} if rule.required else set())
        found |= {core_errors.VALIDATION, core_errors.THROTTLED, core_errors.SERVER_ERROR, core_errors.UNAVAILABLE}
        if "{" in self.path:
            found.add(core_errors.NOT_FOUND)
        if self.method in ("POST", "PUT", "PATCH") and has_money(self.get_request_serializer()):
            found.add(INVALID_MONEY)
        if self.get_auth() and {"PlayerToken": []} in self.get_auth() and {} not in self.get_auth():
            found |= {core_errors.NOT_AUTHENTICATED}
        return sorted(found, key=lambda e: (e.status, e.code))

    def _get_response_bodies(self, direction: Literal["request", "response"] = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        by_status: dict[int, list[ErrorDef]] = {}
        for error in self.operation_errors():
            by_status.setdefault(error.status, []).append(error)
        ref = self.resolve_serializer(ErrorSerializer, "response").ref
        for status, defs in sorted(by_status.items()):
            lines = "\n".join(f"- `{e.code}`: {e.message_en}" for e in defs)
            entry: dict[str, Any] = {
                "description": f"{ERROR_STATUSES.get(status, 'Error')}. Codes:\n{lines}",
                "content": {"application/json": {"schema": ref}},
                "x-error-codes": [e.code for e in defs],
            }
            if status == 429:
                entry["description"] += "\n\n" + rate_limits_text()
                entry["headers"] = {
                    "Retry-After": {
                        "description": "whole seconds to wait before the next attempt (RFC 9110 §10.2.3)",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                }
            if status == 503:
                entry["headers"] = {
                    "Retry-After": {"description": "whole seconds to wait", "schema": {"type": "integer", "minimum": 1}}
                }
            responses.setdefault(str(status), entry)
        return responses

    def map_parsers(self) -> list[str]:
        """The request's media types: JSON only for a body without files. The server also reads the form encodings,
        but a schema offering three encodings of one body makes a generated client pick one arbitrarily (the last:
        multipart, which cannot carry a Money object); a body with a file keeps multipart."""
        types_: list[str] = super().map_parsers()
        if "application/json" in types_ and not has_files(self.get_request_serializer()):
            return ["application/json"]
        return types_

    # --- request examples ------------------------------------------------------------------------------------------
    def _get_request_body(self, direction: str = "request") -> dict[str, Any] | None:
        # the type: ignore below: drf-spectacular is untyped
        body: dict[str, Any] | None = super()._get_request_body(direction)  # type: ignore[no-untyped-call]
        if not body:
            return body
        declared = getattr(self.view, "request_examples", None)
        examples = declared() if callable(declared) else None
        if not examples:
            serializer = self.get_request_serializer()
            if isinstance(serializer, dict):
                serializer = next(iter(serializer.values()), None)
            try:
                fields = _fields_of(serializer)
            except AttributeError:  # safe: only the schema's example is left out for a body that is no serializer
                return body
            value = {name: sample(f) for name, f in fields.items() if not f.read_only and f.required}
            optional = {name: sample(f) for name, f in fields.items() if not f.read_only and not f.required}
            examples = (
                {"required fields": value}
                if not optional
                else {"required fields": value, "every field": {**value, **optional}}
            )
        for media_type, content in body["content"].items():
            if "examples" in content or "example" in content:
                continue
            content["examples"] = {
                name.replace(" ", "_"): {"summary": name, "value": value}
                for name, value in examples.items()
                if media_type == "application/json" or not _has_nested(value)
            }
            if not content["examples"]:
                del content["examples"]
        return body

    def _get_parameters(self) -> list[dict[str, Any]]:
        """The ``Idempotency-Key`` header exactly where the view method carries ``@idempotent()``
        (``core.idempotency``), required where the decorator requires it: the schema and the server share one
        declaration. A header written by hand in ``@extend_schema`` is replaced by it."""
        parameters = [
            p
            for p in super()._get_parameters()
            if not (p.get("in") == "header" and p.get("name") == IDEMPOTENCY_HEADER)
        ]
        rule = idempotency_rule(view_method(self.view, self.method))
        if rule is not None:
            parameters.append(self._get_parameter_schema(rule.required))
        return parameters

    def _get_parameter_schema(self, required: bool) -> dict[str, Any]:
        return {
            "in": "header",
            "name": IDEMPOTENCY_HEADER,
            "required": required,
            "schema": dict(KEY_SCHEMA),
            "description": KEY_DESCRIPTION
            + ("" if required else " Optional on this call: without it the call runs once, as sent."),
        }

    def _map_serializer_field(self, field: Any, direction: str, bypass_extensions: bool = False) -> dict[str, Any]:
        """A choice of a model field that may be blank (``blank=True``, ``default=""``) lists ``""`` among its values:
        DRF answers ``""`` for it, read-only too, and a client generated from an enum without it refuses the answer
        (``verified_by`` of a payment method not verified yet)."""
        # the type: ignore below: drf-spectacular is untyped
        schema: dict[str, Any] = super()._map_serializer_field(  # type: ignore[no-untyped-call]
            field, direction, bypass_extensions
        )
        if (
            isinstance(field, serializers.ChoiceField)
            and isinstance(schema.get("enum"), list)
            and "" not in schema["enum"]
            and _model_field_blank(field)
        ):
            schema["enum"] = [*schema["enum"], ""]
        if isinstance(field, serializers.ChoiceField):
            _name_enum_in_english(field, schema.get("items") if schema.get("type") == "array" else schema)
        return schema

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        # the type: ignore below: drf-spectacular is untyped
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)  # type: ignore[no-untyped-call]
        fields = _fields_of(serializer).values()
        optional = {
            field.field_name
            for field in fields
            if field.read_only and getattr(field, "_kwargs", {}).get("required") is False
        }
        required = [name for name in schema.get("required", []) if name not in optional]
        if required:
            schema["required"] = required
        else:
            schema.pop("required", None)
        return schema


IDEMPOTENCY_HEADER = "Idempotency-Key"
KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[!-~]+$"}
KEY_DESCRIPTION = (
    "A key of the client's choosing for this call, 1-128 printable characters (a fresh UUID per "
    "intended call). A retry with the same key and body replays the first answer "
    "(`Idempotent-Replayed: true`) and moves nothing; the same key with another body is "
    "`idempotency.conflict` (409)."
)


def idempotency_key(*, required: bool) -> OpenApiParameter:
    """The ``Idempotency-Key`` header as an ``OpenApiParameter`` (kept for views that still name it by hand; the
    schema replaces it by the one ``@idempotent()`` declares, :meth:`AutoSchema._get_parameters`)."""
    return OpenApiParameter(
        IDEMPOTENCY_HEADER, KEY_SCHEMA, OpenApiParameter.HEADER, required=required, description=KEY_DESCRIPTION
    )


class PlayerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # drf-spectacular is untyped
    target_class = "accounts.auth.PlayerTokenAuthentication"
    name = "PlayerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>` obtained from the login endpoint; revocable.",
        }


def _name_enum_in_english(field: serializers.ChoiceField, schema: Any) -> None:
    """The choice set's identity (``x-spec-enum-id``, by which drf-spectacular names the enum components and applies
    ``ENUM_NAME_OVERRIDES``) from its English labels: the labels are translated (the models' choices, the back
    office's ``backoffice.admin_i18n``), the enums' names are the same in a Czech and an English schema."""
    if isinstance(schema, dict) and "x-spec-enum-id" in schema:
        with translation.override("en"):
            schema["x-spec-enum-id"] = list_hash(
                [(key, str(label)) for key, label in field.choices.items() if key not in ("", None)]
            )


def _has_nested(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(v, (dict, list)) for v in value.values())


def _model_field_blank(field: Any) -> bool:
    """Whether a serializer field stands for a model field that may be blank."""
    model = getattr(getattr(getattr(field, "parent", None), "Meta", None), "model", None)
    if model is None or not isinstance(getattr(field, "source", None), str) or "." in field.source:
        return False
    try:
        return bool(model._meta.get_field(field.source).blank)
    except Exception:  # noqa: BLE001 - not a model field (a method, a property): nothing to add
        return False
