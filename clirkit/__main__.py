import sys

from clirkit.cli import main

sys.exit(main())
