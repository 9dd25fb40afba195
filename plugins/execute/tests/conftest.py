"""Panes with configured shells: rc files written by the test (vi mode, traps, hooks, a slow
start), for the field tests of runs (issue 10)."""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable

import pytest
from muxport.testing import ShellPane, TmuxServer

_count = itertools.count(1)


@pytest.fixture
def rc_pane(tmux_server: TmuxServer) -> Callable[..., ShellPane]:
    """``rc_pane("zsh", "bindkey -v")``: a shell whose rc file holds ``rc`` after a bare
    ``$ `` prompt; ready once the rc file has run (or, with ``signal_first``, as soon as
    it starts: the rest of the rc file may still be running)."""

    def make(shell: str, rc: str = "", width: int = 80, signal_first: bool = False) -> ShellPane:
        if shutil.which(shell) is None:
            pytest.skip(f"{shell} is not installed")
        n = next(_count)
        home = tmux_server.dir / f"field{n}"
        home.mkdir()
        channel = f"field-ready-{os.getpid()}-{n}"
        ready = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for -S {channel}\n"
        prompt = "PS1='$ '\n" if shell != "zsh" else "unsetopt PROMPT_SP\nPROMPT='$ '\n"
        text = prompt + (ready + rc + "\n" if signal_first else rc + "\n" + ready)
        env = f"env -i PATH={os.environ['PATH']} HOME={home} TERM=screen HISTFILE={home}/history"
        if shell == "zsh":
            (home / ".zshrc").write_text(text)
            command = f"exec {env} ZDOTDIR={home} zsh -i"
        elif shell == "bash":
            (home / "bashrc").write_text(text)
            command = f"exec {env} bash --noprofile --rcfile {home}/bashrc -i"
        else:
            (home / "env").write_text(text)
            command = f"exec {env} ENV={home}/env {shell} -i"
        out = tmux_server.cmd(
            "new-session", "-d", "-P", "-F", "#{pane_id} #{window_id} #{session_id}",
            "-x", str(width), "-y", "24", command,
        )
        pane_id, window_id, session_id = out.split()
        tmux_server.wait_for(channel)
        return ShellPane(tmux_server, pane_id, window_id, session_id, shell, width)

    return make

