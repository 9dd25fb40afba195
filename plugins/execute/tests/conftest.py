"""Fixtures of the execute tests.

- ``rc_pane``: panes with configured shells: rc files written by the test (vi mode, traps,
  hooks, a slow start), for the field tests of runs (issue 10).
- Reach (muxport.testing.reach, issue 11): a real sshd on 127.0.0.1, test users reached
  through ssh and ``su -``, fish panes. Made by the tests, removed afterwards; the users
  and sshd live for the session. Without root, or without sshd/fish/sudo, they skip.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from execute_kit import KSH_PROFILE
from muxport.testing import ShellPane, TmuxServer, reach

_count = itertools.count(1)


@pytest.fixture
def rc_pane(tmux_server: TmuxServer) -> Callable[..., ShellPane]:
    """``rc_pane("zsh", "bindkey -v")``: a shell whose rc file holds ``rc`` after a bare
    ``$ `` prompt (ksh: after a user's profile, ``execute_kit.KSH_PROFILE``, with its
    ``~ [1]$ `` prompt); ready once the rc file has run (or, with ``signal_first``, as
    soon as it starts: the rest of the rc file may still be running)."""

    def make(shell: str, rc: str = "", width: int = 80, signal_first: bool = False) -> ShellPane:
        if shutil.which(shell) is None:
            pytest.skip(f"{shell} is not installed")
        n = next(_count)
        home = tmux_server.dir / f"field{n}"
        home.mkdir()
        channel = f"field-ready-{os.getpid()}-{n}"
        ready = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for -S {channel}\n"
        prompt = "PS1='$ '\n" if shell != "zsh" else "unsetopt PROMPT_SP\nPROMPT='$ '\n"
        prompt += KSH_PROFILE if shell == "ksh" else ""
        text = prompt + (ready + rc + "\n" if signal_first else rc + "\n" + ready)
        env = f"env -i PATH={os.environ['PATH']} HOME={home} TERM=screen HISTFILE={home}/history"
        if shell == "zsh":
            (home / ".zshrc").write_text(text)
            command = f"exec {env} ZDOTDIR={home} zsh -i"
        elif shell == "yash":  # yash reads ~/.yashrc, not ENV, unless it runs as sh
            (home / ".yashrc").write_text(text)
            command = f"exec {env} yash -i"
        elif shell == "bash":
            (home / "bashrc").write_text(text)
            command = f"exec {env} bash --noprofile --rcfile {home}/bashrc -i"
        elif shell == "posh":  # posh reads no ENV: only a login shell's ~/.profile
            (home / ".profile").write_text(text)
            command = f"exec {env} posh -l -i"
        else:  # busybox: its sh applet
            (home / "env").write_text(text)
            applet = "busybox sh" if shell == "busybox" else shell
            command = f"exec {env} ENV={home}/env {applet} -i"
        out = tmux_server.cmd(
            "new-session", "-d", "-P", "-F", "#{pane_id} #{window_id} #{session_id}",
            "-x", str(width), "-y", "24", command,
        )
        pane_id, window_id, session_id = out.split()
        tmux_server.wait_for(channel)
        return ShellPane(tmux_server, pane_id, window_id, session_id, shell, width)

    return make


def _need_root(*programs: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("reach tests create users and start sshd: they run as root (CI does)")
    for program in programs:
        if shutil.which(program) is None and not Path(program).exists():
            pytest.skip(f"{program} is not installed")


@pytest.fixture(scope="session")
def test_user() -> Iterator[reach.TestUser]:
    """A user with bash as login shell and sudo rights (asked with its password)."""
    _need_root("useradd", "bash", "sudo")
    user = reach.make_user("/bin/bash", sudo=True)
    try:
        yield user
    finally:
        reach.remove_user(user)


@pytest.fixture(scope="session")
def fish_user() -> Iterator[reach.TestUser]:
    """A user whose login shell is fish."""
    _need_root("useradd", "fish")
    user = reach.make_user(shutil.which("fish") or "/usr/bin/fish")
    try:
        yield user
    finally:
        reach.remove_user(user)


@pytest.fixture(scope="session")
def sshd(test_user: reach.TestUser, fish_user: reach.TestUser) -> Iterator[reach.SshdProcess]:
    _need_root("/usr/sbin/sshd", "ssh", "ssh-keygen")
    server = reach.start_sshd([test_user.name, fish_user.name])
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def reach_pane(
    tmux_server: TmuxServer,
    sshd: reach.SshdProcess,
    test_user: reach.TestUser,
    fish_user: reach.TestUser,
) -> Iterator[Callable[..., ShellPane]]:
    """``reach_pane("ssh"|"su"|"ssh-fish"|"su-fish", width=80)``: a ready pane whose
    shell belongs to a test user, reached through ssh or ``su -``."""
    fifos = Path(tempfile.mkdtemp(prefix="muxport-ready-"))
    fifos.chmod(0o755)

    def make(how: str, width: int = 80) -> ShellPane:
        fish = how.endswith("fish")
        user, shell = (fish_user, "fish") if fish else (test_user, "bash")
        if how.startswith("ssh"):
            return reach.ssh_pane(tmux_server, sshd, user, fifos, shell, width)
        return reach.su_pane(tmux_server, user, fifos, shell, width)

    yield make
    shutil.rmtree(fifos, ignore_errors=True)


@pytest.fixture
def fish_pane(tmux_server: TmuxServer) -> Callable[..., ShellPane]:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")

    def make(width: int = 80, config: str = reach.FISH_CONFIG) -> ShellPane:
        return reach.fish_pane(tmux_server, width, config)

    return make
