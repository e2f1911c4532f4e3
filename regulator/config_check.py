"""The registration record for the Customs Administration's form (decree 10/2019 Sb. §2; the Ministry's schema
``comParamReg.xsd``, namespace .../registrace-parametru/2019-02), generated from the settings: the seal certificate,
the encryption certificate for the Ministry's answers, the download and notification URLs, one remote-access package
of game type T."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from lxml import etree

from core import clock
from regulator import crypto, schema

NS = "http://hazard.mfcr.cz/komunikacni-modul/registrace-parametru/2019-02"


def _url(name: str, **kwargs: str) -> str:
    return settings.REGULATOR_PUBLIC_BASE_URL.rstrip("/") + reverse(name, kwargs=kwargs or None)


def registration_xml(*, valid_from: date, playground: bool = False) -> bytes:
    q = f"{{{NS}}}"
    root = etree.Element(q + "Registrace", nsmap={None: NS})
    root.set("IDProvozovatel", settings.REGULATOR_OPERATOR_ID)
    root.set("NazevProvozovatel", settings.REGULATOR_OPERATOR_NAME)
    root.set("PlatnostOd", valid_from.isoformat())
    root.set("Podano", clock.now().replace(microsecond=0).isoformat())
    root.set("Playground", "true" if playground else "false")
    change = etree.SubElement(root, q + "Zmenit", zmenitExistujici="false")
    certs = etree.SubElement(change, q + "Certifikaty")
    seal = crypto.configured_seal()
    etree.SubElement(
        etree.SubElement(certs, q + "PecetCertifikaty"), q + "CertifikatText"
    ).text = seal.cert_pem.decode()
    if settings.REGULATOR_OWN_ENCRYPTION_CERT:
        etree.SubElement(etree.SubElement(certs, q + "SifrovaniCertifikaty"), q + "CertifikatText").text = Path(
            settings.REGULATOR_OWN_ENCRYPTION_CERT
        ).read_text()
    url = etree.SubElement(change, q + "Url")
    download = _url("regulator-package-download", file_name="x").rsplit("/", 1)[0] + "/"
    etree.SubElement(url, q + "StazeniBalickuUrl").text = download
    etree.SubElement(url, q + "NotifikaceChybyUrl").text = _url("regulator-notify-error")
    etree.SubElement(url, q + "NotifikaceUspechuUrl").text = _url("regulator-notify-success")
    etree.SubElement(change, q + "Balicek", Model="V", HraDruh=schema.GAME_TYPE)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
