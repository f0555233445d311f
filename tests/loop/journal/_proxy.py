"""A loopback TCP proxy in front of a server, which can stop passing bytes on (`freeze`).

A frozen proxy keeps every connection open and reads nothing more: to the client, the server
has stopped answering, while the TCP connection itself stays up (a hung server process, or a
network path that drops packets without resetting the connection).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit, urlunsplit

__all__ = ["Proxy"]


class Proxy:
    """Forwards 127.0.0.1:`port` to the server of `dsn`; `dsn` is the proxied DSN."""

    def __init__(self, dsn: str) -> None:
        parts = urlsplit(dsn)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._listener = socket.create_server(("127.0.0.1", 0))
        port = self._listener.getsockname()[1]
        netloc = f"{parts.username}@127.0.0.1:{port}" if parts.username else f"127.0.0.1:{port}"
        self.dsn = urlunsplit(parts._replace(netloc=netloc))
        self._flowing = threading.Event()
        self._flowing.set()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def freeze(self) -> None:
        """Stop passing bytes on, in both directions (connections stay open)."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Pass bytes on again."""
        self._flowing.set()

    def close(self) -> None:
        """Close the listener and every connection."""
        self._flowing.set()
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed
                return
            server = socket.create_connection(self._upstream)
            self._sockets += [client, server]
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        while True:
            self._flowing.wait()
            try:
                data = source.recv(65536)
                self._flowing.wait()  # what arrived while freezing waits too
                if not data:
                    target.shutdown(socket.SHUT_WR)
                    return
                target.sendall(data)
            except OSError:  # one side closed
                return
