import sys

from muxport.cli import main

sys.exit(main())
