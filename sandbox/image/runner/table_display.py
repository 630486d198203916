"""A DataFrame as bounded, structured table data for chat surfaces (application/vnd.threadlab.table+json).

Chat surfaces draw real tables from it; text/plain and text/html stay as pandas makes them (the model reads
text/plain). Only the first rows travel in the display; when anything is left out (rows, columns or long
cells) every row is written to a CSV under /mnt/data/.threadlab/tables, bounded by the run's file limit.
"""
import json
import math
import os
import sys
import time

import files

TABLE_MIME = "application/vnd.threadlab.table+json"
MAX_ROWS = 100
MAX_COLUMNS = 50
MAX_CELL_CHARS = 200
MAX_JSON_CHARS = 256 * 1024
TABLES_DIR = ".threadlab/tables"
# Old CSVs are deleted so a thread's data does not fill up with them; the bot reads each one right after its turn.
KEEP_CSV_FILES = 8
CSV_CHUNK_ROWS = 1000


def _frame(obj):
    pd = sys.modules.get("pandas")
    if pd is None:
        return None
    if isinstance(obj, pd.DataFrame):
        return obj
    if isinstance(obj, pd.Series):
        return obj.to_frame(name=obj.name if obj.name is not None else "value")
    return None


def _label(value):
    if isinstance(value, tuple):
        return " / ".join(str(v) for v in value)
    return str(value)


def _cell(value):
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        text = repr(value)
        return text if len(text) <= 12 else f"{value:.6g}"
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a value whose str fails is still shown
        text = f"<{type(value).__name__}>"
    return text


def _shows_index(frame):
    pd = sys.modules["pandas"]
    idx = frame.index
    plain = isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1 and idx.name is None
    return not plain


def _cut(text):
    text = text.replace("\r", " ").replace("\n", " ")
    return (text[: MAX_CELL_CHARS - 1] + "…", True) if len(text) > MAX_CELL_CHARS else (text, False)


def table_bundle(obj, max_file_bytes):
    """The JSON text of the table mime type for a DataFrame (or Series), or None for anything else."""
    frame = _frame(obj)
    if frame is None:
        return None
    total_rows, total_columns = int(frame.shape[0]), int(frame.shape[1])
    show_index = _shows_index(frame)
    index_names = [_label(n) if n is not None else "" for n in frame.index.names] if show_index else []
    shown_columns = min(total_columns, MAX_COLUMNS)
    columns = index_names + [_label(c) for c in frame.columns[:shown_columns]]
    dtypes = ["index"] * len(index_names) + [str(t) for t in frame.dtypes.iloc[:shown_columns]]
    head = frame.iloc[:MAX_ROWS, :shown_columns]
    cells_cut = False
    rows = []
    for key, values in zip(head.index, head.itertuples(index=False, name=None)):
        keys = list(key) if isinstance(key, tuple) else [key]
        row = []
        for v in (keys if show_index else []) + list(values):
            text, was_cut = _cut(_cell(v))
            cells_cut = cells_cut or was_cut
            row.append(text)
        rows.append(row)
    columns = [_cut(c)[0] for c in columns]
    table = {"columns": columns, "dtypes": dtypes, "rows": rows, "totalRows": total_rows,
             "totalColumns": total_columns, "indexColumns": len(index_names)}
    text = json.dumps(table, ensure_ascii=False)
    while len(text) > MAX_JSON_CHARS and len(table["rows"]) > 1:
        table["rows"] = table["rows"][: len(table["rows"]) // 2]
        text = json.dumps(table, ensure_ascii=False)
    if len(text) > MAX_JSON_CHARS:
        return None
    cut = cells_cut or len(table["rows"]) < total_rows or shown_columns < total_columns
    if cut:
        table.update(_write_csv(frame, show_index, max_file_bytes))
        text = json.dumps(table, ensure_ascii=False)
    return text


def _write_csv(frame, show_index, max_file_bytes):
    """Writes every row that fits in `max_file_bytes` to a new CSV; returns where and how many rows."""
    name = f"table-{time.time_ns()}.csv"
    rel = f"{TABLES_DIR}/{name}"
    try:
        _prune()
        # The user's code could have planted links: nothing on the way is followed (files.open_file).
        fd = files.open_file(rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, create_dirs=True)
    except (OSError, files.UnsafePath) as exc:
        return {"csvError": f"{type(exc).__name__}: {exc}"[:300]}
    written_rows, written_bytes = 0, 0
    try:
        with os.fdopen(fd, "wb") as out:
            start = 0
            header = True
            step = CSV_CHUNK_ROWS
            while start < frame.shape[0] or (header and frame.shape[0] == 0):
                chunk = frame.iloc[start:start + step].to_csv(index=show_index, header=header).encode("utf-8")
                if written_bytes + len(chunk) > max_file_bytes:
                    if step == 1:
                        break
                    step = max(1, step // 10)
                    continue
                out.write(chunk)
                written_bytes += len(chunk)
                written_rows += min(step, frame.shape[0] - start)
                start += step
                header = False
                if frame.shape[0] == 0:
                    break
    except Exception as exc:  # noqa: BLE001 - a table that cannot be written is said, not raised
        return {"csvError": f"{type(exc).__name__}: {exc}"[:300]}
    return {"csvPath": rel, "csvRows": written_rows, "csvBytes": written_bytes}


def _prune():
    folder = os.path.join(files.ROOT, TABLES_DIR)
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("table-") and n.endswith(".csv"))
    except OSError:
        return
    for old in names[: max(0, len(names) - (KEEP_CSV_FILES - 1))]:
        try:
            os.unlink(os.path.join(folder, old))
        except OSError:
            pass
