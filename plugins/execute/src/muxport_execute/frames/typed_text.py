"""The typed frame: a run that travels through the terminal (docs: README "Running
commands over ssh, su and containers").

Used where the pane's shell cannot read muxport's private files or run its tmux: the
foreground program is a carrier (``ssh``, ``su``, ``sudo``, ``docker exec``...) or the
shell belongs to another user. Nothing of muxport's is written anywhere (a zsh without
HIST_IGNORE_SPACE copies its own history list once, frames/history.py); one line is
typed, and it needs only a POSIX shell with ``printf`` on the far side (fish: also ``sh``):

    POSIX:  ``␠: /;eval "$(printf 'P')"``      fish:  ``␠: /;sh -c (printf 'P' | string collect)``

``P`` is the frame program written in printf's own escapes: every byte other than
printable ASCII, and every ``'``, ``\\``, ``%`` and ``!``, is ``\\ooo``. So the typed line
is printable ASCII without a tab, newline or history character for a line editor to act
on, and it is the same text for every line editor. The leading ``: /;`` is a no-op for
the shell; a line editor left in vi command mode by someone else (which the screen
cannot show) reads its ``/`` as a history search for the rest of the line, which fails,
so nothing runs there (zsh's ``:`` opens its command prompt instead, which C-c leaves).
The program, decoded::

    (trap 'printf "%s%s:e:%s\\n" H1 H2 "$?"' EXIT; trap : INT QUIT HUP TERM
    printf '%s%s:s\\n' H1 H2
    (trap - EXIT INT QUIT HUP TERM
    <the command; fish: exec fish -C '<start marker again>; ...' -c '<the command>'>
    ))
    printf '%s%s:x:%s\\n' H1 H2 "$?"

The outer subshell survives C-c, C-\\ and a hangup (``trap :``) to print the end marker
with the inner subshell's status, which is the command's own (``exit 3`` ends only the
inner one; a far shell that hangs up passes SIGHUP on: 129).
The last line runs in the far shell itself, however the outer subshell ended: a
``:x:`` marker without an end marker means the frame was killed (``:x:137``) or, in
bash and dash, which go on with the list when a job stops, stopped by C-z (``:x:148``;
docs/run-outcomes.md, "Typed frames"). The
128-bit nonce is typed as two halves ``H1 H2``: the echo of the typed line never holds
the nonce in one piece, so no row of it can equal a marker, however it wraps.

The probe (foreground is a carrier, so the far shell is unknown): ``␠: /;printf
'%s%s:p:%s:%s\\n' H1 H2 "$FISH_VERSION" "$ZSH_VERSION"`` answers ``<nonce>:p::`` from a
POSIX shell, ``<nonce>:p:3.6.0:`` from fish and ``<nonce>:p::5.9`` from zsh, and proves a
shell reads the line before a command is typed. Only a zsh's program carries zsh's
history part (frames/history.py, about 1.3 KB typed), and only where the command leaves
room for it under ``MAX_TYPED``.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from dataclasses import dataclass

from muxport import InvalidArgument

from muxport_execute.frames import history
from muxport_execute.frames.base import Markers, quote
from muxport_execute.frames.fish import child_fish
from muxport_execute.frames.kinds import Kind as Kind  # the shell the text is for

# A terminal in canonical mode (a far shell without a line editor: dash, sh) keeps at
# most 4095 bytes of one line and drops the rest; the typed line stays below that.
MAX_TYPED = 4000
CARRIERS = frozenset(
    {"ssh", "mosh-client", "su", "sudo", "doas", "docker", "podman", "kubectl", "nsenter",
     "machinectl", "script"}
)
FISH_JOB = "sh -c (printf '(trap \\047printf"  # a fish job line about a typed frame
VI_SAFE = ": /;"  # see the module's docstring
_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) - set("'\\%!")


def is_carrier(command: str) -> bool:
    """Whether a pane's foreground program carries a shell muxport cannot hand a file to."""
    return command.strip().lstrip("-").rsplit("/", 1)[-1] in CARRIERS


def encode(text: str) -> str:
    """``text`` as a printf format that prints exactly ``text``."""
    out: list[str] = []
    for char in text:
        if char in _PLAIN:
            out.append(char)
        else:
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8"))
    return "".join(out)


