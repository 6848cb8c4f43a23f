"""``python -m s2s``: the command line in :mod:`s2s.cli`."""

from s2s.cli import main

raise SystemExit(main())
