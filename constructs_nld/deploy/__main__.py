"""``python -m constructs_nld.deploy [COMMAND]``: the deploy CLI, for an app outside this repository."""

from constructs_nld.deploy.cli import main

raise SystemExit(main())
