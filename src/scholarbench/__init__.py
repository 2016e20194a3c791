"""scholarbench: evaluate research agents on academic-survey work, scored as the papers define."""
from scholarbench.records import Paper, TaxoNode, TaxoPrediction, TaxoTask

__version__ = "0.1.0"
__all__ = ["Paper", "TaxoNode", "TaxoPrediction", "TaxoTask", "__version__"]
