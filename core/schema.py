"""OpenAPI extensions: describe the player token authentication in the schema."""
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class PlayerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.auth.PlayerTokenAuthentication"
    name = "PlayerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>` obtained from the login endpoint; revocable."}
