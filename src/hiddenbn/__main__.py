"""``python -m hiddenbn``: the same as the ``hiddenbn`` command."""

import sys

from hiddenbn.cli import main

sys.exit(main())
