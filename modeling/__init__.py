"""perfcast modeling library: pure Python, no dashboard code.

One package per method: ``crossgen`` (HALWPE / RastSim regression ensembles),
``accelerators`` (LogCA, LogCA^e, Accelerometer); beside them ``tables``
(reading and validating the canonical tables), ``collect`` (measuring on this
machine), ``build`` (building data/ from public sources), and the shared
``errors``, ``metrics``, ``parallel`` and ``shipped`` modules.
"""

__version__ = "0.1.0"

from pathlib import Path  # noqa: E402

#: The project's data/ folder: every shipped table (GPU profiles, OpenSSL timings) is read from here.
DATA_DIR = Path(__file__).resolve().parent.parent / "data"

from modeling.errors import ModelingError  # noqa: E402

__all__ = ["DATA_DIR", "ModelingError", "__version__"]
