"""A Helm release's records, read and rewritten as Helm's storage drivers write them; each malformed one refused."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from constructs_nld.deploy.errors import PreconditionError
from constructs_nld.deploy.helm import (
    MAX_RELEASE_BYTES,
    HelmRecordError,
    decode_release,
    encode_release,
    keep_in_manifest,
    release_of,
)
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.options import DeployOptions

MANIFEST = """---
# Source: node-local-dns/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: node-local-dns
  namespace: kube-system
---
# Source: node-local-dns/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name:   node-local-dns      # odd spacing, kept as it is
  namespace: kube-system
---
# Source: node-local-dns/templates/daemonset.yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-local-dns
  annotations:
    owner: chart
"""
OURS = [
    ObjectRef("v1", "ServiceAccount", "kube-system", "node-local-dns"),
    ObjectRef("apps/v1", "DaemonSet", "kube-system", "node-local-dns"),
    ObjectRef("v1", "Service", "kube-system", "kube-dns-upstream"),
]


def test_the_apps_documents_are_marked_keep_and_every_other_byte_stays() -> None:
    marked_text, marked = keep_in_manifest(MANIFEST, OURS, "kube-system")

    assert marked == ["ServiceAccount node-local-dns", "DaemonSet node-local-dns"]
    service = MANIFEST.split("---\n")[2]
    assert service in marked_text  # the chart's own Service: byte for byte
    documents = marked_text.split("---\n")
    assert documents[1].startswith("# Source: node-local-dns/templates/serviceaccount.yaml\n")
    assert "helm.sh/resource-policy: keep" in documents[1]
    assert "    owner: chart\n    helm.sh/resource-policy: keep" in documents[3]  # the namespace from the release
    assert keep_in_manifest(marked_text, OURS, "kube-system") == (marked_text, [])  # a rerun changes nothing


def test_a_manifest_document_that_is_not_yaml_is_refused() -> None:
    with pytest.raises(HelmRecordError, match="^a document of its manifest is not YAML$"):
        keep_in_manifest("---\nkind: [unclosed\n", OURS, "kube-system")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not base64!", "its release is not base64"),
        (_b64(b"\x1f\x8b\x08 truncated"), "its release is not valid gzip"),
        (_b64(gzip.compress(b"\0" * (MAX_RELEASE_BYTES + 1))), f"unzips to more than {MAX_RELEASE_BYTES} bytes"),
        (_b64(gzip.compress(b"{not json")), "its release is not JSON"),
        (_b64(gzip.compress(b"[1]")), "its release is not a JSON object"),
        (_b64(gzip.compress(b'{"manifest": 3}')), "its release has no manifest"),
    ],
)
def test_a_malformed_release_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(HelmRecordError, match=reason):
        decode_release(text)


def test_a_release_helm_stored_without_gzip_is_read_too() -> None:
    assert decode_release(_b64(json.dumps({"manifest": ""}).encode())) == {"manifest": ""}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(), json_values, max_size=5), st.text())
def test_a_release_reads_back_as_written(fields: dict[str, Any], manifest: str) -> None:
    release = {**fields, "manifest": manifest}

    encoded = encode_release(release)

    assert decode_release(encoded) == release
    assert json.loads(gzip.decompress(base64.b64decode(encoded))) == release  # as Helm decodes it


def live(annotations: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "node-local-dns", "namespace": "kube-system", "annotations": annotations},
    }


def test_the_release_of_an_object_is_read_from_helms_annotations_and_checked() -> None:
    assert release_of(live({})) is None
    names = {"meta.helm.sh/release-name": "nld", "meta.helm.sh/release-namespace": "kube-system"}
    assert release_of(live(names)) == ("nld", "kube-system")
    with pytest.raises(PreconditionError, match=r"its meta.helm.sh/release-name 'No Such!' is not a Helm release name"):
        release_of(live({**names, "meta.helm.sh/release-name": "No Such!"}))
    with pytest.raises(PreconditionError, match="its Helm annotations are not both strings"):
        release_of(live({"meta.helm.sh/release-name": "nld"}))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"adopt_helm_release": "x" * 54}, "is not a Helm release name"),
        ({"adopt_helm_release": "Upper"}, "is not a Helm release name"),
        ({"helm_driver": "sql"}, "helm_driver: must be one of secret, configmap, got 'sql'"),
    ],
)
def test_options_refuse_a_bad_release_name_or_driver(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DeployOptions(**options)
