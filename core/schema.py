"""OpenAPI extensions: describe the player token authentication and the Idempotency-Key header in the schema, and
the schema class that keeps optional response fields optional."""
from typing import Any

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiParameter

from core.idempotency import idempotency_rule


def view_method(view: Any, method: str) -> Any:
    """The view's handler of an HTTP method (``post``), or None."""
    return getattr(view, method.lower(), None)


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, but a read-only field declared ``required=False`` is optional in the schema as it
    is in the answer (issue 19, N-10). drf-spectacular lists every read-only field as required, while DRF leaves a
    field with ``required=False`` out of the answer when its value is absent (``SkipField``): so
    ``value_at_coin`` of a jackpot level, present only with ``?coin_value=``, was declared required and a client
    generated from the schema would refuse every display answer. Other read-only fields stay required (they are
    always in the answer)."""

    def _get_parameters(self) -> list[dict[str, Any]]:
        """The ``Idempotency-Key`` header exactly where the view method carries ``@idempotent()``
        (``core.idempotency``), required where the decorator requires it: the schema and the server share one
        declaration (issue 21). A header written by hand in ``@extend_schema`` is replaced by it."""
        parameters = [p for p in super()._get_parameters()  # type: ignore[no-untyped-call]
                      if not (p.get("in") == "header" and p.get("name") == IDEMPOTENCY_HEADER)]
        rule = idempotency_rule(view_method(self.view, self.method))
        if rule is not None:
            parameters.append(self._get_parameter_schema(rule.required))
        return parameters

    def _get_parameter_schema(self, required: bool) -> dict[str, Any]:
        return {"in": "header", "name": IDEMPOTENCY_HEADER, "required": required, "schema": dict(KEY_SCHEMA),
                "description": KEY_DESCRIPTION + ("" if required else " Optional on this call: without it the call "
                                                                    "runs once, as sent.")}

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


IDEMPOTENCY_HEADER = "Idempotency-Key"
KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[!-~]+$"}
KEY_DESCRIPTION = ("A key of the client's choosing for this call, 1-128 printable characters (a fresh UUID per "
                   "intended call). A retry with the same key and body replays the first answer "
                   "(`Idempotent-Replayed: true`) and moves nothing; the same key with another body is "
                   "`idempotency.conflict` (409).")


def idempotency_key(*, required: bool) -> OpenApiParameter:
    """The ``Idempotency-Key`` header as an ``OpenApiParameter`` (kept for views that still name it by hand; the
    schema replaces it by the one ``@idempotent()`` declares, :meth:`AutoSchema._get_parameters`)."""
    return OpenApiParameter(IDEMPOTENCY_HEADER, KEY_SCHEMA, OpenApiParameter.HEADER, required=required,
                            description=KEY_DESCRIPTION)


class PlayerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.auth.PlayerTokenAuthentication"
    name = "PlayerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>` obtained from the login endpoint; revocable."}
