"""Injection: every string a tool passes to tmux, tried with separators, formats, shell
syntax, quotes, newlines and option-shaped values. Each is used literally or refused;
no canary file appears (an injected ``#(...)``, ``$(...)`` or backtick would make one).

The string inputs are found from each tool's inputSchema (top-level strings, lists of
strings, and the strings of list-of-object items such as batch operations). Tools that
type (reach ``pane-input``) are aimed at a pane running ``cat``, whose file must receive
the text exactly; ``run_shell_command``, whose job is to run its command, must run it
literally and once.
"""

# The suite observes files, /proc and tmux, which send no events: bounded polls are the wait.
# ruff: noqa: ASYNC109, ASYNC240

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from muxport._internal import objects
from muxport.testing import TmuxServer, capability_row, eventually
from reliability_kit import STATS, error_code, id_kind, short, types_of

pytestmark = pytest.mark.timeout(300)

INJECT = (
    "a;",
    ";",
    "x ; kill-server",
    "#{pane_id}",
    "##{session_name}#",
    "#(touch {c})",
    "$(touch {c})",
    "`touch {c}`",
    'it\'s "q"',
    "a\nb",
    "-t",
    "--",
    "-t %0",
)
TYPING = {"pane-input"}


def string_slots(root: dict[str, Any]) -> list[tuple[str, str | None, dict[str, Any]]]:
    """(property, item property or None, the string's schema) for every free string input."""

    def resolve(s: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in s:
            node: Any = root
            for part in s["$ref"].removeprefix("#/").split("/"):
                node = node[part]
            s = node
        return s

    def string_of(s: dict[str, Any]) -> dict[str, Any] | None:
        s = resolve(s)
        for sub in [s, *s.get("anyOf", ()), *[resolve(x) for x in s.get("anyOf", ())]]:
            if sub.get("type") == "string" and "enum" not in sub:
                return sub
            if sub.get("type") == "array":
                inner = resolve(sub.get("items", {}))
                if inner.get("type") == "string" and "enum" not in inner:
                    return inner
        return None

    slots = []
    for name, prop in root.get("properties", {}).items():
        sub = string_of(prop)
        if sub is not None and not id_kind(name, sub):
            slots.append((name, None, sub))
        prop = resolve(prop)
        items = resolve(prop.get("items", {})) if prop.get("type") == "array" else {}
        for inner_name, inner in items.get("properties", {}).items():
            sub = string_of(inner)
            if sub is not None and not id_kind(inner_name, sub):
                slots.append((name, inner_name, sub))
    return slots


def plain(name: str, schema: dict[str, Any], ids: dict[str, str], root: dict[str, Any]) -> Any:
    """A harmless valid value for one property."""
    while "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    kind = id_kind(name, schema) or next(
        (id_kind(name, s) for s in schema.get("anyOf", ()) if id_kind(name, s)), None
    )
    if kind:
        return ids["other_pane" if name.startswith("other") else kind]
    if "enum" in schema:
        return schema["enum"][0]
    for sub in schema.get("anyOf", schema.get("oneOf", ())):
        if types_of(sub) != {"null"}:
            return plain(name, sub, ids, root)
    types = types_of(schema)
    if name == "timeout":
        return 0.2
    if "boolean" in types:
        return False
    if "integer" in types:
        return max(int(schema.get("minimum", 1)), 1)
    if "number" in types:
        return max(float(schema.get("minimum", 0.2)), 0.2)
    if "array" in types:
        return [plain(name, schema.get("items", {}), ids, root)] * max(1, schema.get("minItems", 1))
    if "object" in types or "properties" in schema:
        return {
            k: plain(k, v, ids, root)
            for k, v in schema.get("properties", {}).items()
            if k in schema.get("required", ()) or k == "timeout"
        }
    return {"names": "pane_id", "name": "history-limit"}.get(name, "x")


def with_slot(
    args: dict[str, Any], slot: str, inner: str | None, value: str, array: bool
) -> dict[str, Any]:
    out = dict(args)
    if inner is None:
        out[slot] = [value] if array else value
    else:
        out[slot] = [{**out[slot][0], inner: [value] if array else value}]
    return out


def is_array(schema: dict[str, Any], slot: str, inner: str | None, root: dict[str, Any]) -> bool:
    prop = root["properties"][slot]
    if inner is not None:
        items = prop.get("items", {})
        while "$ref" in items:
            items = root["$defs"][items["$ref"].rsplit("/", 1)[1]]
        prop = items.get("properties", {}).get(inner, {})
    options = [prop, *prop.get("anyOf", ())]
    return not any(o.get("type") == "string" for o in options)


