"""fd 1/2 become pipes read by one thread, so the output of the user's code and of every subprocess
streams as frames, is capped with head and tail kept, and spills to a file when it overflows."""
import codecs
import fcntl
import io
import os
import select
import sys
import threading

OUTPUT_DIR = "/mnt/data/.threadlab"


class StreamBuffer:
    """Keeps the first and last `cap/2` bytes of one stream and counts the rest."""

    def __init__(self, name, cap):
        self.name = name
        self.cap = cap
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def add(self, data):
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.tail_cap:
                del self.tail[: len(self.tail) - self.tail_cap]

    def kept(self):
        tail = self.tail[-self.tail_cap:] if self.total > self.cap else self.tail
        return bytes(self.head), bytes(tail)

    def elided(self):
        head, tail = self.kept()
        return self.total - len(head) - len(tail)

    def text(self, note_path):
        head, tail = self.kept()
        elided = self.total - len(head) - len(tail)
        if elided <= 0:
            return (head + tail).decode("utf-8", "replace")
        where = f"; full output in {note_path}" if note_path else ""
        marker = f"\n[... {elided} bytes elided{where} ...]\n"
        return head.decode("utf-8", "ignore") + marker + tail.decode("utf-8", "ignore")


class RunOutput:
    """Output of one run: frames while under the cap, a spill file once a stream overflows."""

    def __init__(self, channel, run_id, cap, file_max_bytes, file_name):
        self.channel = channel
        self.run_id = run_id
        self.file_max_bytes = file_max_bytes
        self.file_name = file_name
        self.streams = {"stdout": StreamBuffer("stdout", cap), "stderr": StreamBuffer("stderr", cap)}
        self.spill = None
        self.spill_bytes = 0
        self.spill_path = None

    def feed(self, name, data):
        stream = self.streams[name]
        before = stream.total
        if self.spill is None and before + len(data) > stream.cap:
            self._open_spill(data)
        elif self.spill:
            self._write_spill(data)
        stream.add(data)
        if before < stream.cap:
            text = stream.decoder.decode(data[: stream.cap - before])
            if text:
                self.channel.send({"type": name, "id": self.run_id, "text": text})

    def _open_spill(self, data):
        try:
            os.makedirs(OUTPUT_DIR, exist_ok=True)
            self.spill_path = os.path.join(OUTPUT_DIR, self.file_name)
            self.spill = open(self.spill_path, "wb")
        except OSError:
            self.spill = False
            return
        # Nothing has been trimmed yet: trimming starts only once a stream passes the cap.
        for stream in self.streams.values():
            self._write_spill(bytes(stream.head + stream.tail))
        self._write_spill(data)

    def _write_spill(self, data):
        if not self.spill:
            return
        limit = self.file_max_bytes - 64  # room for the closing note, so the file stays an artifact
        room = limit - self.spill_bytes
        if room <= 0:
            return
        try:
            self.spill.write(data[:room])
            self.spill_bytes += min(room, len(data))
            if self.spill_bytes >= limit:
                self.spill.write(b"\n[... output file capped ...]\n")
        except OSError:
            pass

    def finish(self):
        if self.spill:
            try:
                self.spill.close()
            except OSError:
                pass
        rel = os.path.relpath(self.spill_path, "/mnt/data") if self.spill else None
        out, err = self.streams["stdout"], self.streams["stderr"]
        result = {"stdout": out.text(rel), "stderr": err.text(rel)}
        if out.elided() > 0 or err.elided() > 0:
            result["truncated"] = {"stdoutBytes": out.elided(), "stderrBytes": err.elided()}
            if rel:
                result["truncated"]["fullOutputPath"] = rel
        return result


class Capture:
    """Owns the fd 1/2 pipes. Data leaves a pipe only under `lock`, so `drain()` is exact."""

    def __init__(self, channel):
        self.channel = channel
        self.lock = threading.Lock()
        self.current = None
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        self.fds = {}
        for fd, name in ((1, "stdout"), (2, "stderr")):
            read_end, write_end = os.pipe()
            os.dup2(write_end, fd)
            os.close(write_end)
            os.set_inheritable(read_end, False)
            fcntl.fcntl(read_end, fcntl.F_SETFL, fcntl.fcntl(read_end, fcntl.F_GETFL) | os.O_NONBLOCK)
            self.fds[read_end] = name
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace", line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True)
        sys.__stdout__, sys.__stderr__ = sys.stdout, sys.stderr
        threading.Thread(target=self._loop, name="threadlab-capture", daemon=True).start()

    def _read_available(self, fd):
        name = self.fds[fd]
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            if not data:
                return
            if self.current is not None:
                self.current.feed(name, data)
            # Output with no run in progress (a background job) is dropped.

    def _loop(self):
        fds = list(self.fds)
        while True:
            ready, _, _ = select.select(fds, [], [])
            with self.lock:
                for fd in ready:
                    self._read_available(fd)

    def begin(self, run_output):
        with self.lock:
            self.current = run_output

    def drain(self):
        """Takes every byte written so far, then detaches the run."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        with self.lock:
            for fd in self.fds:
                self._read_available(fd)
            current, self.current = self.current, None
        return current
