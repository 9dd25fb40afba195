"""What a far server's host says about a pane's run: ONE shell there, started by tmux
(``if-shell``, with ``/bin/sh`` as the server's user), gathers what ``waiting_for_input``
needs from that host's ``/proc`` and the pane's terminal; ``parse`` reads it back
(docs/run-outcomes.md, "A server on another host"). Nothing is installed there: the
script uses the shell's builtins, ``uname``, ``ls``, ``dd``, ``od``, ``head`` and ``stty``
(coreutils or busybox), and the far tmux binary.

Per look, for the pane's first process: its terminal and that terminal's foreground
group (``T``). Where the group is not the shell's (the run holds the terminal), the
architecture (``A``), then for each process of the group (at most 16; past that ``X``:
"not waiting"): its state and terminal (``P``), a sleeper's system call and arguments
(``S``), its name (``C``); for a process in ``read``, ``select`` or ``poll`` only, the
memory a ``select``/``poll`` watches (``M``, read with ``dd`` from ``/proc/PID/mem``),
its descriptors (``L PID FD -> TARGET``; a target that is not ``pipe:``, ``socket:``,
``anon_inode:`` or under ``/dev/`` is shown as ``file``) and, for a ``poll`` only,
which of those files are FIFOs (``F``: the only check that stats a path); last the
terminal's modes (``E``: ``stty -g``). A process running (``R``, ``D``) ends the look at
once: the run is working. Every line is printed with ``printf '%s\\n'`` (never ``echo``,
which interprets backslashes in dash) under ``LC_ALL=C``.

The script prints nothing and ends with status 1 whatever happened: ``if-shell`` without
an else-command then runs nothing, and prints nothing whatever the status or signal
(``run-shell`` prints ``'SCRIPT' returned N``, which lands in a pane on 3.3a and 3.4 and
crashes 3.5a to 3.7c when its client is gone: docs/tmux-facts.md, "if-shell"). It hands
what it gathered to a named tmux buffer (the far tmux binary, as a client of its own
server), which the same invocation shows and deletes. That text is ONE argument of the
far client's ``set-buffer``, whose whole command must fit tmux's 16384-byte message (a
larger one is refused, silently here): past ``BUDGET`` bytes only the ``T`` line and an
``X`` line are handed back. Its every ``#`` is doubled (``if-shell`` expands formats in
its argument).
"""

from __future__ import annotations

import itertools
import os
import secrets
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from muxport.formats import literal

MAX_PROCESSES = 16
BUDGET = 12000  # bytes of gathered text at most: the far set-buffer's message stays < 16 KiB

LOOK = r"""look() {
  read -r s < /proc/$p/stat || return
  s=${s##*\)}; set -- $s
  printf '%s\n' "T $5 $6"
  g=$6 n=0
  [ -n "$g0" ] && [ "$g" -gt 0 ] && [ "$g" != "$g0" ] || return
  printf '%s\n' "A $(uname -m)"
  for d in /proc/[0-9]*; do
    read -r s < $d/stat || continue
    s=${s##*\)}; set -- $s
    [ "$3" = "$g" ] || continue
    i=${d#/proc/} n=$((n + 1))
    if [ $n -gt %(max)d ]; then printf 'X\n'; return; fi
    printf '%s\n' "P $i $1 $5"
    case $1 in R|D) return;; esac
    read -r c < $d/syscall || continue
    printf '%s\n' "S $i $c"
    read -r m < $d/comm && printf '%s\n' "C $i $m"
    set -- $c
    case $1 in
      7|73|271) a=$2 z=$(($3 * 8)) k=poll;;
      23|72|270) a=$3 z=$((($2 + 63) / 64 * 8)) k=select;;
      0|19|63|65) z=0 k=read;;
      *) continue;;
    esac
    [ $z -gt 0 ] && [ $z -le 512 ] &&
      { printf 'M %s' $i; printf ' %s' $(dd if=$d/mem bs=1 skip=$(($a)) count=$z | od -An -v -tx1)
        printf '\n'; }
    ls -l $d/fd/ | while read -r l; do
      case $l in *' -> '*) ;; *) continue;; esac
      h=${l%%' -> '*} r=${l#*' -> '}; f=${h##* }
      case $r in
        pipe:*|socket:*|anon_inode:*|/dev/*) ;;
        *) [ $k = poll ] && [ -p $d/fd/$f ] && printf '%s\n' "F $i $f"; r=file;;
      esac
      [ ${#r} -le 64 ] || r=long
      printf '%s\n' "L $i $f -> $r"
    done
  done
  printf '%s\n' "E $(stty -g < $t)"
}
out=$(look 2>/dev/null)
[ ${#out} -le %(budget)d ] || out="$(printf '%s\n' "$out" | head -n 1)
X"
"""
# The watched memory's od words go on ONE line (od prints 16 bytes a row, and the parser
# reads one line a record: fish's read polls 3 descriptors, 24 bytes, and was never seen
# waiting over --ssh).
# poll/ppoll (x86_64 7 and 271, arm64 73) watch an array at their first argument;
# select/pselect6 (x86_64 23 and 270, arm64 72) a bitmap at their second; read/readv
# (x86_64 0 and 19, arm64 63 and 65). Either architecture's numbers are read on both: a
# wrong guess reads a few bytes nobody uses.

