"""Rich representations of values (the notebook's display protocol) and matplotlib figure capture."""
import base64
import io
import struct
import sys

TEXT_CAP = 256 * 1024


def _clip(text, cap=TEXT_CAP):
    if len(text) > cap:
        return text[: cap // 2] + f"\n[... {len(text) - cap} characters elided ...]\n" + text[-cap // 2:]
    return text


def _as_text(value):
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value if isinstance(value, str) else None


def mime_bundle(obj):
    """Maps MIME types to content for `obj`, the way a notebook front end would see it."""
    data = {}
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
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in plt.get_fignums():
        fig = plt.figure(num)
        try:
            emit(figure_display(fig))
        except Exception as exc:
            emit({"data": {"text/plain": f"<figure {num} could not be rendered: {exc}>"}})
    plt.close("all")
