"""Carries the code's network connections to the bot's egress gateway over the protocol channel.

The container has no network (NetworkMode none; under gVisor, its own network stack with loopback only). When
the operator allows destinations (THREADLAB_EGRESS_ALLOW), the bot starts containers with THREADLAB_EGRESS=1 and
HTTP(S)_PROXY pointing at 127.0.0.1:3128, where this relay, in the supervisor, accepts each connection and moves its
bytes in `egress` frames to the bot and back. Nothing here decides anything: the gateway in the bot reads the
proxy request, checks the destination, resolves it and connects. This side only moves bytes, within a window per
connection (the bot acknowledges what it consumed), so neither side buffers more than WINDOW bytes per connection.

Why this design, not a host Unix socket mounted into the container: it holds under runc and gVisor's runsc alike
(runsc refuses host Unix sockets unless started with --host-uds), it needs no mount, no route and no change to the
engine's configuration, and the only way out of the sandbox stays the channel the bot already treats as hostile.
"""
import base64
import os
import queue
import select
import socket
import threading

PORT = 3128
#: Connections open at once; more are closed at accept (the gateway has its own, lower, per-run limit).
MAX_CONNECTIONS = 32
#: Bytes sent to the bot and not yet acknowledged, per connection; and bytes from the bot not yet written.
WINDOW = 256 * 1024
CHUNK = 48 * 1024


def enabled():
    return os.environ.get("THREADLAB_EGRESS") == "1"


class _Conn:
    __slots__ = ("sock", "unacked", "out", "bot_ended", "client_ended")

    def __init__(self, sock):
        self.sock = sock
        self.unacked = 0
        self.out = bytearray()
        self.bot_ended = False
        self.client_ended = False


class Relay:
    def __init__(self, channel):
        self.channel = channel
        self.conns = {}
        self.next_id = 1
        self.inbox = queue.SimpleQueue()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", PORT))
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.wake_r, self.wake_w = os.pipe()
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
            os.set_inheritable(fd, False)
        threading.Thread(target=self._loop, name="threadlab-egress", daemon=True).start()

    def from_bot(self, request):
        """An `egress` request from the bot (called on the stdin thread): handled on the relay's own thread."""
        self.inbox.put(request)
        try:
            os.write(self.wake_w, b"x")
        except OSError:
            pass  # the pipe is full: the loop is awake anyway

    def _send(self, event, conn, **extra):
        self.channel.send({"type": "egress", "id": None, "event": event, "conn": conn, **extra})

    def _close(self, cid, tell_bot):
        conn = self.conns.pop(cid, None)
        if conn is None:
            return
        try:
            conn.sock.close()
        except OSError:
            pass
        if tell_bot:
            self._send("close", cid)

    def _loop(self):
        while True:
            try:
                self._once()
            except Exception as exc:  # noqa: BLE001 - the relay must outlive any one connection's trouble
                self.channel.diag(f"threadlab egress relay: {type(exc).__name__}: {exc}")

    def _once(self):
        poller = select.poll()
        poller.register(self.listener, select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        by_fd = {}
        for cid, conn in self.conns.items():
            mask = 0
            if not conn.client_ended and conn.unacked < WINDOW:
                mask |= select.POLLIN
            if conn.out:
                mask |= select.POLLOUT
            if mask:
                poller.register(conn.sock, mask)
                by_fd[conn.sock.fileno()] = cid
        for fd, events in poller.poll(1000):
            if fd == self.listener.fileno():
                self._accept()
            elif fd == self.wake_r:
                try:
                    os.read(self.wake_r, 4096)
                except OSError:
                    pass
            elif fd in by_fd:
                self._io(by_fd[fd], events)
        self._drain_inbox()

    def _accept(self):
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        if len(self.conns) >= MAX_CONNECTIONS:
            sock.close()
            return
        sock.setblocking(False)
        cid = self.next_id
        self.next_id += 1
        self.conns[cid] = _Conn(sock)
        self._send("open", cid)

    def _io(self, cid, events):
        conn = self.conns.get(cid)
        if conn is None:
            return
        if events & (select.POLLIN | select.POLLHUP | select.POLLERR) and not conn.client_ended:
            try:
                data = conn.sock.recv(min(CHUNK, WINDOW - conn.unacked))
            except BlockingIOError:
                data = None
            except OSError:
                self._close(cid, True)
                return
            if data:
                conn.unacked += len(data)
                self._send("data", cid, base64=base64.b64encode(data).decode("ascii"))
            elif data is not None:
                conn.client_ended = True
                self._send("end", cid)
        if events & select.POLLOUT and conn.out:
            try:
                written = conn.sock.send(conn.out)
            except BlockingIOError:
                written = 0
            except OSError:
                self._close(cid, True)
                return
            if written:
                del conn.out[:written]
                self._send("ack", cid, bytes=written)
        self._maybe_finish(cid, conn)

    def _maybe_finish(self, cid, conn):
        if conn.bot_ended and not conn.out:
            try:
                conn.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            if conn.client_ended:
                self._close(cid, True)

    def _drain_inbox(self):
        while True:
            try:
                request = self.inbox.get_nowait()
            except queue.Empty:
                return
            self._from_bot(request)

    def _from_bot(self, request):
        cid = request.get("conn")
        conn = self.conns.get(cid)
        if conn is None:
            return
        event = request.get("event")
        if event == "data":
            try:
                data = base64.b64decode(request.get("base64", ""), validate=True)
            except ValueError:
                self._close(cid, True)
                return
            if len(conn.out) + len(data) > 2 * WINDOW:  # the bot keeps to the window; this is a broken one
                self._close(cid, True)
                return
            conn.out += data
        elif event == "ack":
            conn.unacked = max(0, conn.unacked - int(request.get("bytes", 0)))
        elif event == "end":
            conn.bot_ended = True
            self._maybe_finish(cid, conn)
        elif event == "close":
            self._close(cid, False)