def tmux_strings(server: TmuxServer) -> list[str]:
    """Every name, title, path and user option the test's server holds now."""
    formats = ("session_name", "window_name", "pane_title", "pane_current_path")
    found: list[str] = []
    for fmt in formats:
        out = server.cmd("list-panes", "-a", "-F", objects.fmt((fmt,)), check=False)
        found += [row[0] for row in objects.records(out)]
    found += server.cmd("show-options", "-g", check=False).splitlines()
    found += server.cmd("list-buffers", "-F", "#{buffer_sample}", check=False).splitlines()
    return found


def expanded(value: str) -> re.Pattern[str] | None:
    """What a format-expanded ``value`` would look like (None: nothing to expand)."""
    if "#{" not in value:
        return None
    pattern = re.escape(value.replace("##", "\x00"))
    pattern = pattern.replace(re.escape("#{pane_id}"), r"%\d+")
    pattern = pattern.replace(re.escape("#{session_name}"), r"[^#]*")
    return re.compile("^" + pattern.replace("\x00", "#") + "$")


def fixture(server: TmuxServer) -> dict[str, str]:
    """A session with a ready shell pane and a second pane (for tools taking two panes)."""
    pane = server.shell_pane("bash")
    other = server.cmd(
        "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane.pane_id, "cat"
    ).strip()
    return {
        "pane": pane.pane_id,
        "window": pane.window_id,
        "session": pane.session_id,
        "other_pane": other,
    }


def call_args(
    root: dict[str, Any],
    slot: str,
    inner: str | None,
    value: str,
    schema: dict[str, Any],
    ids: dict[str, str],
) -> dict[str, Any]:
    """Harmless valid arguments with ``value`` in one string input; text is typed literally."""

    def fill(props: dict[str, Any], required: Any) -> dict[str, Any]:
        args = {
            k: plain(k, v, ids, root) for k, v in props.items() if k in required or k == "timeout"
        }
        for flag in ("literal", "enter"):
            if flag in props:
                args[flag] = True
        return args

    args = fill(root.get("properties", {}), root.get("required", ()))
    if inner is not None:
        items = root["properties"][slot].get("items", {})
        while "$ref" in items:
            items = root["$defs"][items["$ref"].rsplit("/", 1)[1]]
        args[slot] = [fill(items.get("properties", {}), items.get("required", ()))]
    return with_slot(args, slot, inner, value, is_array(schema, slot, inner, root))


async def wait_for_path(server: TmuxServer, path: str, timeout: float = 5.0) -> list[str]:
    """The current paths of all panes, once one of them is ``path`` (bounded)."""

    def paths() -> list[str]:
        out = server.cmd("list-panes", "-a", "-F", objects.fmt(("pane_current_path",)), check=False)
        return [row[0] for row in objects.records(out)]

    return await eventually(paths, lambda now: path in now, within=timeout, last_on_timeout=True)


async def wait_for_file(path: Path, want: str, timeout: float = 5.0) -> str:
    """The file's text once it holds ``want`` (bounded: it is written by a pane's cat)."""

    def text() -> str:
        return path.read_text(errors="replace") if path.exists() else ""

    return await eventually(text, lambda now: want in now, within=timeout, last_on_timeout=True)


