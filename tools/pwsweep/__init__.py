"""tools/sweep's parts: the sweep file and its runs (spec), the decks' check with
`patchwork --check` before anything runs (check), the local launcher (local), batch job
scripts (jobs) and the results table (collect)."""
