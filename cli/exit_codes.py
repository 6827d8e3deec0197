"""The `advisor` command's exit codes, in one place: docs/contracts.md §1 ("Exit codes") documents
them per command, and scripts branch on them, so a number here never changes.

Each command module names its outcome with these, never with a bare number.
"""

from __future__ import annotations

EXIT_OK = 0
# what was asked could not be done: an asset or check failed, no index build, the lakehouse locked,
# no server to ask (`ask --server`), no lakehouse under a fleet root
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2  # also argparse's code for a command-line syntax error
EXIT_RUN_IN_PROGRESS = 3  # extension: another materialize is running on this warehouse
