from typing import Any

from rest_framework.pagination import PageNumberPagination
from rest_framework.views import APIView


class DefaultPagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        """The bounds the schema states: pages count from 1 (page 0, or one past the last, is a 404)."""
        params = super().get_schema_operation_parameters(view)
        for param in params:
            if param["name"] == self.page_query_param:
                param["schema"]["minimum"] = 1
            elif param["name"] == self.page_size_query_param:
                param["schema"].update(minimum=1, maximum=self.max_page_size)
        return params
