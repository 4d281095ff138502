"""Values files: the props as YAML or JSON mappings, layered as Helm layers its values.

A values file is a mapping whose keys are the fields of :class:`NodeLocalDNSProps`, written as
in Python: a prop whose type is one of the library's dataclasses (``cache``, ``upstream_forward``,
``affinity``…) is a mapping of that class's fields, a tuple is a list, an enum or ``Literal`` its
value. The props are then built by their own constructors, so a values file is validated exactly
as props are, and every error names the key path it came from
(``upstream_forward.max_fails: must be …``).

Layers (``-f a.yaml -f b.yaml --set k=v``) merge as Helm's do: a later layer wins, mappings
merge key by key, anything else (lists too) is replaced whole. The props take the merged
mapping the same way: a mapping given for a dataclass prop (``cache: {prefetch: …}``) changes
only the fields it names, over the app's props or the defaults; every other prop given (a list,
a label mapping, a scalar) replaces the app's. Pure code: the props module is imported only when props are built.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import yaml

if TYPE_CHECKING:
    from constructs_nld.nodelocaldns import NodeLocalDNSProps

__all__ = [
    "ValuesError",
    "ValuesLayer",
    "load_values",
    "merge_values",
    "parse_set",
    "props_from_values",
    "props_with_values",
    "read_file",
    "read_layers",
    "values_from_props",
]

_PROP: Final = re.compile(r"[A-Za-z0-9_.\[\]-]+")
"""What starts a props error before ``: ``: the prop it names (``forward.max_fails``)."""


class ValuesError(ValueError):
    """A values file, a ``--set`` or a value in them that is refused; ``path`` is the key path of the value."""

    def __init__(self, message: str, path: tuple[str | int, ...] = ()) -> None:
        """``message`` is the one line shown; ``path`` the keys (and list indexes) leading to the value."""
        super().__init__(message)
        self.path = path


@dataclasses.dataclass(frozen=True)
class ValuesLayer:
    """One layer of values: a file's mapping or a ``--set``'s, with where it came from for the messages."""

    source: str
    """The file's path, or ``--set KEY=VALUE``."""

    values: dict[str, Any]
    """Its mapping."""


