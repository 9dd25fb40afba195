"""The frames a run can use (local, typed) and what they share (frames/base.py)."""
