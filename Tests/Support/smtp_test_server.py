#!/usr/bin/env python3
"""Throwaway SMTP server for Pawpack's SMTPMailer integration test.

Usage: python3 smtp_test_server.py <messages.jsonl>

The server
  * listens on 127.0.0.1 on a free port and requires STARTTLS before anything else,
    using a fresh self-signed certificate for CN=localhost
    (SANs DNS:localhost and IP:127.0.0.1),
  * requires AUTH (PLAIN or LOGIN, only after TLS) and accepts exactly
    user "pawpack" with password "s3cret-pass",
  * appends every accepted message to <messages.jsonl> as one JSON object per line:
    {"mail_from", "rcpt_tos", "data"} plus, for convenient assertions, "subject" and
    "body" as decoded by Python's own MIME parser,
  * prints exactly one line "READY <port> <path-to-cert.pem>" on stdout once it accepts
    connections,
  * stops when stdin is closed, on SIGTERM/SIGINT, or after 120 seconds, whichever comes
    first, so a crashed test run can never leave it behind.

Needs: pip install aiosmtpd. The certificate is made with the `cryptography` package when
it is installed, otherwise with the `openssl` command-line tool.
"""

import datetime
import email
import email.policy
import ipaddress
import json
import logging
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USERNAME = b"pawpack"
PASSWORD = b"s3cret-pass"
MAX_LIFETIME_SECONDS = 120


def make_certificate(directory):
    """Writes cert.pem and key.pem for CN=localhost into directory; returns their paths."""
    cert_path = os.path.join(directory, "cert.pem")
    key_path = os.path.join(directory, "key.pem")
    try:
        _make_certificate_with_cryptography(cert_path, key_path)
    except ImportError:
        _make_certificate_with_openssl(directory, cert_path, key_path)
    return cert_path, key_path


def _make_certificate_with_cryptography(cert_path, key_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    # The certificate is its own trust anchor, so it is marked as a CA (with the key usage
    # strict verifiers such as Python 3.13+ insist on for CAs) and also as a TLS server.
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    with open(key_path, "wb") as handle:
        handle.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    with open(cert_path, "wb") as handle:
        handle.write(certificate.public_bytes(serialization.Encoding.PEM))


def _make_certificate_with_openssl(directory, cert_path, key_path):
    config_path = os.path.join(directory, "openssl.cnf")
    with open(config_path, "w", encoding="ascii") as handle:
        handle.write(
            "[req]\n"
            "distinguished_name = dn\n"
            "x509_extensions = v3\n"
            "prompt = no\n"
            "[dn]\n"
            "CN = localhost\n"
            "[v3]\n"
            "basicConstraints = critical,CA:TRUE\n"
            "keyUsage = critical,digitalSignature,keyCertSign\n"
            "extendedKeyUsage = serverAuth\n"
            "subjectKeyIdentifier = hash\n"
            "authorityKeyIdentifier = keyid:always\n"
            "subjectAltName = DNS:localhost,IP:127.0.0.1\n"
        )
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec",
            "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key_path, "-out", cert_path, "-days", "2",
            "-config", config_path,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def free_port():
    """A port that was free a moment ago on 127.0.0.1 (aiosmtpd's Controller needs a fixed one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def authenticator(server, session, envelope, mechanism, auth_data):
    if not isinstance(auth_data, LoginPassword):
        return AuthResult(success=False, handled=False)
    accepted = auth_data.login == USERNAME and auth_data.password == PASSWORD
    return AuthResult(success=accepted, handled=False)


class Recorder:
    """aiosmtpd handler that appends each accepted message to a JSON-lines file."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or b""
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        try:
            body = parsed.get_content() if not parsed.is_multipart() else ""
        except (LookupError, ValueError) as error:
            body = f"<undecodable body: {error}>"
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": list(envelope.rcpt_tos),
            "data": raw.decode("utf-8", errors="replace"),
            "subject": str(parsed.get("subject", "")),
            "body": body.replace("\r\n", "\n"),
        }
        # Written (and closed) before the 250 goes out, so the client can read the file
        # as soon as its send returns.
        with self.lock, open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        return "250 2.0.0 Message accepted for delivery"


def main():
    if len(sys.argv) != 2:
        print("usage: smtp_test_server.py <messages.jsonl>", file=sys.stderr)
        return 2

    # aiosmtpd warns about its own deprecated Session.login_data on every AUTH; keep test
    # output to real problems.
    logging.getLogger("mail.log").setLevel(logging.ERROR)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def wait_for_stdin_eof():
        # os.read on the raw descriptor, not sys.stdin: a daemon thread parked inside the
        # buffered reader would make interpreter shutdown abort on its lock.
        try:
            while os.read(sys.stdin.fileno(), 4096):
                pass
        except OSError:
            pass
        finally:
            stop.set()

    directory = tempfile.mkdtemp(prefix="pawpack-smtp-")
    controller = None
    try:
        cert_path, key_path = make_certificate(directory)
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(cert_path, key_path)

        port = free_port()
        controller = Controller(
            Recorder(sys.argv[1]),
            hostname="127.0.0.1",
            port=port,
            server_hostname="localhost",
            ready_timeout=30.0,
            tls_context=tls_context,
            require_starttls=True,
            authenticator=authenticator,
            auth_required=True,
            auth_require_tls=True,
        )
        controller.start()

        threading.Thread(target=wait_for_stdin_eof, daemon=True).start()
        print(f"READY {port} {cert_path}", flush=True)
        stop.wait(MAX_LIFETIME_SECONDS)
        return 0
    finally:
        if controller is not None:
            controller.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
