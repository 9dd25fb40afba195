"""JSON schemas every client accepts and a model reads cheaply: ``plain`` rewrites a pydantic
schema into the small subset docs/client-fit.md ("Schemas") lists; an answer it cannot say
in that subset (a union of two objects) is a bug in the tool's model and stops startup.
"""

from __future__ import annotations

import copy
from typing import Any

DROP = frozenset({"title", "discriminator", "$defs", "definitions"})
VALUES = frozenset({"default", "enum", "examples", "required"})  # data, not subschemas


class SchemaShapeError(ValueError):
    """A model's schema needs a keyword outside the subset (oneOf/anyOf of objects)."""


def plain(schema: dict[str, Any], *, nullable: bool) -> dict[str, Any]:
    """``schema`` in the subset; ``nullable`` keeps null in answers (``type: [T, "null"]``),
    and drops it from arguments (an optional argument is left out, not sent as null)."""
    defs = schema.get("$defs", {})
    result: dict[str, Any] = _walk(copy.deepcopy(schema), defs, nullable, ())
    return result


def _walk(node: Any, defs: dict[str, Any], nullable: bool, seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_walk(item, defs, nullable, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = str(node.pop("$ref")).rsplit("/", 1)[-1]
        if name in seen:
            raise SchemaShapeError(f"recursive model {name} cannot be inlined")
        target = _walk(copy.deepcopy(defs[name]), defs, nullable, (*seen, name))
        node = {**target, **{k: v for k, v in node.items() if k not in DROP}}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROP:
            continue
        if key in VALUES:
            out[key] = value
        elif key == "properties":
            out[key] = {prop: _walk(sub, defs, nullable, seen) for prop, sub in value.items()}
        elif key == "const":
            out["enum"] = [value]
        else:
            out[key] = _walk(value, defs, nullable, seen)
    if isinstance(out.get("allOf"), list) and len(out["allOf"]) == 1:
        out = {**out.pop("allOf")[0], **out}
    # An answer's field whose default is null is left out when null: it never holds null.
    absent_when_null = nullable and "default" in out and out["default"] is None
    for key in ("anyOf", "oneOf"):
        if key in out:
            out = _merge_union(out, out.pop(key), nullable, not absent_when_null)
    if not nullable and out.get("additionalProperties") is False:
        # The server accepts the fields clients add (arguments.CLIENT_FIELDS) and refuses any
        # other unknown argument itself, naming the one meant: the schema does not forbid them.
        del out["additionalProperties"]
    if out.get("default", 0) is None:
        # arguments: "not sent" says it, null is no value of the argument's type; answers: a
        # field left out when null is not known (docs/client-fit.md)
        del out["default"]
    return out


def _merge_union(
    base: dict[str, Any], branches: list[Any], nullable: bool, keep_null: bool = True
) -> dict[str, Any]:
    """``[T, null]`` becomes T (arguments) or T with null allowed (answers); a union of
    plain types becomes a ``type`` list; anything else is refused."""
    has_null = any(b == {"type": "null"} for b in branches)
    rest = [b for b in branches if b != {"type": "null"}]
    if len(rest) == 1:
        merged = {**rest[0], **base}
    elif rest and all(set(b) == {"type"} and isinstance(b["type"], str) for b in rest):
        merged = {**base, "type": [b["type"] for b in rest]}
    elif rest and not nullable:
        # An argument that also takes a shorthand (``keys``: a list, or one bare string)
        # is advertised in its first, canonical form; the server still accepts the others.
        merged = {**rest[0], **base}
    else:
        raise SchemaShapeError(f"a union of {len(rest)} shaped branches has no plain form")
    if has_null and nullable and keep_null:
        merged = _allow_null(merged)
    return merged


def _allow_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if kind is None:
        return schema  # no type constraint: null is already allowed
    kinds = kind if isinstance(kind, list) else [kind]
    schema["type"] = [*kinds, "null"] if "null" not in kinds else kinds
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def without_nested_prose(schema: dict[str, Any]) -> dict[str, Any]:
    """An answer's schema with descriptions on its own fields only: records nested in it
    (a pane in a listing) keep their shape, and the many answers that hold one do not
    each repeat its prose (the README documents the records)."""
    out = dict(schema)
    out["properties"] = {
        name: _strip(sub, top=True) for name, sub in schema.get("properties", {}).items()
    }
    return out


def _strip(node: Any, top: bool = False) -> Any:
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "description" and not top:
            continue
        if key == "properties":
            out[key] = {name: _strip(sub) for name, sub in value.items()}
        elif key in VALUES:
            out[key] = value
        else:
            out[key] = _strip(value)
    return out


FORBIDDEN = ("title", "$ref", "$defs", "discriminator", "oneOf", "anyOf", "const")


def problems(schema: Any, where: str = "") -> list[str]:
    """Every keyword outside the subset and every unanchored ``pattern``, as sentences."""
    found: list[str] = []
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            found += problems(item, f"{where}[{index}]")
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for prop, sub in value.items():
                    found += problems(sub, f"{where}.{prop}")
                continue
            if key in FORBIDDEN:
                found.append(f"{where or 'schema'} uses {key}")
            if key == "pattern" and not (
                isinstance(value, str) and value.startswith("^") and value.endswith("$")
            ):
                found.append(f"{where or 'schema'} has a pattern not anchored with ^...$")
            found += problems(value, f"{where}.{key}")
    return found
