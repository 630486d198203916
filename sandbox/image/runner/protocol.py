"""The protocol channel with the bot: newline-delimited JSON on private copies of the container's stdin and
stdout, held by the supervisor alone (the kernel is started without them).

fd 0/1 are duplicated before anything else runs and then re-pointed (fd 0 to /dev/null, fd 1 to the
diagnostics stream), so a stray print can never interleave with a frame.
"""
import json
import os
import threading

import framing

MAIN_PID = os.getpid()


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

    def send(self, frame):
        # A forked preview child must never speak on the channel.
        if os.getpid() != MAIN_PID:
            return
        data = framing.encode(frame)
        with self._lock:
            framing.write_all(self.out_fd, data)

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
            if isinstance(request, dict):
                yield request
