import sys

from warpcheck.cli.entry import main

sys.exit(main())
