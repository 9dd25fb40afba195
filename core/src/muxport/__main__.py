import sys

from muxport._internal.cli import main

sys.exit(main())
