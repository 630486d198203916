"""Rich representations of values (the notebook's display protocol) and matplotlib figure capture."""
import base64
import io
import struct
import sys

import table_display

TEXT_CAP = 256 * 1024


def _clip(text, cap=TEXT_CAP):
    if len(text) > cap:
        return text[: cap // 2] + f"\n[... {len(text) - cap} characters elided ...]\n" + text[-cap // 2:]
    return text


def _as_text(value):
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value if isinstance(value, str) else None


# Figures emitted as displays since the kernel started: a run compares it before and after (execute.py).
FIGURES_EMITTED = 0


def mime_bundle(obj, max_file_bytes=100 << 20):
    """Maps MIME types to content for `obj`, the way a notebook front end would see it."""
    data = {}
    try:
        table = table_display.table_bundle(obj, max_file_bytes)
    except Exception:  # noqa: BLE001 - the table form is extra: text/plain and text/html still show it
        table = None
    if table is not None:
        data[table_display.TABLE_MIME] = table
    plotly = sys.modules.get("plotly.graph_objs")
    if plotly is not None and isinstance(obj, getattr(plotly, "Figure", ())):
        data["text/html"] = obj.to_html(include_plotlyjs="cdn", full_html=False)
        data["text/plain"] = "<plotly figure>"
        return data
    bundle = getattr(obj, "_repr_mimebundle_", None)
    if callable(bundle) and not isinstance(obj, type):
        try:
            found = bundle()
            if isinstance(found, tuple):
                found = found[0]
            for mime, value in (found or {}).items():
                text = _as_text(value)
                if text is not None:
                    data[mime] = text
        except Exception:
            pass
    for method, mime in (
        ("_repr_html_", "text/html"),
        ("_repr_png_", "image/png"),
        ("_repr_svg_", "image/svg+xml"),
        ("_repr_markdown_", "text/markdown"),
        ("_repr_latex_", "text/latex"),
    ):
        if mime in data or isinstance(obj, type):
            continue
        fn = getattr(obj, method, None)
        if not callable(fn):
            continue
        try:
            value = fn()
        except Exception:
            continue
        if isinstance(value, tuple):
            value = value[0]
        text = _as_text(value)
        if text is not None:
            data[mime] = text
    if "text/plain" not in data:
        try:
            data["text/plain"] = repr(obj)
        except Exception as exc:
            data["text/plain"] = f"<unrepresentable {type(obj).__name__}: {exc}>"
    data["text/plain"] = _clip(data["text/plain"])
    if "text/html" in data:
        data["text/html"] = _clip(data["text/html"], TEXT_CAP * 4)
    return data


def figure_display(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    meta = {}
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        meta["title"] = suptitle.get_text()
    axes = fig.get_axes()
    if axes:
        ax = axes[0]
        if "title" not in meta and ax.get_title():
            meta["title"] = ax.get_title()
        if ax.get_xlabel():
            meta["xlabel"] = ax.get_xlabel()
        if ax.get_ylabel():
            meta["ylabel"] = ax.get_ylabel()
    png = buf.getvalue()
    # The PNG header holds the pixel size (IHDR width and height, big-endian, at bytes 16..24).
    meta["width"], meta["height"] = struct.unpack(">II", png[16:24])
    return {"data": {"image/png": base64.b64encode(png).decode("ascii")}, "meta": meta}


def flush_figures(emit):
    """Emits every open figure in order as a PNG display, then closes them all."""
    global FIGURES_EMITTED
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in plt.get_fignums():
        FIGURES_EMITTED += 1
        fig = plt.figure(num)
        try:
            emit(figure_display(fig))
        except Exception as exc:
            emit({"data": {"text/plain": f"<figure {num} could not be rendered: {exc}>"}})
    plt.close("all")


def open_figures():
    """How many matplotlib figures are open (they are emitted when the run ends)."""
    plt = sys.modules.get("matplotlib.pyplot")
    return len(plt.get_fignums()) if plt is not None else 0


def _is_artist(value, depth=0):
    artist = sys.modules.get("matplotlib.artist")
    container = sys.modules.get("matplotlib.container")
    if artist is not None and isinstance(value, artist.Artist):
        return True
    if container is not None and isinstance(value, container.Container):
        return True
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray) and value.dtype == object and 0 < value.size <= 10_000:
        return depth < 3 and all(_is_artist(v, depth + 1) for v in value.flat)
    return False


def is_plot_noise(value):
    """Whether a cell's last value is only matplotlib's return value: an artist (Text, Line2D, Axes, a
    Figure), a container (BarContainer), or a list/tuple of them, possibly beside arrays (plt.hist)."""
    if _is_artist(value):
        return True
    if not isinstance(value, (list, tuple)) or not 0 < len(value) <= 10_000:
        return False
    np = sys.modules.get("numpy")
    arrays = (np.ndarray,) if np is not None else ()
    found = False
    for item in value:
        if _is_artist(item) or (isinstance(item, (list, tuple)) and 0 < len(item) <= 10_000
                                and all(_is_artist(i) for i in item)):
            found = True
        elif not (arrays and isinstance(item, arrays)):
            return False
    return found
