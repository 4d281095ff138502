"""The HTTP health probes of the test bed's processes, on loopback and never through a proxy.

A proxy named by ``http_proxy`` must not see a request to 127.0.0.1, and a health endpoint's
self-signed certificate is not what the test is about: :func:`http_get` takes neither path.
"""

from __future__ import annotations

import http.client
import ssl
import urllib.error
import urllib.request
from typing import Final

__all__ = ["NO_PROXY", "http_get", "http_ok", "insecure_tls"]

NO_PROXY: Final = urllib.request.ProxyHandler({})
"""A handler that sends every request straight to its host, whatever the environment says."""


def insecure_tls() -> ssl.SSLContext:
    """TLS without verification, for the health endpoints' self-signed certificates on loopback."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def http_get(url: str, *, timeout: float = 2.0, tls: ssl.SSLContext | None = None) -> tuple[int, bytes] | None:
    """GET ``url``: its status and body (an error status too), or None when nothing answered."""
    opener = urllib.request.build_opener(NO_PROXY, urllib.request.HTTPSHandler(context=tls))
    try:
        with opener.open(url, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), bytes(error.read())
    except (OSError, http.client.HTTPException):
        return None


def http_ok(url: str, *, body: bytes | None = None, tls: ssl.SSLContext | None = None) -> bool:
    """True when ``url`` answers 200 (and, if given, exactly ``body``, surrounding whitespace aside)."""
    answer = http_get(url, tls=tls)
    if answer is None or answer[0] != 200:
        return False
    return body is None or answer[1].strip() == body
