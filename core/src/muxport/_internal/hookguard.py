"""The read-only promise made true: a read never runs a tmux hook (docs/client-fit.md,
"The hook check", says how the one check invocation reads every level).

A hook runs any tmux command, ``run-shell`` included, so a read whose command fired one
would not be read-only: while a read-only tool runs (``guarding``), ``check`` refuses it
with ``hook_present`` before anything runs when a hook its command would fire is set.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from muxport._internal.errors import Refused

# The tool whose reads are being guarded (None: the caller claims no read-only).
GUARDED: ContextVar[str | None] = ContextVar("muxport_guarded_read", default=None)

# Every tmux 3.3a command that has an after-<command> hook (``show-hooks -g`` lists them).
AFTER_HOOKED = frozenset({
    "bind-key", "capture-pane", "copy-mode", "display-message", "display-panes",
    "kill-pane", "list-buffers", "list-clients", "list-keys", "list-panes",
    "list-sessions", "list-windows", "load-buffer", "lock-server", "new-session",
    "new-window", "paste-buffer", "pipe-pane", "queue", "refresh-client",
    "rename-session", "rename-window", "resize-pane", "resize-window", "save-buffer",
    "select-layout", "select-pane", "select-window", "send-keys", "set-buffer",
    "set-environment", "set-hook", "set-option", "show-environment", "show-messages",
    "show-options", "split-window", "unbind-key",
})
ALIASES = {
    "display": "display-message", "capturep": "capture-pane", "lsp": "list-panes",
    "lsw": "list-windows", "ls": "list-sessions", "lsc": "list-clients",
    "lsb": "list-buffers", "show": "show-options", "show-option": "show-options",
    "showenv": "show-environment", "set": "set-option", "send": "send-keys",
}
CLIENT_HOOKS = ("client-attached", "client-detached", "client-session-changed")
MARK = "--muxport-level "

Run = Callable[[tuple[tuple[str, ...], ...]], Awaitable[tuple[int, str]]]


@contextmanager
def guarding(tool: str | None) -> Iterator[None]:
    """Guard every tmux invocation made inside the block for ``tool`` (None: no guard)."""
    token = GUARDED.set(tool)
    try:
        yield
    finally:
        GUARDED.reset(token)


def command_name(word: str) -> str:
    """The full command name tmux runs for ``word`` (an alias or a unique prefix)."""
    name = ALIASES.get(word, word)
    if name in AFTER_HOOKED:
        return name
    prefixed = [full for full in AFTER_HOOKED if full.startswith(name)]
    return prefixed[0] if len(prefixed) == 1 else name


def _target(command: Sequence[str]) -> str | None:
    args = list(command)
    return args[args.index("-t") + 1] if "-t" in args[:-1] else None


@dataclass(frozen=True)
class Wanted:
    """The hooks some invocation would fire, and the targets whose levels hold them."""

    hooks: frozenset[str]
    targets: tuple[str | None, ...]

    @classmethod
    def of_commands(cls, commands: Sequence[Sequence[str]]) -> Wanted:
        hooks, targets = set(), []
        for command in commands:
            name = command_name(str(command[0])) if command else ""
            if name in AFTER_HOOKED:
                hooks.add(f"after-{name}")
                targets.append(_target(command))
        return cls(frozenset(hooks), tuple(dict.fromkeys(targets)))

    @classmethod
    def of_client(cls, args: Sequence[str]) -> Wanted:
        """A long-lived client: the commands it runs (``;``-separated argv), and the client
        hooks when it attaches (a control client)."""
        words = list(args[args.index("-C") + 1 :] if "-C" in args else args)
        commands: list[list[str]] = [[]]
        for word in words:
            if word == ";":
                commands.append([])
            else:
                commands[-1].append(word)
        ran = cls.of_commands([c for c in commands if c])
        attach = next((c for c in commands if c and c[0] in ("attach-session", "attach")), None)
        if attach is None:
            return ran
        return cls(ran.hooks | set(CLIENT_HOOKS), (*ran.targets, _target(attach)))


def query(wanted: Wanted) -> tuple[tuple[str, ...], ...]:
    """ONE invocation: global hooks, then each target's session, window and pane hooks,
    each level announced by a marker line (``list-commands -F`` prints it, hook-free)."""
    commands: list[tuple[str, ...]] = [_mark("global", None), ("show-hooks", "-g")]
    for target in wanted.targets:
        where = ("-t", target) if target else ()
        for level, flag in (("session", ()), ("window", ("-w",)), ("pane", ("-p",))):
            commands += [_mark(level, target), ("show-hooks", *flag, *where)]
    return tuple(commands)


def _mark(level: str, target: str | None) -> tuple[str, ...]:
    # ## keeps a literal # out of format expansion; has-session: list one command only
    return ("list-commands", "-F", f"{MARK}{level} {target or '-'}".replace("#", "##"),
            "has-session")


def found(wanted: Wanted, output: str) -> tuple[str, str, str | None] | None:
    """The first wanted hook that is set: (hook, level, target)."""
    level, target = "global", None
    for line in output.splitlines():
        if line.startswith(MARK):
            level, _, where = line[len(MARK):].partition(" ")
            target = None if where == "-" else where
            continue
        name, _, value = line.partition(" ")
        if value.strip() and name.split("[", 1)[0] in wanted.hooks:
            return name.split("[", 1)[0], level, target
    return None


def refusal(tool: str, hook: str, level: str, target: str | None) -> Refused:
    where = "global" if level == "global" else (
        f"{level} level of {target}" if target else f"{level} level of the current session"
    )
    flags = {"global": "-gu", "session": "-u", "window": "-wu", "pane": "-pu"}[level]
    aim = f" -t {target}" if target and level != "global" else ""
    return Refused(
        f"{tool} was refused: the tmux hook {hook} is set ({where}) and would run after this "
        f"read's tmux command, so nothing was run (a read-only tool never runs hooks). Ask "
        f"the user whether the hook may go; `tmux set-hook {flags}{aim} {hook}` removes it. "
        "Then call again.",
        code="hook_present",
        data={"hook": hook, "level": level, "target": target},
    )


async def check(run: Run, wanted: Wanted) -> None:
    """Refuse, for the guarded tool, when a hook in ``wanted`` is set; else return."""
    tool = GUARDED.get()
    if tool is None or not wanted.hooks:
        return
    # A failed check (a target that does not exist, no session yet) still printed the
    # levels before the failure; the command itself then fails, and fires nothing.
    _, output = await run(query(wanted))
    hit = found(wanted, output)
    if hit is not None:
        raise refusal(tool, *hit)
