"""Submissions anyone can check (docs/leaderboard.md): `pack` run directories into one file,
`verify` it against the verifier's data and code, `read_submission` for a leaderboard."""
from scholarbench.submission.members import FORMAT, MANIFEST, Member, PackManifest, PackedRun
from scholarbench.submission.packing import Packed, pack
from scholarbench.submission.reader import Submission, SubmittedRun, read_submission
from scholarbench.submission.verdict import (REFUSED, VERIFIED, WITH_DIFFERENCES, Check,
                                             Verification)
from scholarbench.submission.checking import verify

__all__ = ["Check", "FORMAT", "MANIFEST", "Member", "PackManifest", "Packed", "PackedRun",
           "REFUSED", "Submission", "SubmittedRun", "VERIFIED", "Verification",
           "WITH_DIFFERENCES", "pack", "read_submission", "verify"]