_names = itertools.count(1)
_PREFIX = f"muxport-look-{os.getpid()}-{secrets.token_hex(3)}"  # one muxport's looks


def commands(
    pane_pid: int, shell_group: int | None, tty: str, binary: str, socket: str,
    stale: Iterable[str] = (),
) -> tuple[tuple[str, ...], ...]:
    """The commands of ONE tmux invocation whose stdout is the gathered text (``parse``);
    its buffer's name is the last command's last word. ``shell_group`` None: only the
    pane's terminal and its foreground group (``T``). ``stale``: buffers of looks cut
    short, deleted quietly by the far shell first (a missing one fails only there)."""
    name = f"{_PREFIX}-{next(_names)}"
    tmux = f"{shlex.quote(binary)} -S {shlex.quote(socket)}"
    script = (
        "set +e\nexport LC_ALL=C QUOTING_STYLE=literal\n"
        f"p={pane_pid} g0={'' if shell_group is None else shell_group} t={shlex.quote(tty)}\n"
        + "".join(f"{tmux} delete-buffer -b {shlex.quote(old)} >/dev/null 2>&1\n"
                  for old in stale)
        + LOOK.replace("%(max)d", str(MAX_PROCESSES)).replace("%(budget)d", str(BUDGET))
        + f"{tmux} set-buffer -b {name} -- \"V 1\n$out\" >/dev/null 2>&1\nexit 1\n"
    )
    # set-buffer of no data is a no-op in tmux (cmd-set-buffer.c) that names the command
    # the script's own client runs, so that the hook check of a read-only call
    # (wait_for_run) sees the after-set-buffer hook the look would fire
    return (("if-shell", literal(script), ""), ("set-buffer", "-b", name, "--", ""),
            ("show-buffer", "-b", name), ("delete-buffer", "-b", name))


@dataclass
class FarProcess:
    """One process of the foreground group, as the far shell saw it."""

    pid: int
    state: str
    tty_nr: int
    call: list[int] | None = None  # the system call's number and its six arguments
    name: str = ""
    memory: bytes | None = None
    fds: dict[int, str] = field(default_factory=dict)  # descriptor: what it links to
    fifos: set[int] = field(default_factory=set)  # descriptors that are FIFOs or pipes


@dataclass
class Sight:
    """What one look saw on the far host."""

    tty_nr: int  # the pane's terminal, as its first process's controlling terminal
    group: int  # that terminal's foreground process group
    arch: str = ""
    processes: dict[int, FarProcess] = field(default_factory=dict)  # in /proc's order
    lflag: int | None = None  # the terminal's termios local modes
    beyond: bool = False  # ``X``: more than the look may say (too many processes, bytes)


def _call(words: Sequence[str]) -> list[int] | None:
    try:
        return [int(words[0])] + [int(word, 16) for word in words[1:7]]
    except (ValueError, IndexError):
        return None  # "running", or blocked outside a system call ("-1 sp pc")


def _record(sight: Sight, kind: str, rest: str) -> None:
    if kind == "X":
        sight.beyond = True
    elif kind == "A":
        sight.arch = rest.strip()
    elif kind == "E":
        modes = rest.split(":")
        sight.lflag = int(modes[3], 16) if len(modes) > 3 else None
    elif kind == "P":
        pid, state, tty_nr = rest.split()
        sight.processes[int(pid)] = FarProcess(int(pid), state, int(tty_nr))
        return
    pid_text, _, value = rest.partition(" ")
    process = sight.processes.get(int(pid_text)) if kind in ("S", "C", "M", "L", "F") else None
    if process is None:
        return
    if kind == "S":
        process.call = _call(value.split())
    elif kind == "C":
        process.name = value.strip()
    elif kind == "M":
        process.memory = bytes.fromhex(value)
    elif kind == "F":
        process.fifos.add(int(value))
    elif kind == "L" and " -> " in value:
        left, _, target = value.partition(" -> ")
        if left.split()[-1].isdigit():
            process.fds[int(left.split()[-1])] = target


def parse(text: str) -> Sight | None:
    """What the script printed, or None: nothing came back (no ``/proc`` there, a shell
    that failed, a look cut short)."""
    lines = text.splitlines()
    if "V 1" not in lines:
        return None
    lines = lines[lines.index("V 1") + 1 :]
    try:
        kind, tty_nr, group = lines[0].split()
        if kind != "T":
            return None
        sight = Sight(int(tty_nr), int(group))
        for line in lines[1:]:
            kind, _, rest = line.partition(" ")
            try:
                _record(sight, kind, rest)
            except (ValueError, IndexError):
                continue  # one odd line (a name with a newline) spoils only itself
    except (ValueError, IndexError):
        return None
    return sight
