"""Structured previews of data files, computed here so the bot never parses an untrusted file.

Each file is read in a forked child with what is left of the request's time budget: a workbook that
declares tens of millions of cells, or a parser stuck in C code, is killed at the deadline (or when the
user presses Stop) instead of holding the session. Reads are bounded in rows and columns, and every
string in the answer is bounded in characters, so a preview is small whatever the file claims.
"""
import json
import os
import select
import signal
import threading
import time
import warnings

import files
import memory_guard
import privileges

HEAD_ROWS = 5
FULL_READ_BYTES = 32 << 20
#: Rows read to infer column types of a large file.
SAMPLE_ROWS = 2000
#: Columns read from a table; the preview says how many there are in all.
READ_COLUMNS = 200
#: Columns named in the preview (name and dtype each).
LISTED_COLUMNS = 50
#: The head as text: pandas' own layout with at most this many columns, each cell at most this wide.
HEAD_COLUMNS = 12
HEAD_CELL_CHARS = 40
HEAD_MAX_CHARS = 2000
NAME_MAX_CHARS = 80
SHEETS = 20
TEXT_MAX_CHARS = 4000
ERROR_MAX_CHARS = 500
#: Largest answer a child may send back; more is a broken child, not a preview.
ANSWER_MAX_BYTES = 1 << 20
#: Files previewed in one request.
MAX_PATHS = 50
#: Budget when the request names none (the bot always sends THREADLAB_PREVIEW_TIMEOUT_MS).
DEFAULT_BUDGET_MS = 10_000

_lock = threading.Lock()
_active = False  # a preview request is being served
_child = None  # pid of the preview child in flight
_stopped = False


def _cut(text, limit):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(df, rows, sheet=None, columns=None):
    import pandas as pd

    total = int(columns if columns is not None else df.shape[1])
    # to_string ignores display.max_columns: the bounds must be passed to it.
    with pd.option_context("display.max_colwidth", HEAD_CELL_CHARS):
        head = df.head(HEAD_ROWS).to_string(max_cols=HEAD_COLUMNS, max_colwidth=HEAD_CELL_CHARS, line_width=160)
    listed = list(df.dtypes.items())[:LISTED_COLUMNS]
    table = {
        "rows": int(rows),
        "columnCount": total,
        "columns": [{"name": _cut(c, NAME_MAX_CHARS), "dtype": str(t)} for c, t in listed],
        "head": _cut(head, HEAD_MAX_CHARS),
    }
    if sheet is not None:
        table["sheet"] = _cut(sheet, NAME_MAX_CHARS)
    return table


def _count_lines(path):
    count = 0
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            count += block.count(b"\n")
    return count


def _header_width(path, sep):
    import csv

    csv.field_size_limit(FULL_READ_BYTES)
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        return len(next(csv.reader(fh, delimiter=sep), []))


def _delimited(path, size, sep):
    import pandas as pd

    width = _header_width(path, sep)
    usecols = list(range(width)) if width <= READ_COLUMNS else list(range(READ_COLUMNS))
    if size <= FULL_READ_BYTES:
        df = pd.read_csv(path, sep=sep, low_memory=False, usecols=usecols)
        return [_table(df, len(df), columns=width)]
    df = pd.read_csv(path, sep=sep, nrows=SAMPLE_ROWS, usecols=usecols)
    return [_table(df, max(0, _count_lines(path) - 1), columns=width)]


def _xlsx(path):
    """openpyxl in read-only mode, row and column bounds passed down: the declared dimension is a claim."""
    import openpyxl
    import pandas as pd

    book = openpyxl.load_workbook(path, read_only=True, data_only=True, keep_links=False)
    try:
        tables = []
        for sheet in book.worksheets[:SHEETS]:
            rows = []
            width = 0
            for row in sheet.iter_rows(max_row=SAMPLE_ROWS + 1, max_col=READ_COLUMNS, values_only=True):
                values = list(row)
                while values and values[-1] is None:
                    values.pop()
                width = max(width, len(values))
                rows.append(values)
            while rows and not rows[-1]:
                rows.pop()
            header = [str(v) if v is not None else f"Unnamed: {i}" for i, v in enumerate((rows or [[]])[0])]
            header += [f"Unnamed: {i}" for i in range(len(header), width)]
            body = [r + [None] * (width - len(r)) for r in rows[1:]]
            df = pd.DataFrame(body, columns=header[:width] if width else None)
            # The sample ended before the sheet did: the sheet's own dimension is the best count there is.
            full = len(rows) > SAMPLE_ROWS
            declared_rows = (sheet.max_row or 0) - 1
            declared_cols = sheet.max_column or 0
            count = max(declared_rows, len(body)) if full else len(body)
            columns = max(width, declared_cols) if width >= READ_COLUMNS else width
            tables.append(_table(df, count, sheet=sheet.title, columns=columns))
        return tables
    finally:
        book.close()


