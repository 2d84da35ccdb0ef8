"""The command lines' workload-table arguments, in one place: the shipped GPUs (``--host``/``--target``) or a
user's table (``--csv`` with its target, group, id and host-measure columns). ``predict``/``ensemble`` and
``newapp`` read a workload table the same way and so take the same arguments with the same words."""

from __future__ import annotations


def add_workload_table(group, group_help: str = "application (group) column (--csv)") -> None:
    """Add the workload-table arguments to an argparse ``group``; ``group_help`` says what the group column
    is used for by this command."""
    group.add_argument("--host", help="host GPU of the shipped data (e.g. GTX-680)")
    group.add_argument("--target", help="target GPU (shipped data) or target column (--csv)")
    group.add_argument("--metric", default="duration", choices=["duration", "cycles"])
    group.add_argument("--csv", help="a CSV or Parquet workload table instead of the shipped data")
    group.add_argument("--group", help=group_help)
    group.add_argument("--id", dest="id_col", help="workload id column (--csv)")
    group.add_argument("--host-col", help="the host's own measure of the target metric: time or cycles (--csv)")
