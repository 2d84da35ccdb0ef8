"""perfcast modeling library: pure Python, no dashboard code.

Cross-generation performance prediction (HALWPE and RastSim regression
ensembles), with the data loading, metrics and feature ranking they need.
"""

__version__ = "0.1.0"

from modeling.errors import ModelingError  # noqa: E402

__all__ = ["ModelingError", "__version__"]
