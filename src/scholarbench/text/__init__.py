"""Title normalisation and paper-title alignment (TaxoBench A.5); the project's one normaliser."""
from scholarbench.text.normalize import normalize_title
from scholarbench.text.align import Alignment, align_titles

__all__ = ["normalize_title", "align_titles", "Alignment"]
