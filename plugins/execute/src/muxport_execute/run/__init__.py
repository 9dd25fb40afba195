"""A run: its tools, its driver (the one owner of its life cycle), its table and its answer."""
