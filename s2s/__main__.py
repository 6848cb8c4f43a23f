"""``python -m s2s``: the command line in :mod:`s2s.api.cli`."""

from s2s.api.cli import main

raise SystemExit(main())
