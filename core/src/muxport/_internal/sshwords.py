"""What muxport says to ssh and reads back from it (docs/ssh.md): far command words quoted
for any login shell, and the error, naming the fix, for what a failing ssh printed."""

from __future__ import annotations

from muxport._internal.errors import ToolError

RETRY = frozenset({"ssh_unreachable", "ssh_connection_lost"})  # a key or a login: not again


class SshFailed(ToolError):
    """The ssh connection to the far host failed (unreachable, refused, lost)."""

    code = "ssh_connection_lost"
    retryable = True


def far_quote(arg: str) -> str:
    """``arg`` as one word for the far user's login shell, which ssh hands the command
    line to: single quotes for the plain runs, ``\\'`` and ``\\\\`` between them, which
    POSIX shells and fish read alike (fish would read a backslash inside quotes)."""
    # bare only where no shell expands it: zsh reads a leading = (=ls), fish a leading %
    if arg and arg[0] not in "=%" and all(c.isalnum() or c in "@%+=:,./_-" for c in arg):
        return arg
    out: list[str] = []
    run = ""
    for c in arg:
        if c in "'\\":
            if run:
                out.append(f"'{run}'")
                run = ""
            out.append("\\" + c)
        else:
            run += c
    if run or not out:
        out.append(f"'{run}'")
    return "".join(out)


def diagnose(stderr: str, destination: str) -> tuple[str, str]:
    """The error code and the sentence naming the fix for what ssh printed on failing."""
    text = stderr.strip().splitlines()[-1] if stderr.strip() else "ssh exited without a word"
    low = stderr.lower()
    if "host key verification failed" in low or "remote host identification has changed" in low:
        return "ssh_host_key", (
            f"ssh refused {destination}'s host key ({text}): the key is unknown or changed; "
            "check it and add it to known_hosts (ssh-keyscan, or one interactive ssh); "
            "muxport never turns StrictHostKeyChecking off")
    if "permission denied" in low or "too many authentication failures" in low:
        return "ssh_auth_refused", (
            f"{destination} refused the login ({text}): muxport logs in without a prompt "
            "(BatchMode), so a key must be accepted: load it into ssh-agent or name it with "
            "--ssh-option IdentityFile=PATH")
    if "could not resolve" in low or "connection refused" in low or "timed out" in low \
            or "no route" in low or "network is unreachable" in low:
        return "ssh_unreachable", (
            f"cannot reach {destination} ({text}); check the host name, the port "
            "(--ssh-option Port=N) and that its sshd runs, then call again")
    return "ssh_connection_lost", f"ssh to {destination} failed ({text}); call again"
