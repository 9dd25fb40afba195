"""The frames a run can use and what they share (frames/base.py). Each kind registers
itself in the table of frame kinds (frames/kinds.py); the built-in ones do here, so that
whatever imports a frame module finds the table filled."""

from muxport_execute.frames import local, typed

__all__ = ["local", "typed"]
