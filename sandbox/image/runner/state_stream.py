"""A save's state file streamed to the bot while the kernel is still writing it (state.py), so pickling and the
copy overlap instead of following each other.

A thread of the supervisor's follows the kernel's temporary file as it grows and sends what is new in `chunk`
frames; when the kernel is done, the rest of the final file follows. The kernel is the user's process and may
write its file any way it likes, so nothing here trusts it: never more than `limit` bytes are sent, and when
what was sent may not be the start of the final file (another inode, a file that shrank), one `reset` chunk
tells the bot to drop what it has and the final file is sent whole. The bot checks the bytes against the
kernel's digest in any case.
"""
import os
import threading

import files
from protocol import STREAM_CHUNK_BYTES

TEMP = ".threadlab/state/state.dill.tmp"
FINAL = ".threadlab/state/state.dill"
#: How often the follower looks for new bytes when there are none.
POLL_S = 0.005


class StateStream:
    def __init__(self, channel, rid, limit):
        self.channel, self.rid, self.limit = channel, rid, max(0, int(limit))
        self.fd = None
        self.sent = 0
        self.spoiled = False  # the bytes sent may not be the file's (it shrank while sent)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._follow, name="threadlab-state-stream", daemon=True)

    def start(self):
        """Starts following; a temporary file left by an earlier save is removed first, so it is never sent."""
        _delete(TEMP)
        self.thread.start()

    def _follow(self):
        try:
            while not self.done.is_set():
                if self.fd is None:
                    self.fd = _open(TEMP)
                if self.fd is None or not self._send_to(os.fstat(self.fd).st_size):
                    self.done.wait(POLL_S)
        except OSError as exc:
            self.channel.diag(f"threadlab supervisor: following the state file failed: {exc}")
            self.spoiled = True

    def _send_to(self, size):
        """Sends the file's bytes from what was sent up to `size` (at most `limit` in all); False if none."""
        size = min(size, self.limit)
        if size <= self.sent:
            return False
        while self.sent < size:
            count = min(STREAM_CHUNK_BYTES, size - self.sent)
            n = self.channel.send_from_file({"type": "chunk", "id": self.rid}, self.fd, self.sent, count)
            self.sent += count
            if n < count:
                self.spoiled = True  # padded with zeros to keep the stream in step
                return False
        return True

    def stop(self):
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()

    def finish(self, report):
        """After the kernel's answer: sends the rest of the saved file (or all of it again, after a reset) and
        deletes it. Returns the report for the bot, `streamed` set when the file went this way."""
        self.stop()
        try:
            if report.get("failed") is not None or report.get("tooLarge") or report.get("unchanged") or not report.get("digest"):
                return report  # the bot drops what came; the kernel left no file (or the one the bot has)
            fd = _open(FINAL)
            if fd is None:
                return {"failed": "the saved state file is missing"}
            st = os.fstat(fd)
            if st.st_size > self.limit:
                os.close(fd)
                return {"tooLarge": True, "bytes": st.st_size}
            same = self.fd is not None and os.fstat(self.fd).st_ino == st.st_ino
            if not same or self.spoiled or self.sent > st.st_size:
                self.channel.send({"type": "chunk", "id": self.rid, "reset": True}, b"")
                self._close()
                self.fd, self.sent, self.spoiled = fd, 0, False
            else:
                os.close(fd)
            self._send_to(st.st_size)
            if self.spoiled or self.sent != st.st_size:
                return {"failed": "the state file changed while it was sent"}
            return {**report, "streamed": True}
        finally:
            self._close()
            _delete(FINAL)
            _delete(TEMP)

    def _close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _open(rel):
    try:
        return files.open_file(rel, os.O_RDONLY)
    except (files.UnsafePath, OSError):
        return None


def _delete(rel):
    try:
        files.delete(rel)
    except (files.UnsafePath, OSError):
        pass
