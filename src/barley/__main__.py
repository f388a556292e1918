import sys

from barley.cli import main

sys.exit(main())
