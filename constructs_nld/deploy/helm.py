"""A Helm release handed over in place: its records read, and rewritten so ``helm uninstall`` keeps our objects.

A team on the deliveryhero chart runs NodeLocal DNSCache as a Helm release. Its objects that
share a name with the app's (the DaemonSet, the ConfigMap, the ServiceAccount
``node-local-dns``) become ours on ``deploy --adopt-helm-release``; the old release is then
uninstalled. ``helm uninstall`` deletes what the release's *record* lists (the manifest of
its last revision), whatever the live objects say, except a document that carries
``helm.sh/resource-policy: keep``. So before it writes any object, the deploy rewrites every
revision's record: each document naming an object of the app gets that annotation, and
nothing else of the record changes. The uninstall then deletes the release's other objects
(its Services, a ServiceMonitor) and prints what it kept.

A record is Helm's storage driver's: a Secret (the default driver) or a ConfigMap named
``sh.helm.release.v1.<release>.v<revision>``, labelled ``owner=helm,name=<release>``, whose
``release`` is the release as JSON, gzipped, base64 (a Secret's data is base64 once more).
What a record holds is input: each field read is checked, and a malformed record refuses
the deploy on one line before anything is written.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import yaml

from constructs_nld.deploy.errors import PreconditionError
from constructs_nld.deploy.kube import KubeClient, ObjectRef
from constructs_nld.deploy.options import HelmDriver, check_release_name

__all__ = [
    "HELM_FIELD_MANAGER",
    "KEEP_POLICY",
    "MAX_RELEASE_BYTES",
    "RELEASE_NAMESPACE_ANNOTATION",
    "RELEASE_NAME_ANNOTATION",
    "HelmRecordError",
    "Record",
    "decode_release",
    "encode_release",
    "keep_in_manifest",
    "manifest_documents",
    "read_records",
    "record_patch",
    "release_of",
]

RELEASE_NAME_ANNOTATION: Final = "meta.helm.sh/release-name"
"""What Helm writes on every object of a release: the release's name ..."""
RELEASE_NAMESPACE_ANNOTATION: Final = "meta.helm.sh/release-namespace"
"""... and its namespace."""
KEEP_POLICY: Final = "helm.sh/resource-policy"
"""A manifest document whose annotation says ``keep`` is left in place by ``helm uninstall``."""
HELM_FIELD_MANAGER: Final = "helm"
"""The field manager of Helm's writes (its ``Update`` in Helm 3, its ``Apply`` in Helm 4)."""
MAX_RELEASE_BYTES: Final = 16 * 1024 * 1024
"""The most a record's release may take once unzipped: a record is at most 1 MiB zipped; more is a gzip bomb."""

_GZIP_MAGIC: Final = b"\x1f\x8b\x08"
_SPLIT: Final = re.compile(r"((?:^|\s*\n)---\s*)")
"""Helm's own split of a release's manifest into documents (``releaseutil.SplitManifests``), separators kept."""
_RECORD_NAME: Final = re.compile(r"^sh\.helm\.release\.v1\.(?P<release>.+)\.v(?P<revision>[1-9][0-9]{0,8})$")


class HelmRecordError(ValueError):
    """A Helm release record this run cannot read: the message says which and why."""


def release_of(live: Mapping[str, Any]) -> tuple[str, str] | None:
    """The Helm release (name, namespace) a live object's annotations name, or None; malformed ones refused."""
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    name = annotations.get(RELEASE_NAME_ANNOTATION)
    if name is None:
        return None
    namespace = annotations.get(RELEASE_NAMESPACE_ANNOTATION)
    ref = ObjectRef.of(live)
    if not isinstance(name, str) or not isinstance(namespace, str):
        raise PreconditionError(f"{ref}: its Helm annotations are not both strings: nothing applied")
    try:
        check_release_name(name)
    except ValueError:
        raise PreconditionError(
            f"{ref}: its {RELEASE_NAME_ANNOTATION} {name[:80]!r} is not a Helm release name: nothing applied"
        ) from None
    return name, namespace


