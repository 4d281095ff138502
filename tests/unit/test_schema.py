"""Every synthesized object against its schema: Kubernetes 1.34 for built-in kinds, the CRDs for monitoring.

Each validator is also shown a broken object, so a pass means the validator looked.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

KUBERNETES_VERSION = "1.34"
CRD_FILES = {
    "PodMonitor": "monitoring.coreos.com_podmonitors.yaml",
    "PrometheusRule": "monitoring.coreos.com_prometheusrules.yaml",
}
BUILT_IN_KINDS = ["Service", "Service", "ServiceAccount", "ConfigMap", "DaemonSet"]


def _strict(schema: Any) -> Any:
    """``schema`` with unknown fields refused, as the API server's strict field validation does.

    CRD schemas leave ``additionalProperties`` open; the API server still prunes (or, with
    ``fieldValidation=Strict``, rejects) fields the schema does not declare.
    """
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    strict = {key: _strict(value) for key, value in schema.items()}
    if (
        "properties" in schema
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        strict["additionalProperties"] = False
    return strict


def _crd_validator(repo_root: Path, kind: str, api_version: str) -> jsonschema.protocols.Validator:
    crd = yaml.safe_load((repo_root.parent / "shared" / "crds" / CRD_FILES[kind]).read_text())
    group, version = api_version.split("/")
    assert crd["spec"]["group"] == group
    assert crd["spec"]["names"]["kind"] == kind
    (served,) = [v for v in crd["spec"]["versions"] if v["name"] == version and v["served"]]
    schema = _strict(served["schema"]["openAPIV3Schema"])
    # OpenAPI v3.0 schemas are JSON Schema draft 4 in their keyword semantics. No
    # check_schema(): one CRD pattern, '^(?i)(abort|warn)?$', is Go regexp syntax that
    # Python's re refuses; it only matters for a field we do not set.
    return jsonschema.Draft4Validator(schema)


def _validate_custom(repo_root: Path, obj: dict[str, Any]) -> None:
    _crd_validator(repo_root, obj["kind"], obj["apiVersion"]).validate(obj)


def _custom_errors(repo_root: Path, obj: dict[str, Any]) -> list[str]:
    """Every schema error of a prometheus-operator object against its CRD, each as ``path: message``."""
    validator = _crd_validator(repo_root, obj["kind"], obj["apiVersion"])
    return [f"{'.'.join(str(p) for p in error.absolute_path)}: {error.message}" for error in validator.iter_errors(obj)]


def _built_in(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [obj for obj in objects if obj["kind"] not in CRD_FILES]


def _custom(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (obj,) = [obj for obj in objects if obj["kind"] == kind]
    return obj


@pytest.fixture(params=["preview", "deployable"])
def objects(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = request.getfixturevalue(f"{request.param}_objects")
    return found


# --- Kubernetes kinds ----------------------------------------------------------------------


def test_kubernetes_validate_has_a_1_34_schema() -> None:
    assert (
        kubernetes_validate.validate(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}, KUBERNETES_VERSION, strict=True
        )
        == KUBERNETES_VERSION
    )


def test_synth_has_the_expected_built_in_kinds(objects: list[dict[str, Any]]) -> None:
    assert [obj["kind"] for obj in _built_in(objects)] == BUILT_IN_KINDS


def test_built_in_objects_validate_strictly_against_kubernetes_1_34(objects: list[dict[str, Any]]) -> None:
    for obj in _built_in(objects):
        assert kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True) == KUBERNETES_VERSION


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "updateStrategy", "rollingUpdate", "maxUnavailable"), {}),
        (("spec", "template", "spec", "hostNetwrok"), True),
        (("spec", "template", "spec", "terminationGracePeriodSeconds"), "30"),
    ],
)
def test_fails_when_daemon_set_is_broken(
    preview_objects: list[dict[str, Any]], path: tuple[str, ...], value: Any
) -> None:
    broken = copy.deepcopy(_custom(preview_objects, "DaemonSet"))
    target = broken
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value

    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_fails_when_service_port_is_not_a_number(preview_objects: list[dict[str, Any]]) -> None:
    broken = copy.deepcopy(preview_objects[0])
    broken["spec"]["ports"][0]["port"] = "fifty-three"

    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


# --- prometheus-operator kinds -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["PodMonitor", "PrometheusRule"])
def test_monitoring_objects_validate_against_their_crd(
    objects: list[dict[str, Any]], repo_root: Path, kind: str
) -> None:
    obj = _custom(objects, kind)

    assert obj["spec"]
    assert _custom_errors(repo_root, obj) == []


def test_fails_when_pod_monitor_interval_is_not_a_duration(
    preview_objects: list[dict[str, Any]], repo_root: Path
) -> None:
    broken = copy.deepcopy(_custom(preview_objects, "PodMonitor"))
    broken["spec"]["podMetricsEndpoints"][0]["interval"] = "5x"

    with pytest.raises(jsonschema.ValidationError, match=r"'5x' does not match"):
        _validate_custom(repo_root, broken)


def test_fails_when_pod_monitor_has_an_unknown_field(preview_objects: list[dict[str, Any]], repo_root: Path) -> None:
    broken = copy.deepcopy(_custom(preview_objects, "PodMonitor"))
    broken["spec"]["podMetricsEndpoint"] = broken["spec"].pop("podMetricsEndpoints")

    with pytest.raises(jsonschema.ValidationError, match=r"'podMetricsEndpoint' was unexpected"):
        _validate_custom(repo_root, broken)


def test_fails_when_relabel_action_is_unknown(preview_objects: list[dict[str, Any]], repo_root: Path) -> None:
    broken = copy.deepcopy(_custom(preview_objects, "PodMonitor"))
    broken["spec"]["podMetricsEndpoints"][0]["metricRelabelings"][0]["action"] = "delete"

    with pytest.raises(jsonschema.ValidationError):
        _validate_custom(repo_root, broken)


def test_fails_when_prometheus_rule_for_is_not_a_duration(
    preview_objects: list[dict[str, Any]], repo_root: Path
) -> None:
    broken = copy.deepcopy(_custom(preview_objects, "PrometheusRule"))
    broken["spec"]["groups"][0]["rules"][0]["for"] = "5x"

    with pytest.raises(jsonschema.ValidationError, match=r"'5x' does not match"):
        _validate_custom(repo_root, broken)


def test_fails_when_prometheus_rule_has_no_expr(preview_objects: list[dict[str, Any]], repo_root: Path) -> None:
    broken = copy.deepcopy(_custom(preview_objects, "PrometheusRule"))
    del broken["spec"]["groups"][0]["rules"][0]["expr"]

    with pytest.raises(jsonschema.ValidationError, match=r"'expr' is a required property"):
        _validate_custom(repo_root, broken)
