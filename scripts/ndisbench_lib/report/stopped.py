"""The line of a run that did not run to its end (report.RunResult's
state): summary.md, matrix.txt, junit.xml and report.html all say it."""


def stopped_line(result) -> str:
    """"" for a run that ran to its end; else how it stopped, after how
    many cells, and the cells that have no result."""
    state = getattr(result, "state", "")
    if not state:
        return ""
    not_run = list(getattr(result, "not_run", []))
    done = len(result.cells)
    head = (f"Interrupted ({result.interrupted})" if state == "interrupted"
            else "Incomplete (the bench stopped while the run went on)")
    rest = f"; not run: {', '.join(not_run)}" if not_run else ""
    return f"{head} after {done} of {done + len(not_run)} cells{rest}."
