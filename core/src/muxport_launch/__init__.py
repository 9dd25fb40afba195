"""The launcher: the ``muxport`` command (``command.py``), and what the core takes from it
that must be there before the core loads: the early answer (``early.py``), the arguments,
the instructions and the exit at once on a signal (``signals.py``). The standard library
only, and nothing here: importing one of these modules costs no more than that module,
and the core, which imports them, never imports the command, which imports the core."""
