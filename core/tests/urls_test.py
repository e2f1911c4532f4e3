"""A tiny API used only by the core tests (idempotency, errors, catch-all)."""

from django.db import transaction
from django.http import HttpResponse
from django.urls import path
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from core import clock
from core.errors import ErrorDef
from core.idempotency import idempotent
from core.models import TaskHeartbeat

REFUSED = ErrorDef("test.refused", 409, "Zamítnuto.", "Refused.")


class EffectView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @idempotent()
    def post(self, request):
        if request.data.get("refuse"):
            raise REFUSED(reason="asked to")
        with transaction.atomic():
            hb = TaskHeartbeat.objects.create(marker=str(request.data.get("marker")), sent_at=clock.now())
            if request.data.get("slow"):
                import time

                time.sleep(0.3)
        return Response({"id": hb.pk, "marker": hb.marker}, status=201)


class BoomView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request):
        raise RuntimeError("secret internal detail")


def plain_boom(request):
    raise ValueError("secret plain detail")


def ok(request):
    return HttpResponse("ok")


urlpatterns = [
    path("effect", EffectView.as_view()),
    path("boom", BoomView.as_view()),
    path("plain-boom", plain_boom),
    path("ok", ok),
]
