"""Bot endpoints (``HOST:PORT``): checked before they are registered or played.

A host is an IPv4 address, an IPv6 address in brackets (``[::1]:50051``), or a DNS
name; a port is 1 to 65535. ``reachable`` tries a TCP connection, so a typo is caught
when the bot is added, not in every match it was scheduled for.
"""

from __future__ import annotations

import ipaddress
import re
import socket

_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


class EndpointError(ValueError):
    """Text that is not a usable ``HOST:PORT``."""


def parse_endpoint(text: str) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT``; EndpointError says what is wrong."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise EndpointError(f"{text!r} is not HOST:PORT")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise EndpointError(f"{text!r}: the port must be a number from 1 to 65535")
    return _host(text, host), int(port_text)


def _host(text: str, host: str) -> str:
    if host.startswith("[") and host.endswith("]"):
        try:
            return str(ipaddress.IPv6Address(host[1:-1]))
        except ValueError:
            raise EndpointError(f"{text!r}: {host} is not an IPv6 address") from None
    if re.fullmatch(r"[\d.]+", host):
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            raise EndpointError(f"{text!r}: {host} is not an IPv4 address") from None
    labels = host.rstrip(".").split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise EndpointError(f"{text!r}: {host!r} is not a host name (IPv6: [address]:port)")
    return host


def reachable(text: str, timeout: float = 2.0) -> str | None:
    """None when a TCP connection to the endpoint opens, else why not."""
    host, port = parse_endpoint(text)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as error:
        return error.strerror or str(error) or type(error).__name__


#: ``ARENA_ALLOW_PRIVATE_ENDPOINTS=1``: owners may register loopback and private addresses
#: (a platform whose bot authors are on its own network); off by default
ALLOW_PRIVATE_ENV = "ARENA_ALLOW_PRIVATE_ENDPOINTS"


_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, and so may reach: mapped
    (``::ffff:a.b.c.d``), IPv4-compatible (``::a.b.c.d``), NAT64 (``64:ff9b::a.b.c.d``),
    6to4 (``2002:AABB:CCDD::``) or Teredo (its client)."""
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if int(address) >> 32 == 0 and int(address) > 1:  # ::a.b.c.d, not :: or ::1
        return low
    if any(address in network for network in _NAT64):
        return low
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A global address, and (IPv6) so is any IPv4 address it carries."""
    if not address.is_global:
        return False
    inner = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    return inner is None or inner.is_global


def pinned_public(text: str) -> str:
    """An owner's ``HOST:PORT`` as the public address it resolves to now (``IP:PORT``):
    EndpointError when it names a loopback, private, link-local or otherwise non-public
    address (the platform's own services, or its network's). Pinning the address means
    a name that resolves elsewhere later (DNS rebinding) still reaches what was checked."""
    host, port = parse_endpoint(text)
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
    except OSError as error:
        raise EndpointError(f"{text!r}: {host} does not resolve ({error})") from None
    addresses = sorted(ipaddress.ip_address(str(a).split("%")[0]) for a in found)
    closed = [str(a) for a in addresses if not _public(a)]
    if closed:
        raise EndpointError(
            f"{text!r}: {', '.join(closed)} is not a public address; the platform's operator "
            f"may allow private endpoints ({ALLOW_PRIVATE_ENV}=1)"
        )
    first = addresses[0]
    return f"[{first}]:{port}" if first.version == 6 else f"{first}:{port}"
