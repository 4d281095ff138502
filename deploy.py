"""Deploy NodeLocal DNSCache to the current cluster in apply order, or ``verify`` a live install."""

from constructs_nld.deploy.cli import main

raise SystemExit(main())
