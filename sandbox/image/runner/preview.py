"""Structured previews of data files, computed here so the bot never parses an untrusted file."""
import json
import os

import files

HEAD_ROWS = 5
FULL_READ_BYTES = 32 << 20


def _table(df, rows, sheet=None):
    import pandas as pd

    with pd.option_context("display.max_columns", 30, "display.width", 160, "display.max_colwidth", 40):
        head = df.head(HEAD_ROWS).to_string()
    table = {"rows": int(rows), "columns": [{"name": str(c), "dtype": str(t)} for c, t in df.dtypes.items()], "head": head}
    if sheet is not None:
        table["sheet"] = str(sheet)
    return table


def _count_lines(path):
    count = 0
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            count += block.count(b"\n")
    return count


def _delimited(path, size, sep):
    import pandas as pd

    if size <= FULL_READ_BYTES:
        df = pd.read_csv(path, sep=sep, low_memory=False)
        return [_table(df, len(df))]
    df = pd.read_csv(path, sep=sep, nrows=2000)
    return [_table(df, max(0, _count_lines(path) - 1))]


def _excel(path, size):
    import pandas as pd

    if size > FULL_READ_BYTES:
        raise ValueError("workbook too large to preview")
    sheets = pd.read_excel(path, sheet_name=None)
    return [_table(df, len(df), sheet=name) for name, df in list(sheets.items())[:20]]


def _json_shape(value, depth=0):
    if depth > 3:
        return "…"
    if isinstance(value, dict):
        keys = list(value)[:20]
        inner = ", ".join(f"{k}: {_json_shape(value[k], depth + 1)}" for k in keys)
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
    out["text"] = _json_shape(value)[:4000]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value[:50]):
        import pandas as pd

        df = pd.json_normalize(value[:2000])
        out["tables"] = [_table(df, len(value))]


def _text(path):
    with open(path, "rb") as fh:
        data = fh.read(8192)
    if b"\x00" in data:
        return None
    lines = data.decode("utf-8", "replace").splitlines()[:20]
    return "\n".join(lines)


def preview(rel):
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
            out["tables"] = _excel(path, size)
        elif ext == ".parquet":
            import pandas as pd

            out["kind"] = "table"
            df = pd.read_parquet(path)
            out["tables"] = [_table(df, len(df))]
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
        out["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
    return out
