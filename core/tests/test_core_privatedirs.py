"""One kind of private directory for the whole of muxport (privatedirs.py): named after
the process that made it, removed once that process is provably gone, and never another
scope's, another user's, or a name without an owner."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from muxport import PrivateDirs

pytestmark = pytest.mark.timeout(30)


def dead_owner() -> PrivateDirs.Owner:
    """A process that ran and was reaped: its pid and start time name nobody now."""
    child = subprocess.Popen([sys.executable, "-c", "import os; print(os.getpid())"],
                             stdout=subprocess.PIPE)
    with open(f"/proc/{child.pid}/stat", "rb") as file:
        start = int(file.read().rpartition(b")")[2].split()[19])
    child.communicate()
    me = PrivateDirs.me()
    assert me is not None
    return PrivateDirs.Owner(child.pid, start, me.scope)


def test_a_directory_is_private_and_named_after_its_owner(tmp_path: Path) -> None:
    dirs = PrivateDirs("muxport-test-", str(tmp_path))
    made = Path(dirs.make())
    assert made.parent == tmp_path and stat.S_IMODE(made.stat().st_mode) == 0o700
    assert dirs.owner_of(made.name) == PrivateDirs.me()
    assert not PrivateDirs.is_dead(dirs.owner_of(made.name))
    assert PrivateDirs("mxr-").owner_of(made.name) is None  # another purpose's


def test_the_sweep_removes_only_dead_owners_directories(tmp_path: Path) -> None:
    dirs = PrivateDirs("muxport-test-", str(tmp_path))
    me = PrivateDirs.me()
    assert me is not None
    mine = Path(dirs.make())
    dead = dead_owner()
    gone = tmp_path / f"muxport-test-{dead.key}-abcd1234"
    reused = tmp_path / f"muxport-test-{me.pid}.{me.start + 1}.{me.scope}-abcd1234"
    other_scope = tmp_path / f"muxport-test-{dead.pid}.{dead.start}.00000000-abcd1234"
    no_owner = tmp_path / "muxport-test-k3j4h5g6"
    a_file = tmp_path / f"muxport-test-{dead.key}-file1234"
    for path in (gone, reused, other_scope, no_owner):
        path.mkdir()
    a_file.write_text("")
    assert PrivateDirs.is_dead(dead) and PrivateDirs.is_dead(PrivateDirs.owner_of(
        dirs, reused.name))
    assert sorted(dirs.dead()) == sorted([gone, reused])
    assert dirs.sweep() == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (mine, other_scope, no_owner, a_file))


def test_the_ssh_masters_and_the_runs_share_it() -> None:
    from muxport._internal import sshhost
    from muxport_execute.host import owners

    assert isinstance(sshhost.DIRS, PrivateDirs) and isinstance(owners.RUNS, PrivateDirs)
    assert (sshhost.DIRS.prefix, owners.RUNS.prefix) == ("muxport-ssh-", "mxr-")
    assert os.path.basename(owners.directory_prefix()).startswith("mxr-")


def test_out_of_descriptors_nothing_is_judged_dead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EMFILE says nothing of a process: the owner is not "gone", its directory stays."""
    import builtins
    import errno

    dirs = PrivateDirs("muxport-test-", str(tmp_path))
    assert PrivateDirs.me() is not None  # known before the descriptors ran out
    dead = dead_owner()
    gone = tmp_path / f"muxport-test-{dead.key}-abcd1234"
    gone.mkdir()
    real_open = builtins.open

    def exhausted(path, *args, **kwargs):
        if str(path).startswith("/proc/"):
            raise OSError(errno.EMFILE, "Too many open files")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", exhausted)
    with pytest.raises(OSError):
        PrivateDirs.is_dead(dead)
    assert dirs.sweep() == 0 and gone.is_dir()