def _excel(path, size, ext):
    import pandas as pd

    if size > FULL_READ_BYTES:
        raise ValueError("workbook too large to preview")
    if ext in (".xlsx", ".xlsm"):
        return _xlsx(path)
    sheets = pd.read_excel(path, sheet_name=None, nrows=SAMPLE_ROWS)
    return [_table(df.iloc[:, :READ_COLUMNS], len(df), sheet=name, columns=df.shape[1])
            for name, df in list(sheets.items())[:SHEETS]]


def _parquet(path):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        import pandas as pd

        df = pd.read_parquet(path)
        return [_table(df.iloc[:, :READ_COLUMNS], len(df), columns=df.shape[1])]
    handle = pq.ParquetFile(path)
    names = handle.schema_arrow.names
    batch = next(handle.iter_batches(batch_size=SAMPLE_ROWS, columns=names[:READ_COLUMNS]), None)
    df = batch.to_pandas() if batch is not None else handle.schema_arrow.empty_table().to_pandas()
    return [_table(df, handle.metadata.num_rows, columns=len(names))]


def _json_shape(value, depth=0):
    if depth > 3:
        return "…"
    if isinstance(value, dict):
        keys = list(value)[:20]
        inner = ", ".join(f"{_cut(k, NAME_MAX_CHARS)}: {_json_shape(value[k], depth + 1)}" for k in keys)
        more = ", …" if len(value) > 20 else ""
        return "{" + inner + more + "}"
    if isinstance(value, list):
        return f"list[{len(value)}] of " + (_json_shape(value[0], depth + 1) if value else "nothing")
    return type(value).__name__


def _json(path, size, out):
    if size > FULL_READ_BYTES:
        raise ValueError("JSON document too large to preview")
    with open(path, "rb") as fh:
        value = json.load(fh)
    out["kind"] = "json"
    out["text"] = _cut(_json_shape(value), TEXT_MAX_CHARS)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value[:50]):
        import pandas as pd

        df = pd.json_normalize(value[:SAMPLE_ROWS])
        out["tables"] = [_table(df.iloc[:, :READ_COLUMNS], len(value), columns=df.shape[1])]


def _text(path):
    with open(path, "rb") as fh:
        data = fh.read(8192)
    if b"\x00" in data:
        return None
    lines = data.decode("utf-8", "replace").splitlines()[:20]
    return _cut("\n".join(lines), TEXT_MAX_CHARS)


