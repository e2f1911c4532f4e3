"""OpenAPI extensions: describe the player token authentication and the Idempotency-Key header in the schema."""
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter


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
