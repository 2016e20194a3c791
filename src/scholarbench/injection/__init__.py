"""Judge injection: a probe set of injection strings, their detection inside agent outputs
(`suspected_injection`) through disguises (`normalise`, `variants`), and `scholarbench
judge-check` (docs/injection.md)."""
from scholarbench.injection.detect import RULES, find_injection, scan_record
from scholarbench.injection.probes import PROBES, Probe, probes_named
from scholarbench.injection.variants import FAMILIES, HELD_OUT, VARIANTS, family_recall

__all__ = ["FAMILIES", "HELD_OUT", "PROBES", "Probe", "RULES", "VARIANTS", "family_recall",
           "find_injection", "probes_named", "scan_record"]