def preview(rel):
    """The preview of one file, read in this process; see preview_files for the bounded way."""
    out = {"path": rel, "bytes": 0, "kind": "binary"}
    try:
        path = files.resolve(rel)
        size = os.path.getsize(path)
        out["bytes"] = size
        ext = os.path.splitext(rel)[1].lower()
        if ext in (".csv", ".tsv", ".tab"):
            out["kind"] = "table"
            out["tables"] = _delimited(path, size, "\t" if ext != ".csv" else ",")
        elif ext in (".xlsx", ".xlsm", ".xls"):
            out["kind"] = "table"
            out["tables"] = _excel(path, size, ext)
        elif ext == ".parquet":
            out["kind"] = "table"
            out["tables"] = _parquet(path)
        elif ext in (".json", ".geojson"):
            _json(path, size, out)
        elif ext in (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"):
            from PIL import Image

            with Image.open(path) as image:
                out["kind"] = "image"
                out["text"] = f"{image.format} image, {image.size[0]}x{image.size[1]}, mode {image.mode}"
        else:
            text = _text(path)
            if text is not None:
                out["kind"] = "text"
                out["text"] = text
    except files.UnsafePath as exc:
        out["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - a bad file is reported, not fatal
        out["error"] = f"{type(exc).__name__}: {_cut(exc, ERROR_MAX_CHARS)}"
    return out


def interrupt():
    """Stop: kills the preview child in flight and skips the files after it. Called from the supervisor's stdin thread."""
    global _stopped
    with _lock:
        if not _active:
            return
        _stopped = True
        if _child is not None:
            try:
                os.kill(_child, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _seconds(ms):
    return f"{ms / 1000:g} s"


def _skipped(rel, why):
    out = {"path": rel, "bytes": 0, "kind": "binary"}
    try:
        out["bytes"] = files.size_of(rel)
    except (OSError, files.UnsafePath):
        pass
    out["error"] = f"preview skipped: {why}; the file is in /mnt/data"
    return out


def _fork():
    # The supervisor has a stdin thread, which the child does not need: the fork warning is noise here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _child_main(rel, write_fd):
    try:
        # The child parses an untrusted file: it keeps none of the supervisor's descriptors (the bot's
        # protocol, the kernel's pipes) and becomes the sandbox user, without capabilities, before it reads.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, write_fd)
        os.closerange(write_fd + 1, 1 << 16)
        privileges.drop_to_sandbox_user()
        data = json.dumps(preview(rel), ensure_ascii=False).encode("utf-8", "replace")
        view = memoryview(data[:ANSWER_MAX_BYTES + 1])
        while view:
            view = view[os.write(write_fd, view):]
    finally:
        os._exit(0)


def _in_child(rel, deadline, budget_ms):
    """Previews one file in a forked child until `deadline` (monotonic seconds)."""
    global _child
    name = os.path.basename(rel) or rel
    read_fd, write_fd = os.pipe()
    try:
        pid = _fork()
    except OSError as exc:
        os.close(read_fd)
        os.close(write_fd)
        return _skipped(rel, f"no process could be started to read {name} ({exc.strerror})")
    if pid == 0:
        os.close(read_fd)
        _child_main(rel, write_fd)
    os.close(write_fd)
    with _lock:
        _child = pid
    chunks, size, timed_out, over_memory = [], 0, False, False
    # Under gVisor no OOM killer picks the child: the guard does, as it does for runs (memory_guard.py).
    # Without it a spreadsheet that expands past the limit would take the whole container and the thread's variables.
    tick_ms = int(memory_guard.INTERVAL_S * 1000) if memory_guard.LIMIT_BYTES else None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if memory_guard.over_limit():
                over_memory = True
                break
            # poll, not select: select(2) is refused under gVisor's seccomp handling.
            poller = select.poll()
            poller.register(read_fd, select.POLLIN)
            wait_ms = max(1, int(left * 1000))
            ready = poller.poll(min(wait_ms, tick_ms) if tick_ms else wait_ms)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > ANSWER_MAX_BYTES:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        with _lock:
            _child = None
            stopped = _stopped
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    if stopped:
        return _skipped(rel, f"reading {name} was stopped at your request")
    if over_memory:
        return _skipped(rel, f"reading {name} ran out of memory")
    if timed_out:
        return _skipped(rel, f"reading {name} took longer than {_seconds(budget_ms)}")
    if size > ANSWER_MAX_BYTES:
        return _skipped(rel, f"the preview of {name} was larger than {ANSWER_MAX_BYTES} bytes")
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        why = "ran out of memory" if killed else "stopped unexpectedly"
        return _skipped(rel, f"reading {name} {why}")


def preview_files(paths, budget_ms=None):
    """Previews of `paths` within `budget_ms` in all; files past the budget (or a Stop) are skipped with why."""
    global _active, _stopped
    budget_ms = int(budget_ms) if budget_ms else DEFAULT_BUDGET_MS
    deadline = time.monotonic() + budget_ms / 1000
    with _lock:
        _active, _stopped = True, False
    out = []
    try:
        for index, rel in enumerate(paths):
            rel = str(rel)
            with _lock:
                stopped = _stopped
            if index >= MAX_PATHS:
                out.append(_skipped(rel, f"at most {MAX_PATHS} files are previewed at once"))
            elif stopped:
                out.append(_skipped(rel, "previews were stopped at your request"))
            elif time.monotonic() >= deadline:
                out.append(_skipped(rel, f"the {_seconds(budget_ms)} preview time limit was used up by earlier files"))
            else:
                out.append(_in_child(rel, deadline, budget_ms))
    finally:
        with _lock:
            _active = False
    return out
