"""`python -m slop` entry point."""

from slop.cli import main

raise SystemExit(main())
