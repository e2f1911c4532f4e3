"""WS-Security 1.0 (OASIS 2004) message signatures for SOAP 1.1 envelopes, with signxml.

The request's ``soapenv:Body`` carries a ``wsu:Id``; ``wsse:Security`` in the header holds the signer's certificate
as a ``BinarySecurityToken`` (X.509 v3, base64) and a ``ds:Signature`` (exclusive c14n, RSA-SHA256, digest SHA-256)
over the Body whose ``KeyInfo`` points at the token (``SecurityTokenReference`` / ``Reference``: a direct
reference). This is the shape the Ministry of Finance's reference clients send and expect back.

:func:`verify_envelope` checks an answer: exactly one signature, its reference is the Body of that very envelope
(not some other element: signature wrapping), the key is the expected certificate's (the token in the message is
never trusted on its own)."""

from __future__ import annotations

import base64
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from lxml import etree
from signxml import InvalidInput, InvalidSignature, SignatureConfiguration, SignatureMethod, XMLSigner, XMLVerifier
from signxml.algorithms import CanonicalizationMethod, DigestAlgorithm, SignatureConstructionMethod

SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/"
WSSE_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
DS_NS = "http://www.w3.org/2000/09/xmldsig#"
X509_TOKEN = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
BASE64 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"

PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_blank_text=False,
)


class SignatureError(Exception):
    """The message is not signed as agreed, or the signature does not verify against the expected certificate."""


def _cert_der(cert_pem: bytes) -> bytes:
    return x509.load_pem_x509_certificate(cert_pem).public_bytes(serialization.Encoding.DER)


def sign_envelope(envelope: etree._Element, *, key_pem: bytes, cert_pem: bytes) -> bytes:
    """Sign the Body of ``envelope`` (changed in place: Header, wsse:Security, wsu:Id) and return its bytes."""
    header = envelope.find(f"{{{SOAP_NS}}}Header")
    body = envelope.find(f"{{{SOAP_NS}}}Body")
    if body is None:
        raise ValueError("a SOAP envelope without a Body")
    if header is None:
        header = etree.Element(f"{{{SOAP_NS}}}Header")
        envelope.insert(0, header)
    body_id = f"id-{uuid.uuid4()}"
    token_id = f"X509-{uuid.uuid4()}"
    body.set(f"{{{WSU_NS}}}Id", body_id)
    security = etree.SubElement(header, f"{{{WSSE_NS}}}Security", nsmap={"wsse": WSSE_NS, "wsu": WSU_NS})
    security.set(f"{{{SOAP_NS}}}mustUnderstand", "1")
    token = etree.SubElement(
        security,
        f"{{{WSSE_NS}}}BinarySecurityToken",
        {"EncodingType": BASE64, "ValueType": X509_TOKEN, f"{{{WSU_NS}}}Id": token_id},
    )
    token.text = base64.b64encode(_cert_der(cert_pem)).decode()
    key_info = etree.Element(f"{{{DS_NS}}}KeyInfo", nsmap={"ds": DS_NS})
    str_el = etree.SubElement(key_info, f"{{{WSSE_NS}}}SecurityTokenReference", nsmap={"wsse": WSSE_NS})
    etree.SubElement(str_el, f"{{{WSSE_NS}}}Reference", {"URI": f"#{token_id}", "ValueType": X509_TOKEN})
    signer = XMLSigner(
        method=SignatureConstructionMethod.detached,
        signature_algorithm=SignatureMethod.RSA_SHA256,
        digest_algorithm=DigestAlgorithm.SHA256,
        c14n_algorithm=CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0,
    )
    signature = signer.sign(envelope, key=key_pem, reference_uri=f"#{body_id}", key_info=key_info)
    security.append(signature)
    return etree.tostring(envelope, xml_declaration=True, encoding="UTF-8")


def verify_envelope(data: bytes, *, cert_pem: bytes) -> etree._Element:
    """Parse and verify a signed envelope; return its Body (the signed element itself, never a re-parsed copy).
    Raises SignatureError when unsigned, signed by another key, altered, or when the signature covers anything
    but this envelope's Body."""
    try:
        root = etree.fromstring(data, parser=PARSER)
    except etree.XMLSyntaxError as exc:
        raise SignatureError(f"not XML: {exc}") from exc
    body = root.find(f"{{{SOAP_NS}}}Body")
    signatures = root.findall(f".//{{{DS_NS}}}Signature")
    if root.tag != f"{{{SOAP_NS}}}Envelope" or body is None:
        raise SignatureError("not a SOAP 1.1 envelope")
    if (
        len(signatures) != 1
        or signatures[0].getparent() is None
        or signatures[0].getparent().tag != f"{{{WSSE_NS}}}Security"
    ):
        raise SignatureError("the answer must carry exactly one signature in wsse:Security")
    body_id = body.get(f"{{{WSU_NS}}}Id")
    if not body_id:
        raise SignatureError("the answer's Body has no wsu:Id: it is not signed")
    config = SignatureConfiguration(
        require_x509=True,
        expect_references=1,
        signature_methods=frozenset({SignatureMethod.RSA_SHA256}),
        digest_algorithms=frozenset({DigestAlgorithm.SHA256}),
        ignore_ambiguous_key_info=True,
    )
    try:
        result = XMLVerifier().verify(root, x509_cert=cert_pem.decode(), expect_config=config)
    except (InvalidSignature, InvalidInput) as exc:
        raise SignatureError(f"the signature does not verify: {exc}") from exc
    refs = signatures[0].findall(f"{{{DS_NS}}}SignedInfo/{{{DS_NS}}}Reference")
    if [r.get("URI") for r in refs] != [f"#{body_id}"]:
        raise SignatureError("the signature does not cover this envelope's Body")
    signed = result[0].signed_xml if isinstance(result, list) else result.signed_xml
    if signed is None or signed.tag != f"{{{SOAP_NS}}}Body":
        raise SignatureError("the signature does not cover a Body")
    return body
