"""The protocol channel: newline-delimited JSON on private copies of the container's stdin/stdout.

fd 0/1 are duplicated before anything else runs, so nothing the user's code (or a subprocess it
starts) writes to fd 1/2 can reach the channel; fds 0/1/2 are then re-pointed by capture.py.
"""
import json
import os
import threading

MAIN_PID = os.getpid()


class Channel:
    def __init__(self):
        self.in_fd = os.dup(0)
        self.out_fd = os.dup(1)
        self.diag_fd = os.dup(2)
        for fd in (self.in_fd, self.out_fd, self.diag_fd):
            os.set_inheritable(fd, False)
        self._lock = threading.Lock()
        self._reader = os.fdopen(self.in_fd, "rb", buffering=1 << 16)

    def send(self, frame):
        # A forked child of the user's code must never speak on the channel.
        if os.getpid() != MAIN_PID:
            return
        data = (json.dumps(frame, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8", "replace")
        with self._lock:
            view = memoryview(data)
            while view:
                written = os.write(self.out_fd, view)
                view = view[written:]

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
