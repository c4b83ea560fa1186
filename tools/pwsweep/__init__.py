"""tools/sweep's parts: the sweep file and its runs (spec), the local launcher (local),
batch job scripts (jobs) and the results table (collect)."""
