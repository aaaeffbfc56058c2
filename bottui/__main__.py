"""`python -m bottui` runs the same entry point as the `bottui` script."""

from bottui.cli import main

raise SystemExit(main())
