"""The output of one run, as the supervisor frames it: what the kernel and every process it started wrote
to fd 1/2 streams as stdout/stderr frames of the run, capped with head and tail kept, and spills to a file
when it overflows; displays are checked and counted before they are framed."""
import codecs
import os

import files

OUTPUT_DIR = "/mnt/data/.threadlab"
#: Displays one run may send, and their total size in characters (the bot caps them again).
MAX_DISPLAYS = 100
MAX_DISPLAY_CHARS = 48 << 20
MIME_TYPES_PER_DISPLAY = 16
META_TEXT_CHARS = 500


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
        self.displays = 0
        self.display_chars = 0
        self.dropped_displays = 0
        self.discarded_before = 0  # bytes printed between the previous run and this one, not shown

    def display(self, frame):
        """Frames a display the kernel claims to have shown, if it has the display's shape and fits."""
        data = frame.get("data")
        if not isinstance(data, dict) or not data or len(data) > MIME_TYPES_PER_DISPLAY:
            return
        data = {k: v for k, v in data.items() if isinstance(k, str) and len(k) <= 100 and isinstance(v, str)}
        size = sum(len(v) for v in data.values())
        if not data or self.displays >= MAX_DISPLAYS or self.display_chars + size > MAX_DISPLAY_CHARS:
            self.dropped_displays += 1
            return
        self.displays += 1
        self.display_chars += size
        out = {"type": "display", "id": self.run_id, "data": data}
        meta = frame.get("meta")
        if isinstance(meta, dict):
            kept = {k: meta[k][:META_TEXT_CHARS] for k in ("title", "xlabel", "ylabel") if isinstance(meta.get(k), str)}
            for k in ("width", "height"):
                if type(meta.get(k)) is int and 0 <= meta[k] <= 1 << 20:
                    kept[k] = meta[k]
            out["meta"] = kept
        self.channel.send(out)

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
            # The user's code runs meanwhile: no link on the way is followed (see files.open_file).
            rel = os.path.join(os.path.relpath(OUTPUT_DIR, files.ROOT), self.file_name)
            fd = files.open_file(rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, create_dirs=True)
            self.spill_path = os.path.join(OUTPUT_DIR, self.file_name)
            self.spill = os.fdopen(fd, "wb")
        except (OSError, files.UnsafePath):
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
        if self.discarded_before:
            result["stderr"] += (
                f"\n[threadlab: {self.discarded_before} bytes printed after the previous run ended (by a thread it"
                " left running) were discarded]\n"
            )
        if self.dropped_displays:
            result["stderr"] += (
                f"\n[threadlab: {self.dropped_displays} more displays were dropped (at most {MAX_DISPLAYS} per run)]\n"
            )
        if out.elided() > 0 or err.elided() > 0:
            result["truncated"] = {"stdoutBytes": out.elided(), "stderrBytes": err.elided()}
            if rel:
                result["truncated"]["fullOutputPath"] = rel
        return result
