"""The leaderboard table formats, kept apart so building the command line imports nothing heavy."""
FORMATS = ("terminal", "markdown", "latex")     # rendered by tables.render_groups
TABLE_FORMATS = FORMATS + ("csv",)              # everything `scholarbench report --format` takes
