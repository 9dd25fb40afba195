"""What the pane says: its facts (one table), its screen and line, its raw output."""
