"""`scholarbench leaderboard` (docs/leaderboard.md): a static site ranking only verified
submissions, with JSON and CSV of the same tables."""
from scholarbench.leaderboard.board import Board, Entry, Listed, Published
from scholarbench.leaderboard.significance import Gap, paired_gap

__all__ = ["Board", "Entry", "Gap", "Listed", "Published", "paired_gap"]
