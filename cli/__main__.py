import sys

from warpcheck.cli.main import main

sys.exit(main())
