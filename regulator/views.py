"""The Ministry's side of the remote access (plain Django views, outside the player and staff API): the download
location of the sealed packages and the success and error notification URLs. Each admits only the Ministry's client
certificates (regulator/clients.py) and answers everything else 403 in the platform's one error shape."""

from __future__ import annotations

import re

from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from core.errors import NOT_FOUND, DomainError
from regulator import services
from regulator.clients import ministry_client
from regulator.errors import CLIENT_REFUSED, PACKAGE_GONE
from regulator.models import MinistryNotice, RegulatorPackage

_FILE = re.compile(r"^([A-Za-z0-9_]{1,20}-V-[0-9]{10}-[A-Za-z]-[0-9]{2})\.zip\.p7e\.p7s$")
_ERR = re.compile(r"\b(ERR_[A-Z0-9_]+)")
_NAME = re.compile(r"[A-Za-z0-9_]{1,20}-V-[0-9]{10}-[A-Za-z]-[0-9]{2}")


def _error(err: DomainError) -> JsonResponse:
    return JsonResponse({"error": err.as_dict()}, status=err.status)


@require_GET
def package_download(request: HttpRequest, file_name: str) -> HttpResponseBase:
    client = ministry_client(request)
    if client is None:
        return _error(CLIENT_REFUSED.exc())
    m = _FILE.match(file_name)
    pkg = RegulatorPackage.objects.filter(name=m.group(1)).first() if m else None
    if pkg is None or pkg.state == RegulatorPackage.State.REISSUED:
        return _error(NOT_FOUND.exc())
    if pkg.purged_at is not None or pkg.damaged_at is not None or not services.package_file(pkg).is_file():
        return _error(PACKAGE_GONE.exc(name=pkg.name))
    services.package_downloaded(package=pkg)
    response = FileResponse(
        open(services.package_file(pkg), "rb"),
        content_type="application/pkcs7-mime",
        as_attachment=True,
        filename=file_name,
    )
    response["X-Content-SHA256"] = pkg.sha256
    return response


def _notify(request: HttpRequest, kind: str) -> HttpResponse:
    client = ministry_client(request)
    if client is None:
        return _error(CLIENT_REFUSED.exc())
    body = request.body[:200_000].decode("utf-8", errors="replace")
    named = request.GET.get("balicek") or request.GET.get("package") or ""
    if not named and (m := _NAME.search(body)):
        named = m.group(0)
    code = ""
    if kind == MinistryNotice.Kind.ERROR:
        code = m.group(1) if (m := _ERR.search(body)) else "ERR_UNSPECIFIED"
    try:
        services.notice_record(kind=kind, package_name_=named, body=body, error_code=code, client=client)
    except DomainError as exc:
        return _error(exc)
    return HttpResponse("Accepted!", content_type="text/plain")


@csrf_exempt
@require_POST
def notify_success(request: HttpRequest) -> HttpResponse:
    return _notify(request, MinistryNotice.Kind.SUCCESS)


@csrf_exempt
@require_POST
def notify_error(request: HttpRequest) -> HttpResponse:
    return _notify(request, MinistryNotice.Kind.ERROR)
