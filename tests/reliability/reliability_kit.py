"""Shared helpers of the reliability suite: argument strategies built from a tool's own
inputSchema, hostile strings, the suite's counters, and views of a launcher process.

Imported by the suite's conftest and test modules (pytest's ``pythonpath`` setting puts
this folder on the import path; the name is unique so it cannot shadow anything).
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from muxport.testing import JsonLines, TmuxServer


@dataclass
class Stats:
    """What the summary line reports; tests add to it as they go."""

    fuzz_calls: int = 0
    faults: int = 0
    leaks: int = 0
    regex_checks: int = 0
    stalls: int = 0
    protocol_cases: int = 0
    memory_checks: int = 0
    byte_checks: int = 0
    calls_per_tool: dict[str, int] = field(default_factory=dict)
    not_exercised: set[str] = field(default_factory=set)
    ran: bool = False


STATS = Stats()

# Replaced at send time by the canary path that fits the tool (see ``Resolver``).
CANARY = "@@CANARY@@"
# Strings that try to escape into tmux commands, formats, shells or options.
HOSTILE = (
    ";",
    "a;",
    "a\\;",
    "\\;",
    ";;",
    "x ; kill-server",
    "#{pane_id}",
    "#{session_name}",
    "##",
    "#",
    f"#(touch {CANARY})",
    f"$(touch {CANARY})",
    f"`touch {CANARY}`",
    f"'; touch {CANARY}; '",
    f'"; touch {CANARY}; "',
    f"a\ntouch {CANARY}\n",
    "'",
    '"',
    "\n",
    "\r\n",
    "a\nb",
    "-t",
    "--",
    "-",
    "-a",
    "-t %0",
    "\x00",
    "a\x00b",
    "\x1b[2J",
    "\x1b]2;t\x07",
    "\x7f",
    "\x01",
    "%1",
    "@1",
    "$1",
    "0",
    "{",
    "}",
    "{ a }",
    " ",
    "",
    "é",
    "\u202e",
    "\t",
    "\\",
    "~",
    "*",
    "..",
    "/",
    "C-c",
    "Enter",
    "Escape",
    "q",
    "-X",
    "cancel",
    "\uffff",
    "𝕏",
)
ID_PREFIX = {"pane": "%", "window": "@", "session": "$"}
ID_PATTERN = re.compile(r"^\^\\?([%@$])")
HUGE = 1_000_000


def id_kind(name: str | None, schema: Mapping[str, Any]) -> str | None:
    """``pane``/``window``/``session`` when this string property holds an exact tmux id."""
    match = ID_PATTERN.match(str(schema.get("pattern", "")))
    if match:
        return {v: k for k, v in ID_PREFIX.items()}[match.group(1)]
    desc = str(schema.get("description", ""))
    for kind in ID_PREFIX:
        if name and (name == f"{kind}_id" or name.endswith(f"_{kind}_id")):
            return kind
        if f"exact {kind} id" in desc:
            return kind
    return None


@dataclass(frozen=True)
class Ref:
    """A value filled in when the call is sent: a live id, or a value seen in an answer."""

    pool: str
    fallback: Any


# ---------------------------------------------------------------- valid values


class SchemaStrategies:
    """Hypothesis strategies for one tool's inputSchema: ``valid()`` and ``invalid()``."""

    def __init__(self, schema: Mapping[str, Any], wait_cap: float = 0.2) -> None:
        self.root = schema
        self.wait_cap = wait_cap

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in schema:
            node: Any = self.root
            for part in str(schema["$ref"]).removeprefix("#/").split("/"):
                node = node[part]
            schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
        return schema

    def valid(
        self, schema: Mapping[str, Any] | None = None, name: str | None = None, depth: int = 0
    ) -> st.SearchStrategy[Any]:
        schema = self.resolve(self.root if schema is None else schema)
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = [self.resolve(s) for s in schema[key]]
                if name == "timeout":  # null means the 30 s default: keep fuzzed waits short
                    branches = [s for s in branches if types_of(s) != {"null"}] or branches
                return st.one_of([self.valid(s, name, depth) for s in branches])
        if "allOf" in schema:
            return self.valid(schema["allOf"][0], name, depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of([self.valid({**schema, "type": k}, name, depth) for k in kind])
        if kind == "string":
            return self.string(schema, name)
        if kind == "integer":
            return self.integer(schema)
        if kind == "number":
            return self.number(schema, name)
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        if kind == "array":
            return self.array(schema, name, depth)
        if kind == "object" or "properties" in schema:
            return self.obj(schema, depth)
        return json_values(2)

    def string(self, schema: Mapping[str, Any], name: str | None) -> st.SearchStrategy[Any]:
        lo, hi = int(schema.get("minLength", 0)), int(schema.get("maxLength", 4096))
        kind = id_kind(name, schema)
        if kind:
            own = st.from_regex(r"\A" + re.escape(ID_PREFIX[kind]) + r"[0-9]{1,9}\Z")
            return st.one_of(
                own, own.map(lambda v, k=kind: Ref(k, v)), own.map(lambda v, k=kind: Ref(k, v))
            )
        if "pattern" in schema:
            base: st.SearchStrategy[str] = st.from_regex(schema["pattern"], fullmatch=True)
        else:
            base = hostile_text(hi)
        base = base.map(lambda s: s[:hi]).filter(lambda s: len(s) >= lo)
        if name:  # values an answer gave under the same name (cursor, run_id, layout, ...)
            return st.one_of(base, base.map(lambda v, n=name: Ref(f"seen:{n}", v)))
        return base

    @staticmethod
    def _bounds(
        schema: Mapping[str, Any], default_lo: float, default_hi: float, step: float
    ) -> tuple[float, float]:
        lo = schema.get("minimum", default_lo)
        hi = schema.get("maximum", default_hi)
        if "exclusiveMinimum" in schema:
            lo = schema["exclusiveMinimum"] + step
        if "exclusiveMaximum" in schema:
            hi = schema["exclusiveMaximum"] - step
        return lo, hi

    def integer(self, schema: Mapping[str, Any]) -> st.SearchStrategy[int]:
        lo, hi = self._bounds(schema, -(2**31), 2**31, 1)
        lo, hi = int(lo), int(hi)
        return st.one_of(
            st.integers(lo, min(hi, lo + 200)), st.integers(lo, hi), st.sampled_from([lo, hi])
        )

    def number(self, schema: Mapping[str, Any], name: str | None) -> st.SearchStrategy[float]:
        lo, hi = self._bounds(schema, -1e9, 1e9, 1e-6)
        if name == "timeout":  # keep waits short: every generated wait ends within the cap
            hi = min(hi, self.wait_cap)
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False)

    def array(
        self, schema: Mapping[str, Any], name: str | None, depth: int
    ) -> st.SearchStrategy[Any]:
        lo = int(schema.get("minItems", 0))
        hi = min(int(schema.get("maxItems", lo + 4)), lo + 4 if depth else lo + 6)
        items = schema.get("items", {})
        return st.lists(self.valid(items, name, depth + 1), min_size=lo, max_size=max(lo, hi))

    def obj(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
        props: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        if "timeout" in props:  # never fall back to the 30 s default wait while fuzzing
            required.add("timeout")
        extra = schema.get("additionalProperties")
        if not props and isinstance(extra, dict):
            return st.dictionaries(
                st.text(max_size=8), self.valid(extra, None, depth + 1), max_size=3
            )
        return st.fixed_dictionaries(
            {k: self.valid(v, k, depth + 1) for k, v in props.items() if k in required},
            optional={
                k: self.valid(v, k, depth + 1) for k, v in props.items() if k not in required
            },
        )

    # ------------------------------------------------------------ invalid values

    def invalid(self) -> st.SearchStrategy[dict[str, Any]]:
        """A valid call with one deliberate defect (deep inside nested objects too)."""

        base = self.valid()

        @st.composite
        def build(draw: st.DrawFn) -> dict[str, Any]:
            return self.mutate(draw, self.root, draw(base), 0)

        return build()

    def mutate(
        self, draw: st.DrawFn, schema: Mapping[str, Any], value: dict[str, Any], depth: int
    ) -> dict[str, Any]:
        schema = self.resolve(schema)
        props: Mapping[str, Any] = schema.get("properties", {})
        required = list(schema.get("required", ()))
        out = dict(value)
        choices = ["extra", "empty"]
        if required:
            choices += ["missing", "null"]
        if props:
            choices += ["wrong_type", "wrong_type", "edge", "edge", "edge"]
        how = draw(st.sampled_from(choices))
        if how == "extra":
            out[draw(EXTRA_KEYS)] = draw(JSON_VALUES)
        elif how == "empty":
            return {}
        elif how == "missing":
            out.pop(draw(st.sampled_from(required)), None)
        elif how == "null":
            out[draw(st.sampled_from(required))] = None
        elif how == "wrong_type":
            key = draw(st.sampled_from(sorted(props)))
            out[key] = draw(wrong_type(self.resolve(props[key])))
        else:
            key = draw(st.sampled_from(sorted(props)))
            sub = self.resolve(props[key])
            nested = out.get(key)
            if isinstance(nested, list) and nested and isinstance(nested[0], dict) and depth < 2:
                items = self.resolve(sub.get("items", {}))
                index = draw(st.integers(0, len(nested) - 1))
                target = items
                for choice in items.get("oneOf", items.get("anyOf", ())):
                    target = self.resolve(choice)  # any branch: the defect is what matters
                nested = list(nested)
                nested[index] = self.mutate(draw, target, nested[index], depth + 1)
                out[key] = nested
            else:
                out[key] = draw(edge_value(key, sub))
        return out


def json_values(depth: int) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**63), 2**63),
        st.floats(allow_nan=False, allow_infinity=False),
        hostile_text(40),
    )
    if depth <= 0:
        return scalars
    return st.one_of(
        scalars,
        st.lists(scalars, max_size=3),
        st.dictionaries(st.text(max_size=5), scalars, max_size=3),
    )


