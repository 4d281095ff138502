"""The release history's record: encoded, read back, and refused on one line when the cluster holds a bad one."""

from __future__ import annotations

import base64
import gzip
import json
import os
from dataclasses import replace
from typing import Any

import pytest

from constructs_nld.deploy.errors import InvalidConfigError as Refused
from constructs_nld.deploy.history import AppIdentity, History, Revision, _bounded, decode, digest, encode, error_line
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.redact import keep_secret
from constructs_nld.deploy.source import AppChart

CHART = AppChart(
    "0000-team.k8s.yaml",
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "notes", "namespace": "kube-system"}},),
)
REVISION = Revision(
    number=3,
    command="deploy",
    time="2026-12-04T19:00:00Z",
    outcome="succeeded",
    user="ci-deployer",
    app=AppIdentity("sha256:ab", "python main.py", "0123abcd", {"cluster": "east"}),
    tool="1.2.3",
    charts=(CHART,),
)


def packed(record: dict[str, Any]) -> bytes:
    return gzip.compress(json.dumps(record).encode())


def record_of(revision: Revision) -> dict[str, Any]:
    return dict(json.loads(gzip.decompress(encode(revision))))


def test_a_revision_reads_back_as_it_was_written() -> None:
    assert decode(3, encode(REVISION)) == REVISION
    rolled = replace(REVISION, command="rollback", restored=1, outcome="failed", error="boom", charts=None)
    assert decode(3, encode(rolled)) == rolled


def test_the_same_revision_encodes_to_the_same_bytes() -> None:
    assert encode(REVISION) == encode(replace(REVISION))


def test_the_digest_changes_with_an_object_and_not_with_key_order() -> None:
    reordered = AppChart(CHART.name, ({"metadata": {"namespace": "kube-system", "name": "notes"}, "kind": "ConfigMap",
                                       "apiVersion": "v1"},))  # fmt: skip
    changed = AppChart(CHART.name, ({**CHART.objects[0], "data": {"a": "b"}},))

    assert digest([CHART]) == digest([reordered])
    assert digest([CHART]) != digest([changed])
    assert digest([CHART]).startswith("sha256:")


def test_a_registered_secret_never_lands_in_an_error_line() -> None:
    keep_secret("s3cr3t-token-value")

    line = error_line(RuntimeError("refused with Bearer abc and s3cr3t-token-value\nsecond line"))

    assert "s3cr3t-token-value" not in line and "abc" not in line and "\n" not in line


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not gzip", "not gzip"),
        (gzip.compress(b"{"), "not JSON"),
        (gzip.compress(b"[]"), "holds list, expected an object"),
        (gzip.compress(b"x" * 10)[:-4], "truncated gzip"),
    ],
)
def test_fails_when_the_bytes_are_no_record(data: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=rf"^{reason}"):
        decode(3, data)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"format": 2}, "format 2, this version of the tool reads format 1"),
        ({"revision": 4}, "says revision 4, stored as v3"),
        ({"revision": True}, "'revision' is bool, expected int"),
        ({"outcome": "maybe"}, "'outcome' is 'maybe', expected 'succeeded' or 'failed'"),
        ({"time": "yesterday"}, "'time' is 'yesterday', not an RFC 3339 time"),
        ({"user": 7}, "'user' is int, expected str"),
        ({"extra": 1}, "unknown field\\(s\\) extra"),
        ({"app": {"digest": "x"}}, "'app' has fields digest, expected command, commit, digest, inputs"),
        ({"charts": {"a": 1}}, "'charts' is dict, expected a list"),
        ({"charts": [{"name": "c", "objects": [{"kind": "ConfigMap"}]}]}, "charts\\[0\\].objects\\[0\\] is not a"),
    ],
)
def test_fails_when_a_field_is_not_as_written(change: dict[str, Any], reason: str) -> None:
    with pytest.raises(ValueError, match=rf"^{reason}"):
        decode(3, packed({**record_of(REVISION), **change}))


def test_rollback_takes_the_newest_success_before_the_latest_by_default() -> None:
    ref = ObjectRef("v1", "ConfigMap", "kube-system", "node-local-dns-history")
    first = replace(REVISION, number=1)
    failed = replace(REVISION, number=2, outcome="failed", error="stalled")
    removed = replace(REVISION, number=3, command="uninstall", charts=())
    history = History(ref, (first, failed, removed))

    assert history.restorable(None) is first
    with pytest.raises(Refused, match=r"^rollback: revision 2 failed \(stalled\): only a success is restored$"):
        history.restorable(2)
    with pytest.raises(Refused, match=r"^rollback: revision 3 is an uninstall: it applied nothing to restore$"):
        history.restorable(3)
    with pytest.raises(Refused, match=r"^rollback: revision 9 is not in the history \(revisions kept: 1, 2, 3\)"):
        history.restorable(9)
    too_large = History(ref, (replace(first, charts=None), replace(REVISION, number=2)))
    with pytest.raises(Refused, match=r"^rollback: revision 1 was too large to keep its objects"):
        too_large.restorable(1)


def stored(*revisions: Revision) -> History:
    """A history as read from a ConfigMap holding ``revisions``."""
    ref = ObjectRef("v1", "ConfigMap", "kube-system", "node-local-dns-history")
    data = {f"v{r.number}": base64.b64encode(encode(r)).decode() for r in revisions}
    return History(ref, revisions, {"metadata": {"resourceVersion": "1"}, "binaryData": data})


def test_the_history_keeps_the_newest_history_max_revisions() -> None:
    old = [replace(REVISION, number=number) for number in (1, 2, 3)]

    kept, new, dropped = _bounded(stored(*old), replace(REVISION, number=4), 2)

    assert (sorted(kept), dropped, new.charts) == ([3, 4], [1, 2], REVISION.charts)


def test_a_revision_too_large_alone_is_kept_without_its_objects_and_older_ones_make_room() -> None:
    noise = base64.b64encode(os.urandom(1_500_000)).decode()  # incompressible: well over the cap once packed
    large = AppChart("0000-big.k8s.yaml", ({**CHART.objects[0], "data": {"blob": noise}},))
    old = replace(REVISION, number=1)

    kept, new, dropped = _bounded(stored(old), replace(REVISION, number=2, charts=(large,)), 10)

    assert new.charts is None and sorted(kept) == [1, 2] and dropped == []
    assert decode(2, kept[2]).charts is None