@dataclass(frozen=True)
class TypedFrame(Markers):
    """One typed run's nonce and the far shell's kind (``zsh``: the far shell is zsh, so
    the program carries zsh's history part, frames/history.py)."""

    kind: Kind
    zsh: bool = False

    @property
    def halves(self) -> str:
        return f"{self.nonce[:16]} {self.nonce[16:]}"

    def is_job(self, row: str) -> bool:
        """A far shell's job line about this frame (C-z, fg): it quotes the frame's source,
        so it holds the nonce's halves; fish cuts its job lines short before them, so there
        the start of the typed fish frame stands for them (any typed run's, in fish)."""
        return self.halves in row or (self.kind == "fish" and FISH_JOB in row)

    @property
    def probe_pattern(self) -> re.Pattern[str]:
        return re.compile(rf"^{self.nonce}:p:([^\s:]*):(\S*)$")

    def program(self, command: str, suppress_history: bool = True, with_zsh: bool = True) -> str:
        """The frame's program around ``command``: with ``suppress_history``, first the
        deletions of its lines from the far shell's history (``with_zsh``: also zsh's
        part, about 1.3 KB typed, for a zsh without HIST_IGNORE_SPACE)."""
        body = command if command.endswith("\n") else command + "\n"
        if self.kind == "fish":
            marker = f'printf "%s%s:s\\n" {self.halves}'  # again, after fish's config
            body = child_fish(marker, f"-c {quote(body)}") + "\n"
        forget = ""
        if suppress_history and self.kind == "posix":
            forget = self.forget(with_zsh and self.zsh)
        # zsh: no exit-status lines between the markers, and no history saved by a
        # subshell's exit (as the local frame's, docs/runs-and-waits.md, "Shell history")
        options = "unsetopt rcs printexitvalue 2>/dev/null\n" if self.zsh else ""
        return (
            forget
            + f"(trap 'printf \"%s%s:e:%s\\n\" {self.halves} \"$?\"' EXIT; "
            "trap : INT QUIT HUP TERM\n" + options
            + f"printf '%s%s:s\\n' {self.halves}\n"
            "(trap - EXIT INT QUIT HUP TERM\n" + body + "))\n"
            f"printf '%s%s:x:%s\\n' {self.halves} \"$?\"\n"
        )

    def forget(self, with_zsh: bool = False) -> str:
        """The far shell drops the typed line, then the probe's (typed where the far shell
        was unknown), from its history list, each only when the newest entry holds the
        nonce's first half (bash, yash, ksh93: as frames/history.py, with plain names,
        which need no escapes); fish runs the program in sh, and never saves either."""
        half = self.nonce[:16]
        bash = f"case $(history 1) in *{half}*) history -d $HISTCMD||:;; esac"
        yash = f"case $(fc -ln -1) in *{half}*) history -d -1||:;; esac"
        ksh = f"case $(hist -ln -0) in *{half}*) hist -p||:;; esac"
        zsh = ""
        if with_zsh:  # zsh syntax, which the other shells must not parse: eval'd in zsh
            zsh = "case ${ZSH_VERSION-} in ?*) eval " + quote(history.zsh_typed(half)) + ";; esac\n"
        return (
            f"{{ case ${{BASH_VERSION-}} in ?*) {bash}; {bash};; esac\n"
            f"case ${{YASH_VERSION-}} in ?*) {yash}; {yash};; esac\n{zsh}"
            f"case ${{KSH_VERSION-}} in *MIRBSD*) ;; ?*) {ksh}; {ksh};; esac; }} 2>/dev/null\n"
        )

    @property
    def left_pattern(self) -> re.Pattern[str]:
        """The far shell's marker (after ``^Z`` on the same row, in dash)."""
        return re.compile(rf"{self.nonce}:x:([0-9]{{1,3}})$")

    def left_status(self, capture: list[str]) -> int | None:
        """The status the far shell saw the frame leave with (its ``:x:`` marker), None
        before that marker."""
        for row in reversed(capture):
            match = self.left_pattern.search(row.rstrip())
            if match:
                return int(match.group(1))
        return None

    def typed_line(self, command: str, suppress_history: bool, fetch: str = "") -> str:
        """The line to type (without the Enter); InvalidArgument when it is too long.
        ``fetch``: a far shell's command that prints the program from a tmux buffer
        (frames/typed_buffer.py), typed instead of a line too long to type."""
        program = self.program(command, suppress_history)
        line = self._line(f"printf '{encode(program)}'", suppress_history)
        if len(line) > MAX_TYPED and fetch:
            return self._line(fetch, suppress_history)
        if len(line) > MAX_TYPED:  # the command first: zsh keeps this run's line then
            program = self.program(command, suppress_history, with_zsh=False)
            line = self._line(f"printf '{encode(program)}'", suppress_history)
        if len(line) > MAX_TYPED:
            raise InvalidArgument(
                f"this command needs a typed line of {len(line)} characters, and a typed frame "
                f"(ssh, su, containers) types at most {MAX_TYPED} (terminals and line editors "
                "drop longer lines; every quote, backslash, %, ! and non-ASCII byte takes 4): "
                "shorten it, or split it over several runs (e.g. write a script with "
                "printf >> file, then run it)",
                data={"reason": "typed_too_long", "length": len(line), "limit": MAX_TYPED},
            )
        return line

    def _line(self, printer: str, suppress_history: bool) -> str:
        """The line that runs what ``printer`` prints, as the far shell's kind needs."""
        if self.kind == "fish":
            line = f"{VI_SAFE}sh -c ({printer} | string collect)"
        else:
            line = f"{VI_SAFE}eval \"$({printer})\""
        return " " + line if suppress_history else line

    def probe_line(self) -> str:
        return (f" {VI_SAFE}printf '%s%s:p:%s:%s\\n' {self.halves} \"$FISH_VERSION\" "
                '"$ZSH_VERSION"')


def new_typed_frame(kind: Kind, zsh: bool = False) -> TypedFrame:
    return TypedFrame(nonce=secrets.token_hex(16), kind=kind, zsh=zsh)


def probed(frame: TypedFrame, capture: list[str]) -> TypedFrame | None:
    """``frame`` for the far shell that answered the probe in a capture (fish prints its
    version in the first field, zsh in the second), None before the answer came."""
    pattern = frame.probe_pattern
    for row in reversed(capture):
        match = pattern.match(row.rstrip())
        if match:
            kind: Kind = "fish" if match.group(1) else "posix"
            return dataclasses.replace(frame, kind=kind, zsh=bool(match.group(2)))
    return None