@functools.cache
def hostile_text(limit: int) -> st.SearchStrategy[str]:
    """Short random text, hostile fragments, and mixtures of both."""
    plain = st.text(st.characters(exclude_categories=["Cs"]), max_size=min(limit, 48))
    fragment = st.sampled_from(HOSTILE)
    return st.one_of(plain, fragment, st.lists(st.one_of(plain, fragment), max_size=4).map("".join))


def types_of(schema: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(kind)
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, ()):
            found |= types_of(sub)
    if "integer" in found:
        found.add("number")
    return found


SAMPLES: dict[str, st.SearchStrategy[Any]] = {
    "string": st.sampled_from(["x", "%1", "", "true", "1"]),
    "integer": st.sampled_from([0, 1, -1, 3]),
    "number": st.sampled_from([0.5, -1.5, 1e300]),
    "boolean": st.booleans(),
    "null": st.none(),
    "array": st.sampled_from([[], [1], ["a", None]]),
    "object": st.sampled_from([{}, {"a": 1}]),
}


def wrong_type(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    return _wrong_type(frozenset(types_of(schema) or {"string"}))


@functools.cache
def _wrong_type(allowed: frozenset[str]) -> st.SearchStrategy[Any]:
    others = [
        k for k in SAMPLES if k not in allowed and not (k == "integer" and "number" in allowed)
    ]
    return st.one_of([SAMPLES[k] for k in others]) if others else st.just(object.__name__)


def edge_value(name: str, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Huge strings, control characters, bare numbers as ids, negative and enormous limits."""
    key = (name, json.dumps(schema, sort_keys=True))
    if key not in _EDGES:
        _EDGES[key] = _edge_value(name, schema)
    return _EDGES[key]


_EDGES: dict[tuple[str, str], st.SearchStrategy[Any]] = {}


def _edge_value(name: str, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    kinds = types_of(schema)
    options: list[st.SearchStrategy[Any]] = []
    strings = [
        self_schema
        for self_schema in [schema, *schema.get("anyOf", ())]
        if "string" in types_of(self_schema)
    ]
    if strings:
        sub = strings[-1]
        hi = int(sub.get("maxLength", 4096))
        options.append(st.sampled_from([hi + 1, hi * 2 + 7, HUGE]).map(lambda n: "x" * n))
        options.append(
            st.sampled_from(
                [
                    "\x00",
                    "a\x00b",
                    "\x1b[31m",
                    "\x01\x02\x03",
                    "\n" * 300,
                    "\ud7ff",
                    "\u2028",
                    "\x7f" * 5,
                ]
            )
        )
        if id_kind(name, sub):
            options.append(
                st.sampled_from(
                    [
                        "3",
                        3,
                        " 3",
                        "0",
                        "-1",
                        "%",
                        "%-1",
                        "%3;",
                        "%3 %4",
                        "=%3",
                        "%3.0",
                        "s:0",
                        "{last}",
                        "!",
                        "~",
                        "%99999999999",
                    ]
                )
            )
    if kinds & {"integer", "number"}:
        options.append(st.sampled_from([-1, -(10**12), 10**18, 2**63, 1e308, -0.5, 0.5, 10**100]))
    if "array" in kinds:
        options.append(st.sampled_from([[None] * 100, ["x"] * 1000, [[]]]))
    if not options:
        options.append(wrong_type(schema))
    return st.one_of(options)


JSON_VALUES = json_values(1)
EXTRA_KEYS = st.sampled_from(["zz", "socket", "socket_path", "_meta", "PANE_ID", ""])

# ---------------------------------------------------------------- send-time values


class Resolver:
    """Fills ``Ref`` values from live ids and from values seen in earlier answers."""

    def __init__(self, canary_for: Mapping[str, str]) -> None:
        self.pools: dict[str, list[str]] = {}
        self.canary_for = canary_for

    def set_ids(self, kind: str, ids: list[str]) -> None:
        self.pools[kind] = ids

    def learn(self, value: Any, key: str | None = None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                self.learn(v, k)
        elif isinstance(value, list):
            for v in value:
                self.learn(v, key)
        elif isinstance(value, str) and key and len(value) < 4096:
            pool = self.pools.setdefault(f"seen:{key}", [])
            if value not in pool:
                pool.append(value)
                del pool[:-20]

    def fill(self, value: Any, tool: str, pick: int) -> Any:
        if isinstance(value, Ref):
            pool = self.pools.get(value.pool) or []
            return pool[pick % len(pool)] if pool else value.fallback
        if isinstance(value, dict):
            return {k: self.fill(v, tool, pick + i) for i, (k, v) in enumerate(value.items())}
        if isinstance(value, list):
            return [self.fill(v, tool, pick + i) for i, v in enumerate(value)]
        if isinstance(value, str) and CANARY in value:
            return value.replace(CANARY, self.canary_for[tool])
        return value


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


# ---------------------------------------------------------------- the launcher process


def children_named(word: str) -> set[int]:
    """Direct children of this test process whose command line mentions ``word``."""
    me, found = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == me and word in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.add(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def threads_and_fds(pid: int) -> tuple[int, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    threads = int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))  # type: ignore[union-attr]
    return threads, len(os.listdir(f"/proc/{pid}/fd"))


def error_code(result: Any) -> str | None:
    meta = getattr(result, "meta", None) or {}
    code = meta.get("error_code")
    return code if isinstance(code, str) and code else None


def short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text if len(text) <= limit else text[:limit] + f"...(+{len(text) - limit})"


def server_state(server: TmuxServer) -> dict[str, Any]:
    return {
        "sessions": server.lines(
            "list-sessions", "-F", "#{session_id} #{session_name} #{session_windows}"
        ),
        "windows": server.lines(
            "list-windows", "-a", "-F", "#{window_id} #{window_name} #{window_layout}"
        ),
        "panes": server.lines(
            "list-panes", "-a", "-F", "#{pane_id} #{pane_title} #{pane_pid} #{pane_dead}"
        ),
        "options": server.lines("show-options", "-g"),
        "buffers": server.buffers(),
        "clients": server.clients(),
        "screen": server.lines("capture-pane", "-p", "-t", "bystander"),
    }


def tmux_children(pid: int) -> list[int]:
    """The tmux clients (wait-for, control mode) a launcher process has running now."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv0 = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and argv0.endswith(b"tmux"):
            found.append(int(entry.name))
    return found


def processes_using(socket_path: str, except_pid: int | None = None) -> list[str]:
    """Command lines of processes (other than ``except_pid``) naming ``socket_path``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == except_pid:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if socket_path in cmdline and "new-session" not in cmdline:
            found.append(cmdline.replace("\0", " "))
    return found


class RawLauncher:
    """The installed launcher spoken to byte by byte (for frames a client would never send)."""

    def __init__(
        self, env: Mapping[str, str], stderr: Path | None = None, max_files: int | None = None
    ) -> None:
        import resource
        import subprocess

        from muxport.testing.clients import launcher

        full = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
        full.update(env)

        def limit() -> None:
            if max_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (max_files, max_files))

        with open(stderr or os.devnull, "wb") as errors:
            self.process = subprocess.Popen(
                [launcher()],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=full,
                preexec_fn=limit if max_files is not None else None,
            )
        self.next_id = 1
        assert self.process.stdout is not None
        self.lines = JsonLines(self.process.stdout)
        self.send_error: EOFError | None = None

    def send(self, message: Mapping[str, Any] | bytes) -> None:
        """Write one frame (or raw bytes); a launcher that closed its stdin is ``EOFError``."""
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except BrokenPipeError as exc:
            raise EOFError("the launcher closed its stdin") from exc

    def send_behind(self, data: bytes) -> threading.Thread:
        """Write ``data`` from a thread (a server that stops reading blocks it); a closed
        pipe ends the thread quietly and is kept in ``send_error``."""

        def write() -> None:
            try:
                self.send(data)
            except EOFError as exc:
                self.send_error = exc

        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        return thread

    def request(self, method: str, params: Mapping[str, Any]) -> int:
        ident = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": dict(params)})
        return ident

    def read(self, ident: int, timeout: float = 10.0) -> dict[str, Any]:
        """The response to request ``ident`` (notifications and other answers are skipped)."""
        return self.lines.answer(ident, timeout)

    def initialize(self) -> None:
        ident = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "reliability", "version": "0"},
            },
        )
        answer = self.read(ident)
        assert "result" in answer, answer
        # stderr is no terminal: the startup line follows the answer as a log message
        greeting = self.lines.message()
        assert greeting["method"] == "notifications/message", greeting
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool: str, arguments: Mapping[str, Any]) -> int:
        return self.request("tools/call", {"name": tool, "arguments": dict(arguments)})

    def close(self, within: float = 1.0) -> int | None:
        """EOF on stdin; the exit status (None if still running after ``within`` seconds)."""
        import subprocess

        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