def key_path(path: Sequence[str | int]) -> str:
    """``path`` written as a user writes it: ``zones[0].forward.max_fails``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping (YAML 1.2 forbids it; PyYAML keeps the last)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, typing.Hashable) and key in seen:
            line = key_node.start_mark.line + 1
            raise ValuesError(f"line {line}: key {key!r} is given twice in one mapping")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _parse(text: str) -> Any:
    """``text`` as one YAML (or JSON) document, with the safe loader and no duplicate keys."""
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def _one_line(text: str) -> str:
    return " ".join(text.split())


def read_file(path: str | Path) -> ValuesLayer:
    """The mapping of a values file, or :class:`ValuesError` naming the file (an empty file is an empty mapping)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ValuesError(f"{path}: cannot read the values file: {reason}") from None
    try:
        data = _parse(text)
    except ValuesError as error:
        raise ValuesError(f"{path}: {error}") from None
    except yaml.YAMLError as error:
        raise ValuesError(f"{path}: not valid YAML or JSON: {_one_line(str(error))}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValuesError(f"{path}: must be a mapping of props to values, got {type(data).__name__} {data!r:.60}")
    return ValuesLayer(str(path), data)


def parse_set(text: str) -> ValuesLayer:
    r"""A ``--set key.path=value`` as a one-key layer; the value is read as a YAML scalar or flow value.

    A ``.`` in a key (a label key) is written ``\.``; an empty value is the empty string, as Helm's.
    A key path cannot go into a list: a list is set whole (``--set 'upstream_servers=[fd10::53]'``).
    """
    source = f"--set {text}"
    key, equals, raw = text.partition("=")
    if not equals or not key:
        raise ValuesError(f"{source}: must be KEY=VALUE, such as cache.success_capacity=20000")
    parts = [part.replace("\0", ".") for part in key.replace("\\.", "\0").split(".")]
    if any(not part for part in parts):
        raise ValuesError(f"{source}: {key!r} has an empty key (write a '.' inside a key as '\\.')")
    for index, part in enumerate(parts):
        if "[" in part or "]" in part or (index and part.isdigit()):
            whole = key_path([*parts[:index], part.partition("[")[0]] if "[" in part else parts[:index])
            raise ValuesError(
                f"{source}: a key path cannot go into a list ({key}); set the whole list instead, "
                f"e.g. --set '{whole}=[...]', or write it in a values file"
            )
    try:
        value = _parse(raw) if raw else ""
    except (ValuesError, yaml.YAMLError) as error:
        raise ValuesError(f"{source}: the value is not a YAML value: {_one_line(str(error))}") from None
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return ValuesLayer(source, nested)


def merge_values(
    lower: Mapping[str, Any], upper: Mapping[str, Any], *, source: str = "", path: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``upper`` over ``lower``: mappings merged key by key, anything else (a list too) replaced, as Helm does.

    A ``--set`` (``source``) whose key path goes through a list of ``lower`` is refused: it
    would replace the list with a mapping.
    """
    merged = dict(lower)
    for key, value in upper.items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = merge_values(below, value, source=source, path=(*path, key))
        elif source.startswith("--set ") and isinstance(value, Mapping) and isinstance(below, list):
            raise ValuesError(
                f"{source}: {key_path((*path, key))} is a list, which a key path cannot go into; set the whole "
                f"list, e.g. --set '{key_path((*path, key))}=[...]'",
                (*path, key),
            )
        else:
            merged[key] = value
    return merged


def read_layers(paths: Sequence[str | Path], sets: Sequence[str]) -> tuple[ValuesLayer, ...]:
    """The files in order, then the ``--set`` strings in order, each read and checked on its own."""
    return (*(read_file(path) for path in paths), *(parse_set(text) for text in sets))


def _merge_layers(layers: Sequence[ValuesLayer]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = merge_values(merged, layer.values, source=layer.source)
    return merged


def load_values(paths: Sequence[str | Path], sets: Sequence[str] = ()) -> dict[str, Any]:
    """The values of ``paths`` and then ``sets`` (``key.path=value``), layered: later wins, mappings merged."""
    return _merge_layers(read_layers(paths, sets))


def _is_class(hint: Any) -> bool:
    """Whether ``hint`` is a dataclass (the class, not an instance)."""
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _hint_args(hint: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(hint)
    return typing.get_args(hint) if origin in (typing.Union, types.UnionType) else (hint,)


def _describe(hint: Any) -> str:
    names = []
    for arg in _hint_args(hint):
        origin = typing.get_origin(arg)
        if origin is Literal:
            names.append("one of " + ", ".join(repr(choice) for choice in typing.get_args(arg)))
        elif origin is tuple:
            names.append("a list")
        elif origin is Mapping:
            names.append("a mapping")
        elif _is_class(arg):
            names.append(f"a mapping of {arg.__name__}'s fields")
        else:
            names.append({str: "a string", int: "an integer", bool: "true or false", type(None): "null"}[arg])
    return " or ".join(names)


def _type_name(value: object) -> str:
    return {dict: "a mapping", list: "a list", type(None): "null"}.get(type(value), repr(value))


def _convert(value: Any, hint: Any, path: tuple[str | int, ...], base: Any) -> Any:
    """``value`` of a values mapping as the field typed ``hint`` takes it; dataclasses built (over ``base``)."""
    args = _hint_args(hint)
    if value is None:
        if type(None) in args:
            return None
        raise ValuesError(f"{key_path(path)}: must be {_describe(hint)}, got null", path)
    classes: list[type] = [arg for arg in args if _is_class(arg)]
    tuples = [arg for arg in args if typing.get_origin(arg) is tuple]
    if classes:
        if not isinstance(value, Mapping):
            raise ValuesError(f"{key_path(path)}: must be {_describe(hint)}, got {_type_name(value)}", path)
        return _build(classes[0], value, path, base if isinstance(base, classes[0]) else None)
    if tuples:
        if not isinstance(value, list):
            raise ValuesError(f"{key_path(path)}: must be a list, got {_type_name(value)}", path)
        item = typing.get_args(tuples[0])[0]
        return tuple(_convert(element, item, (*path, index), None) for index, element in enumerate(value))
    if any(typing.get_origin(arg) is Mapping for arg in args) and isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(item, str):
                raise ValuesError(
                    f"{key_path((*path, key))}: must be a string, got {item!r} (quote it in YAML: '{item}')",
                    (*path, key),
                )
    return value


def _reprefix(message: str, cls: type, path: tuple[str | int, ...]) -> ValuesError:
    """A props error raised while building ``cls`` at ``path``, its prop rewritten as the key path it came from.

    The props name themselves as Python does (``forward.max_fails``), without knowing where
    they sit: here, the field of ``cls`` the message names is put after ``path``.
    """
    head, colon, rest = message.partition(": ")
    if not colon or not _PROP.fullmatch(head):
        return ValuesError(message, path)
    if not path:
        return ValuesError(message, (head.split(".")[0],))
    field = head.rsplit(".", 1)[-1]
    names = {f.name for f in dataclasses.fields(cls)}
    where = (*path, field) if field in names else path
    return ValuesError(f"{key_path(where)}: {rest}", where)


def _default(field: dataclasses.Field[Any]) -> Any:
    """A field's default value (its factory's, called), or None for a required field."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return None


def _build(cls: type, values: Mapping[Any, Any], path: tuple[str | int, ...], base: Any) -> Any:
    """An instance of the dataclass ``cls`` from ``values`` (over ``base``'s fields, when given), validated."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        if not isinstance(key, str):
            raise ValuesError(f"{key_path(path) or 'values'}: keys must be strings, got {key!r}", path)
        if key not in fields:
            close = difflib.get_close_matches(key, fields, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"{cls.__name__} takes {', '.join(fields)}"
            raise ValuesError(f"{key_path((*path, key))}: unknown key ({hint})", (*path, key))
        below = getattr(base, key) if base is not None else _default(fields[key])
        kwargs[key] = _convert(value, hints[key], (*path, key), below)
    if base is None:
        for name, field in fields.items():
            if name not in kwargs and field.default is field.default_factory is dataclasses.MISSING:
                raise ValuesError(f"{key_path((*path, name))}: is required ({cls.__name__})", (*path, name))
    try:
        return dataclasses.replace(base, **kwargs) if base is not None else cls(**kwargs)
    except ValuesError:
        raise
    except ValueError as error:
        raise _reprefix(str(error), cls, path) from None


def props_from_values(mapping: Mapping[str, Any], base: NodeLocalDNSProps | None = None) -> NodeLocalDNSProps:
    """The props of one (already merged) values mapping, over ``base`` (default: the spec's props).

    Every prop given replaces ``base``'s, except that a mapping for a dataclass prop changes
    only the fields it names (of ``base``'s value, or of the field's default). Raises
    :class:`ValuesError` naming the key path and the reason.
    """
    from constructs_nld.nodelocaldns import NodeLocalDNSProps

    if not isinstance(mapping, Mapping):
        raise ValuesError(f"values: must be a mapping of props to values, got {_type_name(mapping)}")
    props: NodeLocalDNSProps = _build(NodeLocalDNSProps, mapping, (), base)
    return props


def _source_of(path: tuple[str | int, ...], layers: Sequence[ValuesLayer]) -> str | None:
    """The last layer that sets ``path`` or a key on the way to it: where a refused value came from."""
    keys = [part for part in path if isinstance(part, str)]
    for layer in reversed(layers):
        node: Any = layer.values
        for depth, key in enumerate(keys):
            if not isinstance(node, Mapping) or key not in node:
                break
            node = node[key]
            if depth == len(keys) - 1 or not isinstance(node, Mapping):
                return layer.source
    return None


def props_with_values(
    props: NodeLocalDNSProps | None, paths: Sequence[str | Path], sets: Sequence[str]
) -> NodeLocalDNSProps:
    """``props`` (default: the spec's) with the layers of ``paths`` and ``sets`` applied; errors name the layer."""
    layers = read_layers(paths, sets)
    merged = _merge_layers(layers)
    try:
        return props_from_values(merged, props)
    except ValuesError as error:
        source = _source_of(error.path, layers)
        raise ValuesError(f"{source}: {error}" if source else str(error), error.path) from None


def values_from_props(props: object) -> Any:
    """``props`` as a values mapping (every field), the form :func:`props_from_values` reads back equal."""
    if dataclasses.is_dataclass(props) and not isinstance(props, type):
        return {f.name: values_from_props(getattr(props, f.name)) for f in dataclasses.fields(props) if f.init}
    if isinstance(props, tuple | list):
        return [values_from_props(item) for item in props]
    if isinstance(props, Mapping):
        return {key: values_from_props(item) for key, item in props.items()}
    return props