async def test_strings_reach_tmux_literally_or_are_refused(
    stdio_client, tmux_server, sandbox, all_toolsets
):
    canary = sandbox / "canary"
    values = [v.replace("{c}", str(canary)) for v in INJECT]
    # Start directories: existing absolute directories with hostile names ("/" cannot occur).
    dirs = []
    for index, value in enumerate(INJECT):
        path = sandbox / f"d{index}{value.replace('{c}', '$HOME+canary').replace('/', '+')}"
        path.mkdir()
        dirs.append(str(path))
    # Let new panes start where they are asked to (the sandbox pins them to $HOME otherwise).
    tmux_server.cmd("set-option", "-gu", "default-command")
    problems: list[str] = []
    outcomes: dict[str, list[str]] = {}
    tried = 0
    async with stdio_client(toolsets=all_toolsets) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            reach = capability_row(tool)["process_reach"]
            if tool.name == "run_shell_command" or reach == "pane-command":
                continue  # runs its command by design: test_run_shell_command_runs_literally_once
            root = tool.input_schema
            ids: dict[str, str] = {}
            for slot, inner, schema in string_slots(root):
                is_dir = "director" in slot or "absolute path" in str(schema.get("description"))
                for value in dirs if is_dir else values:
                    if (
                        not ids
                        or tmux_server.cmd(
                            "display-message", "-p", "-t", ids["pane"], "#{pane_id}", check=False
                        ).strip()
                        != ids["pane"]
                    ):
                        ids = fixture(tmux_server)  # kill and respawn tools may end the last one
                    elif len(tmux_server.lines("list-panes", "-s", "-t", ids["session"])) > 2:
                        tmux_server.cmd("kill-session", "-t", ids["session"])
                        ids = fixture(tmux_server)  # room for split_window
                    typed = sandbox / f"typed-{tried}"
                    if reach in TYPING:  # type into cat, which writes what arrives to a file
                        tmux_server.cmd(
                            "respawn-pane",
                            "-k",
                            "-t",
                            ids["pane"],
                            f"stty -echo; exec cat > {typed}",
                        )
                    args = call_args(root, slot, inner, value, schema, ids)
                    tried += 1
                    result = await client.call_tool(tool.name, args)
                    where = f"{tool.name}.{slot}{'.' + inner if inner else ''}={value!r}"
                    code = error_code(result)
                    outcomes.setdefault(
                        f"{tool.name}.{slot}{'.' + inner if inner else ''}", []
                    ).append(code or "ok")
                    if result.is_error and (code is None or code == "internal_error"):
                        problems.append(f"{where}: {result.content[0].text}")
                    if canary.exists():
                        problems.append(f"{where}: the canary was created")
                        canary.unlink()
                    if not Path(tmux_server.socket_path).exists():
                        problems.append(f"{where}: the tmux server is gone")
                        return
                    if not result.is_error and reach in TYPING:
                        want = value + "\n"
                        got = await wait_for_file(typed, want)
                        if want not in got:
                            problems.append(f"{where}: typed {got!r}, wanted {want!r}")
                    if not result.is_error and is_dir:
                        paths = await wait_for_path(tmux_server, value)
                        if value not in paths:
                            problems.append(f"{where}: no pane started there; paths {paths}")
                    shape = expanded(value)
                    # only a value with a format in it can come back expanded: the others
                    # need no look at every string the server holds (six tmux calls)
                    if not result.is_error and shape is not None:
                        hits = [s for s in tmux_strings(tmux_server) if shape.match(s)]
                        if hits:
                            problems.append(f"{where}: tmux expanded it to {hits[:2]}")
            if ids:
                tmux_server.cmd("kill-session", "-t", ids["session"], check=False)
    print(f"\ninjection: {tried} calls")
    for where, codes in sorted(outcomes.items()):
        print(f"  {where}: " + " ".join(codes))
    assert tried > 0
    assert not problems, "\n".join(short(p, 400) for p in problems[:30])


async def test_run_shell_command_runs_literally_once(
    stdio_client, shell_pane, sandbox, all_toolsets
):
    pane = shell_pane("bash")
    counter = sandbox / "ran"
    async with stdio_client(toolsets=all_toolsets) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        if "run_shell_command" not in names:
            STATS.not_exercised.add("run_shell_command")
            pytest.fail("run_shell_command is not installed: injection into it not exercised")
        for index, raw in enumerate(INJECT):
            value = raw.replace("{c}", str(sandbox / f"canary-{index}"))
            command = f"cat <<'MUXEOF'\n{value}\nMUXEOF\necho {index} >> {counter}"
            result = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": command, "timeout": 10}
            )
            assert not result.is_error, result.content
            data = result.structured_content
            assert data["outcome"] == "completed", data
            assert data["output"] == value.split("\n"), (value, data["output"])
            assert not (sandbox / f"canary-{index}").exists()
    assert counter.read_text().split() == [str(i) for i in range(len(INJECT))]


async def test_option_shaped_key_names_are_typed_not_parsed(
    stdio_client, tmux_server, sandbox, all_toolsets
):
    """Keys sent by name (not literal): option-shaped and separator-shaped ones are text."""
    ids = fixture(tmux_server)
    async with stdio_client(toolsets=all_toolsets) as client:
        if "send_keys" not in {t.name for t in (await client.list_tools()).tools}:
            STATS.not_exercised.add("send_keys")
            pytest.fail("send_keys is not installed: key names not exercised")
        for index, keys in enumerate(
            (["-t"], ["--"], ["-X"], ["-t", "%0"], ["#{pane_id}"], ["a;"], ["-l", "x"])
        ):
            typed = sandbox / f"keys-{index}"
            tmux_server.cmd(
                "respawn-pane", "-k", "-t", ids["pane"], f"stty -echo; exec cat > {typed}"
            )
            args = {"pane_id": ids["pane"], "keys": keys, "literal": False, "enter": True}
            result = await client.call_tool("send_keys", args)
            if result.is_error:
                assert error_code(result) not in (None, "internal_error"), result.content
                continue
            want = "".join(keys) + "\n"
            assert await wait_for_file(typed, want) == want, keys
