"""What the bounds vectors share (cases_bounds.py, bounds_recursion.py): the two refusal codes and
the mark of an allowed case whose approved SQL the engine suite runs."""

BIG = "generated_too_large"
OPEN = "unbounded_generation"


def runs(row):
    """An allowed case whose approved SQL must run on the dialect's real engine."""
    row["engine"] = "runs"
    return row
