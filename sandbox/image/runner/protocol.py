"""The protocol channel with the bot: newline-delimited JSON on private copies of the container's stdin and
stdout, held by the supervisor alone (the kernel is started without them). A frame that carries file bytes says
how many in its `bytes` field and the raw bytes follow its newline (no base64): `put_file` requests in, `file`
answers and a streamed file's `chunk` frames out.

fd 0/1 are duplicated before anything else runs and then re-pointed (fd 0 to /dev/null, fd 1 to the
diagnostics stream), so a stray print can never interleave with a frame.
"""
import errno
import json
import os
import threading

import framing

MAIN_PID = os.getpid()
#: Most raw bytes one frame carries (the bot sends up to 4 MiB; a streamed file goes out in STREAM_CHUNK_BYTES).
MAX_PAYLOAD_BYTES = 4 << 20
#: Bytes per `chunk` frame of a streamed file: the pipe to the bot takes them one after another.
STREAM_CHUNK_BYTES = 1 << 20


class ChannelBroken(Exception):
    """The bot's side sent a frame whose byte count cannot be honoured: the stream cannot be read further."""


class Channel:
    def __init__(self):
        self.in_fd = os.dup(0)
        self.out_fd = os.dup(1)
        self.diag_fd = os.dup(2)
        for fd in (self.in_fd, self.out_fd, self.diag_fd):
            os.set_inheritable(fd, False)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        self._lock = threading.Lock()
        self._reader = os.fdopen(self.in_fd, "rb", buffering=1 << 16)

    def send(self, frame, payload=None):
        """Writes one frame; `payload` (bytes) follows it raw, its length in the frame's `bytes`."""
        # A forked preview child must never speak on the channel.
        if os.getpid() != MAIN_PID:
            return
        if payload is not None:
            frame = {**frame, "bytes": len(payload)}
        data = framing.encode(frame)
        with self._lock:
            framing.write_all(self.out_fd, data)
            if payload:
                framing.write_all(self.out_fd, payload)

    def send_from_file(self, frame, fd, offset, count):
        """Writes one frame whose `count` raw bytes are read from `fd` at `offset` by the kernel (sendfile: the
        bytes never enter Python). Returns how many were sent: fewer only if the file got shorter meanwhile, and
        then the frame's `bytes` would be a lie, so the rest is padded with zeros and the caller stops."""
        if os.getpid() != MAIN_PID:
            return 0
        data = framing.encode({**frame, "bytes": count})
        sent = 0
        with self._lock:
            framing.write_all(self.out_fd, data)
            while sent < count:
                try:
                    n = os.sendfile(self.out_fd, fd, offset + sent, count - sent)
                except OSError as exc:
                    if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                        raise
                    block = os.pread(fd, min(count - sent, 1 << 20), offset + sent)
                    n = len(block)
                    if n:
                        framing.write_all(self.out_fd, block)
                if n == 0:
                    framing.write_all(self.out_fd, bytes(count - sent))
                    break
                sent += n
        return sent

    def diag(self, text):
        try:
            os.write(self.diag_fd, (text + "\n").encode("utf-8", "replace"))
        except OSError:
            pass

    def requests(self):
        """Yields parsed request objects until the bot closes stdin."""
        for line in self._reader:
            line = line.strip()
            if not line:
                continue
            try:
                request = json.loads(line)
            except ValueError as exc:
                self.send({"type": "error", "id": None, "message": f"bad json: {exc}"})
                continue
            if not isinstance(request, dict):
                continue
            if request.get("op") == "put_file":
                count = request.get("bytes")
                if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_PAYLOAD_BYTES:
                    raise ChannelBroken(f"a frame claims {count!r} bytes (at most {MAX_PAYLOAD_BYTES})")
                payload = self._reader.read(count) if count else b""
                if len(payload) < count:
                    return  # the bot went away mid-frame
                request["payload"] = payload
            yield request
