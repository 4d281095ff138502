"""The test nodes' container images, built here without a registry: pause, and node-cache's.

Each image is one uncompressed layer written as an OCI image archive (``index.json``,
``oci-layout`` and the blobs), which ``ctr images import`` loads under the name the
manifests use, so a kubelet with ``imagePullPolicy: IfNotPresent`` never pulls.

- **pause**: :file:`pause.c` of this directory, our own, built static with gcc.
- **node-cache**: the image's contents as the "What the node-cache image contains" of docs/interception-modes.md
  lists them: ``/node-cache`` (the binary the data-plane tests find, never built or
  committed here), Debian bookworm's iptables 1.8.9 with its xtables modules and libraries,
  dash as ``/bin/sh`` and the few coreutils the image stages, all copied from this
  machine's Debian 12, and the distroless base's ``/tmp`` (1777), where node-cache's
  ``-pidfile`` goes. ``ip6tables*`` and ``iptables*`` link to ``xtables-nft-multi``, the
  backend the image's iptables-wrapper picks on a node whose rules are nft's, as here.

Archives are built once per directory and reused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

__all__ = [
    "NODE_CACHE_IMAGE_PROGRAMS",
    "PAUSE_IMAGE",
    "ImageArchive",
    "node_cache_image",
    "pause_image",
]

PAUSE_IMAGE: Final = "registry.k8s.io/pause:3.10"
"""The sandbox image containerd is configured with (``sandbox_image``)."""

NODE_CACHE_IMAGE_PROGRAMS: Final = (
    "/usr/sbin/xtables-nft-multi",
    "/usr/sbin/xtables-legacy-multi",
    "/usr/bin/dash",
    "/usr/bin/cat",
    "/usr/bin/chmod",
    "/usr/bin/grep",
    "/usr/bin/ln",
    "/usr/bin/rm",
    "/usr/bin/sleep",
    "/usr/bin/wc",
)
"""Programs of the image besides ``/node-cache``, with their libraries (``ldd``)."""

_XTABLES_LINKS: Final = tuple(
    f"{family}{suffix}" for family in ("ip6tables", "iptables") for suffix in ("", "-save", "-restore")
)
_MERGED_USR: Final = ("bin", "sbin", "lib", "lib64")
"""Debian 12's merged ``/usr``: these are links into ``usr/``, in the image as on the host."""
_PAUSE_SOURCE: Final = Path(__file__).with_name("pause.c")
_LDD_PATH = re.compile(r"(?:=> )?(/\S+) \(0x")
_EPOCH: Final = 0


@dataclass(frozen=True)
class ImageArchive:
    """An OCI image archive on disk and the name it is imported under."""

    name: str
    path: Path