def decode_release(text: str) -> dict[str, Any]:
    """A record's release: base64, gunzipped when it is gzip (as Helm writes it), JSON; each step checked."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise HelmRecordError("its release is not base64") from None
    if raw[:3] == _GZIP_MAGIC:
        inflater = zlib.decompressobj(wbits=31)
        try:
            raw = inflater.decompress(raw, MAX_RELEASE_BYTES + 1)
        except zlib.error:
            raise HelmRecordError("its release is not valid gzip") from None
        if len(raw) > MAX_RELEASE_BYTES or inflater.unconsumed_tail:
            raise HelmRecordError(f"its release unzips to more than {MAX_RELEASE_BYTES} bytes")
    try:
        release = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise HelmRecordError("its release is not JSON") from None
    if not isinstance(release, dict):
        raise HelmRecordError("its release is not a JSON object")
    if not isinstance(release.get("manifest"), str):
        raise HelmRecordError("its release has no manifest")
    return release


def encode_release(release: Mapping[str, Any]) -> str:
    """A release as Helm's drivers store it: JSON, gzipped at the best compression, base64."""
    data = json.dumps(release, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode()


def keep_in_manifest(manifest: str, keep: Iterable[ObjectRef], namespace: str) -> tuple[str, list[str]]:
    """``manifest`` with ``helm.sh/resource-policy: keep`` on each document naming one of ``keep``; and what it marked.

    A document is matched by kind, name and namespace (the release's, when it names none).
    Every other document, and every separator, stays as it was, byte for byte; a marked
    document keeps its leading comments (Helm's ``# Source:`` line). A document that is not
    YAML refuses: Helm could not read it either.
    """
    wanted = {(ref.kind, ref.namespace, ref.name) for ref in keep}
    parts = _SPLIT.split(manifest)
    marked: list[str] = []
    for index in range(0, len(parts), 2):
        text = parts[index]
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            raise HelmRecordError("a document of its manifest is not YAML") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
            continue
        metadata = doc["metadata"]
        identity = (doc.get("kind"), metadata.get("namespace") or namespace, metadata.get("name"))
        if identity not in wanted:
            continue
        label = f"{identity[0]} {identity[2]}"
        annotations = metadata.get("annotations")
        if not isinstance(annotations, dict):
            annotations = metadata["annotations"] = {}
        if annotations.get(KEEP_POLICY) == "keep":
            continue
        annotations[KEEP_POLICY] = "keep"
        comments = [line for line in text.splitlines() if line.startswith("#")]
        leading = "".join(f"{line}\n" for line in comments[: _leading_comments(text)])
        parts[index] = leading + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False).rstrip("\n")
        marked.append(label)
    return "".join(parts), marked


def manifest_documents(manifest: str) -> list[dict[str, Any]]:
    """The mappings of a release's manifest, in order (empty documents and comments skipped)."""
    found = []
    for text in _SPLIT.split(manifest)[::2]:
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            raise HelmRecordError("a document of its manifest is not YAML") from None
        if isinstance(doc, dict):
            found.append(doc)
    return found


def _leading_comments(text: str) -> int:
    """How many lines at the start of ``text`` (blank ones skipped) are comments."""
    count = 0
    for line in text.splitlines():
        if line.startswith("#"):
            count += 1
        elif line.strip():
            break
    return count


@dataclass(frozen=True)
class Record:
    """One revision's record of a Helm release, as read, and its release."""

    ref: ObjectRef
    revision: int
    resource_version: str
    release: dict[str, Any]
    driver: HelmDriver


def _record(obj: Mapping[str, Any], driver: HelmDriver, name: str, namespace: str) -> Record:
    ref = ObjectRef.of(obj)
    where = f"Helm release {namespace}/{name}: record {ref.name}"
    matched = _RECORD_NAME.match(ref.name)
    if matched is None or matched["release"] != name:
        raise PreconditionError(f"{where}: not a record of this release by its name: nothing applied")
    data = obj.get("data") or {}
    text = data.get("release")
    if not isinstance(text, str):
        raise PreconditionError(f"{where}: it has no release: nothing applied")
    try:
        if driver == "secret":
            try:
                text = base64.b64decode(text, validate=True).decode("ascii")
            except (binascii.Error, ValueError):
                raise HelmRecordError("its data is not base64") from None
        release = decode_release(text)
    except HelmRecordError as error:
        raise PreconditionError(f"{where}: {error}: nothing applied") from None
    if release.get("name") != name or release.get("namespace") != namespace:
        raise PreconditionError(f"{where}: its release names another release: nothing applied")
    if release.get("version") != int(matched["revision"]):
        raise PreconditionError(f"{where}: its release is another revision: nothing applied")
    version = str((obj.get("metadata") or {}).get("resourceVersion") or "")
    return Record(ref, int(matched["revision"]), version, release, driver)


def read_records(client: KubeClient, name: str, namespace: str, driver: HelmDriver) -> list[Record]:
    """Every revision's record of release ``namespace/name`` by ``driver``, oldest first; each checked."""
    kind = "Secret" if driver == "secret" else "ConfigMap"
    found = client.list("v1", kind, namespace, label_selector=f"owner=helm,name={name}")
    if driver == "secret":
        found = [obj for obj in found if obj.get("type") == "helm.sh/release.v1"]
    return sorted((_record(obj, driver, name, namespace) for obj in found), key=lambda record: record.revision)


def record_patch(record: Record, release: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A JSON patch writing ``release`` into ``record``, guarded by the resourceVersion it was read at."""
    text = encode_release(release)
    if record.driver == "secret":
        text = base64.b64encode(text.encode()).decode()
    return [
        {"op": "test", "path": "/metadata/resourceVersion", "value": record.resource_version},
        {"op": "replace", "path": "/data/release", "value": text},
    ]
