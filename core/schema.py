"""OpenAPI extensions: describe the player token authentication and the Idempotency-Key header in the schema, and
the schema class that keeps optional response fields optional."""
from typing import Any

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiParameter


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, but a read-only field declared ``required=False`` is optional in the schema as it
    is in the answer (issue 19, N-10). drf-spectacular lists every read-only field as required, while DRF leaves a
    field with ``required=False`` out of the answer when its value is absent (``SkipField``): so
    ``value_at_coin`` of a jackpot level, present only with ``?coin_value=``, was declared required and a client
    generated from the schema would refuse every display answer. Other read-only fields stay required (they are
    always in the answer)."""

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)  # type: ignore[no-untyped-call]
        fields = force_instance(serializer).fields.values()  # type: ignore[no-untyped-call]
        optional = {field.field_name for field in fields
                    if field.read_only and getattr(field, "_kwargs", {}).get("required") is False}
        required = [name for name in schema.get("required", []) if name not in optional]
        if required:
            schema["required"] = required
        else:
            schema.pop("required", None)
        return schema


def idempotency_key(*, required: bool) -> OpenApiParameter:
    """The ``Idempotency-Key`` header of an unsafe call, as ``core.idempotency`` reads it (1-128 printable
    characters; ``idempotency.key_required`` / ``idempotency.key_invalid`` otherwise). Declared on every view
    that reads it, so that a client generated from the schema sends it."""
    return OpenApiParameter(
        "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[!-~]+$"},
        OpenApiParameter.HEADER, required=required,
        description="a key of the client's choosing for this call (a retry with the same key and body replays the "
                    "first answer and moves nothing)")


class PlayerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.auth.PlayerTokenAuthentication"
    name = "PlayerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>` obtained from the login endpoint; revocable."}