class _Layer:
    """The entries of one layer: directories, files and links under their image paths."""

    def __init__(self) -> None:
        self.entries: dict[str, tarfile.TarInfo] = {}
        self.contents: dict[str, bytes] = {}

    def _directory(self, path: PurePosixPath) -> None:
        for parent in reversed(path.parents):
            name = str(parent).lstrip("/")
            if name and name not in self.entries:
                info = tarfile.TarInfo(name)
                info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, _EPOCH
                self.entries[name] = info

    def add_directory(self, path: str, mode: int) -> None:
        """A directory at ``path`` with ``mode`` (``/tmp``'s sticky 1777)."""
        pure = PurePosixPath(path)
        self._directory(pure)
        info = tarfile.TarInfo(str(pure).lstrip("/"))
        info.type, info.mode, info.mtime = tarfile.DIRTYPE, mode, _EPOCH
        self.entries[info.name] = info

    def add_bytes(self, path: str, data: bytes, mode: int = 0o755) -> None:
        """A regular file at ``path`` holding ``data``."""
        pure = PurePosixPath(path)
        self._directory(pure)
        info = tarfile.TarInfo(str(pure).lstrip("/"))
        info.size, info.mode, info.mtime = len(data), mode, _EPOCH
        self.entries[info.name] = info
        self.contents[info.name] = data

    def add_link(self, path: str, target: str) -> None:
        """A symbolic link at ``path`` to ``target``."""
        pure = PurePosixPath(path)
        self._directory(pure)
        info = tarfile.TarInfo(str(pure).lstrip("/"))
        info.type, info.linkname, info.mode, info.mtime = tarfile.SYMTYPE, target, 0o777, _EPOCH
        self.entries[info.name] = info

    def add_host_path(self, path: str) -> None:
        """``path`` of this machine as it is, under the same name: a link and what it points to, or a file."""
        real_parent = os.path.realpath(os.path.dirname(path))
        here = os.path.join(real_parent, os.path.basename(path))
        if here.lstrip("/") in self.entries:
            return
        if os.path.islink(here):
            target = os.readlink(here)
            self.add_link(here, target)
            self.add_host_path(os.path.normpath(os.path.join(real_parent, target)))
            return
        self.add_bytes(here, Path(here).read_bytes(), os.stat(here).st_mode & 0o7777)

    def tar(self) -> bytes:
        """The layer as an uncompressed tar, entries in path order."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
            for name in sorted(self.entries):
                data = self.contents.get(name)
                archive.addfile(self.entries[name], io.BytesIO(data) if data is not None else None)
        return buffer.getvalue()


def _shared_libraries(programs: Iterable[str]) -> set[str]:
    """Every library ``ldd`` says ``programs`` load, the dynamic loader among them."""
    libraries: set[str] = set()
    for program in programs:
        done = subprocess.run(["ldd", program], capture_output=True, text=True, check=False)
        if done.returncode == 0:
            libraries.update(_LDD_PATH.findall(done.stdout))
    return libraries


def _blob(directory: Path, data: bytes) -> dict[str, object]:
    digest = hashlib.sha256(data).hexdigest()
    (directory / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    (directory / "blobs" / "sha256" / digest).write_bytes(data)
    return {"digest": f"sha256:{digest}", "size": len(data)}


def _write_archive(path: Path, name: str, layer: _Layer, entrypoint: list[str]) -> ImageArchive:
    """The OCI image archive of ``layer`` at ``path``: one layer, ``entrypoint``, named ``name``.

    Written beside ``path`` under this process's id and renamed into place, so test processes
    that build the same image at once each find a whole archive.
    """
    staging = path.with_suffix(f".{os.getpid()}.d")
    staging.mkdir(parents=True, exist_ok=True)
    tar = layer.tar()
    layer_blob = _blob(staging, tar)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "Entrypoint": entrypoint,
            "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
        },
        "rootfs": {"type": "layers", "diff_ids": [layer_blob["digest"]]},
    }
    config_blob = _blob(staging, json.dumps(config, sort_keys=True).encode())
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", **config_blob},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", **layer_blob}],
    }
    manifest_blob = _blob(staging, json.dumps(manifest, sort_keys=True).encode())
    index = {
        "schemaVersion": 2,
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                **manifest_blob,
                "annotations": {"io.containerd.image.name": name, "org.opencontainers.image.ref.name": name},
            }
        ],
    }
    (staging / "index.json").write_text(json.dumps(index))
    (staging / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    partial = path.with_suffix(f".{os.getpid()}.tar")
    with tarfile.open(partial, "w") as archive:
        for item in sorted(staging.rglob("*")):
            if item.is_file():
                archive.add(item, arcname=str(item.relative_to(staging)))
    shutil.rmtree(staging)
    partial.replace(path)
    return ImageArchive(name, path)


def pause_image(directory: Path) -> ImageArchive:
    """The sandbox image: :file:`pause.c` built static, as ``/pause``."""
    path = directory / "pause.tar"
    if path.exists():
        return ImageArchive(PAUSE_IMAGE, path)
    directory.mkdir(parents=True, exist_ok=True)
    binary = directory / f"pause.{os.getpid()}"
    subprocess.run(["gcc", "-O2", "-static", "-o", str(binary), str(_PAUSE_SOURCE)], check=True, capture_output=True)
    layer = _Layer()
    layer.add_bytes("/pause", binary.read_bytes())
    binary.unlink()
    return _write_archive(path, PAUSE_IMAGE, layer, ["/pause"])


def node_cache_image(directory: Path, *, name: str, node_cache: Path) -> ImageArchive:
    """node-cache's image under ``name``: ``/node-cache`` (from ``node_cache``) and Debian 12's iptables and dash."""
    path = directory / f"node-cache-{hashlib.sha256(name.encode()).hexdigest()[:12]}.tar"
    if path.exists():
        return ImageArchive(name, path)
    directory.mkdir(parents=True, exist_ok=True)
    layer = _Layer()
    for top in _MERGED_USR:
        layer.add_link(f"/{top}", f"usr/{top}")
    layer.add_bytes("/node-cache", node_cache.read_bytes())
    modules = sorted(str(p) for p in Path("/usr/lib/x86_64-linux-gnu/xtables").glob("*.so"))
    for program in (*NODE_CACHE_IMAGE_PROGRAMS, *modules, *sorted(_shared_libraries(NODE_CACHE_IMAGE_PROGRAMS))):
        layer.add_host_path(program)
    for library in sorted(_shared_libraries(modules)):
        layer.add_host_path(library)
    for link in _XTABLES_LINKS:
        layer.add_link(f"/usr/sbin/{link}", "xtables-nft-multi")
    layer.add_link("/usr/bin/sh", "dash")
    for data_file in ("/etc/protocols", "/etc/ethertypes"):
        if Path(data_file).exists():
            layer.add_host_path(data_file)
    # As in the distroless base: node-cache's -pidfile is /tmp/node-cache.pid.
    layer.add_directory("/tmp", 0o1777)
    layer.add_directory("/run", 0o755)
    layer.add_directory("/etc", 0o755)
    return _write_archive(path, name, layer, ["/node-cache"])
