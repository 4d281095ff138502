"""``convert``: another deployer's values file, written as this library's values, with what could not be carried.

``nld-deploy convert deliveryhero VALUES_FILE [--output FILE]`` reads the values file of the
deliveryhero ``node-local-dns`` chart, writes the values (to standard output, or to ``FILE``
once the conversion succeeded) and lists every key it could not carry on standard error,
one line each with the reason. The conversion is :mod:`constructs_nld.convert.deliveryhero`;
this module reads and writes the files. Neither the app nor a cluster is touched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

from constructs_nld.convert.deliveryhero import ConversionError, convert, load
from constructs_nld.deploy.command import Tool
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.options import ConvertOptions

__all__ = ["TOOL", "run"]


def _read(path: str) -> str:
    """The text of the values file; a file that cannot be read is one line naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ConversionError(f"{path}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise ConversionError(f"{path}: not UTF-8 text") from None


def _write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file beside it, then renamed over it."""
    target = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise ConversionError(f"--output {path}: cannot be written ({error.strerror or error})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise ConversionError(f"--output {path}: cannot be written ({error.strerror or error})") from None


def run(options: ConvertOptions, write: Callable[[str], None], write_error: Callable[[str], None]) -> ExitCode:
    """Convert ``options.values``; the values go to ``write`` (or the output file), each key not carried to stderr."""
    try:
        conversion = convert(load(_read(options.values), options.values))
        values = conversion.yaml()
        if options.output is not None:
            _write(options.output, values)
    except ConversionError as error:
        write_error(f"error: {error}")
        return ExitCode.INVALID
    if options.output is None:
        write(values.removesuffix("\n"))
    for refusal in conversion.refusals:
        write_error(f"not carried: {refusal.line()}")
    if conversion.refusals:
        write_error(f"{len(conversion.refusals)} not carried; everything else is in the values")
        return ExitCode.NOT_CARRIED
    return ExitCode.OK


TOOL: Final = Tool(ConvertOptions, run)
