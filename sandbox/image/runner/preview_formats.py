"""What one data file holds, read here so the bot never parses an untrusted file: tables (CSV, TSV, Excel,
Parquet), JSON's shape, an image's size, a text's first lines.

Reads are bounded in rows and columns, and every string in the answer is bounded in characters, so a preview
is small whatever the file claims. preview.py runs `preview` in a forked child with a deadline.
"""
import json
import os

import files

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
    """The preview of one file, read in this process; see preview.preview_files for the bounded way."""
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

