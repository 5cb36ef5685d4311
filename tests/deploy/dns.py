"""A DNS server on loopback that answers A records from a table the test changes while it runs: what Docker's
embedded DNS does for a compose service whose replicas come and go (dnslib's server, UDP)."""

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from dnslib import QTYPE, RR, A, DNSRecord
from dnslib.server import BaseResolver, DNSHandler, DNSServer


class Table(BaseResolver):  # type: ignore[misc]
    def __init__(self) -> None:
        self.addresses: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def set(self, name: str, *addresses: str) -> None:
        with self._lock:
            self.addresses[name.rstrip(".")] = list(addresses)

    def resolve(self, request: DNSRecord, handler: DNSHandler) -> DNSRecord:
        reply = request.reply()
        name = str(request.q.qname).rstrip(".")
        with self._lock:
            addresses = list(self.addresses.get(name, []))
        if request.q.qtype == QTYPE.A:
            for address in addresses:
                reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A(address), ttl=1))
        return reply


@contextmanager
def loopback_dns() -> Iterator[tuple[Table, str]]:
    """The table and the server's `host:port` (for nginx's `resolver`)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    table = Table()
    server = DNSServer(table, address="127.0.0.1", port=port, logger=_Quiet())
    server.start_thread()
    try:
        yield table, f"127.0.0.1:{port}"
    finally:
        server.stop()


class _Quiet:
    """dnslib's logger, silent (it prints every request otherwise)."""

    def __getattr__(self, _name: str) -> object:
        return lambda *arguments: None
