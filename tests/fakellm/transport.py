"""The HTTP layer: a threading server that can drop its connections, and a handler that
records each request and writes JSON, chunked SSE streams and deliberately cut bodies."""

from __future__ import annotations

import json
import socket
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from .recorded import RecordedRequest
from .responder import Responder, Stopping
from .routes import route_for

if TYPE_CHECKING:
    from .server import FakeLLM


class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True
    fake: FakeLLM

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._conns_lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    def close_connections(self) -> None:
        """Wake every connection thread (keep-alive waits, slow streams) so they end."""
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        text = traceback.format_exc()
        self.fake._note_error(text)
        print(f"fakellm: error serving {client_address}:\n{text}", file=sys.stderr)


DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, Stopping)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server
    aborted = False  # set by abort(): the reply was cut on purpose

    # -- plumbing ---------------------------------------------------------------------------

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        self.server.track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self) -> None:
        fake = self.server.fake
        split = urlsplit(self.path)
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        body = self._read_body()
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        route = route_for(self.command, split.path, headers, query)
        parsed: Any = None
        form: dict[str, str] | None = None
        if body:
            try:
                parsed = json.loads(body)
            except ValueError:
                if "x-www-form-urlencoded" in headers.get("content-type", ""):
                    form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        req = RecordedRequest(self.command, split.path, query, headers, body, parsed, form, route.protocol)
        serial = fake._record(req)
        try:
            self.aborted = False
            Responder(self, fake, req, route, serial).respond()
            req.completed = not self.aborted
        except DISCONNECTS:
            self.close_connection = True
        finally:
            req.finished = True

    # -- writing ----------------------------------------------------------------------------

    def send_body(
        self,
        status: int,
        data: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
        *,
        length: int | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self.send_body(status, json.dumps(obj).encode(), "application/json; charset=utf-8", headers)

    def start_chunked(self, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def write_chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def abort(self) -> None:
        """Drop the connection in the middle of the body."""
        self.wfile.flush()
        self.close_connection = True
        self.aborted = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
