"""The `ready` frame the supervisor sends once its kernel is up: what the image offers (Python, the data stack's
package versions, the other languages), read from package metadata without importing anything."""
import os
import sys

import language_session

PACKAGES = ("pandas", "numpy", "matplotlib", "scipy", "seaborn", "scikit-learn", "statsmodels", "sympy",
            "openpyxl", "xlrd", "plotly", "tabulate", "dill", "ipython", "pillow")


def describe_image():
    """The ready frame: what the image offers, read from package metadata (nothing is imported)."""
    from importlib import metadata, util

    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except Exception:
            pass
    for name in ("pyarrow", "kaleido"):
        if name not in packages and util.find_spec(name) is not None:
            packages[name] = "present"
    return {
        "type": "ready",
        "python": sys.version.split()[0],
        "packages": packages,
        "languages": language_session.describe(),
        "imageVersion": os.environ.get("THREADLAB_SANDBOX_VERSION", "unknown"),
        "pid": os.getpid(),
    }
