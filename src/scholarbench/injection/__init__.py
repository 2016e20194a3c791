"""Judge injection: a probe set of injection strings, their detection inside agent outputs
(`suspected_injection`), and `scholarbench judge-check` (docs/injection.md)."""
from scholarbench.injection.detect import RULES, find_injection, scan_record
from scholarbench.injection.probes import PROBES, Probe, probes_named

__all__ = ["PROBES", "Probe", "RULES", "find_injection", "probes_named", "scan_record"]
