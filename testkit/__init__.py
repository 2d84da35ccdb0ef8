"""What the tests and the benchmarks share, so that neither imports the other: the servers they start on this
machine's loopback (servers), a scripted browser that speaks Dash's HTTP protocol (dash_client), accounts and
sign-in (signin), synthetic tables shaped like the papers' data (halwpe_shaped, cpu_shaped), and the held-out
protocols the benchmarks measure with and the tests check (counts_holdout, phases_holdout, new_applications,
kernelbench_splits, apps2016_splits: the splits of a GPU never built on outside data)."""
