"""The cutover's model: pools, the canary's choice, the state on the DaemonSet (pure: no cluster)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from constructs_nld import defaults
from constructs_nld.deploy.cutover import (
    CanaryNode,
    CutoverState,
    choose_canary,
    pool_of,
    state_of,
    template_hash,
    with_on_delete,
)
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.options import CutoverOptions

REF: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "node-local-dns", "namespace": "kube-system"},
}
STATE = CutoverState(
    template="0123456789abcdef",
    old_revision="6d5b8c7f9",
    canary=(CanaryNode("gpu", "gpu-1"), CanaryNode("cpu", "cpu-1")),
    started="2026-12-02T03:00:00Z",
    old_strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "1%"}},
)


def node(name: str, taints: list[dict[str, str]], **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}}


def test_a_pool_is_its_lasting_taints_and_pool_labels() -> None:
    gpu = node(
        "gpu-1",
        [
            {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
            {"key": "node-fleet", "value": "gpu", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
            {"key": "karpenter.sh/disrupted", "effect": "NoSchedule"},
            {"key": "ToBeDeletedByClusterAutoscaler", "value": "1", "effect": "NoSchedule"},
        ],
        **{"node.kubernetes.io/instance-type": "p5.48xlarge", "kubernetes.io/hostname": "gpu-1"},
    )

    assert pool_of(gpu) == (
        "node-fleet=gpu:NoSchedule,nvidia.com/gpu=true:NoSchedule,node.kubernetes.io/instance-type=p5.48xlarge"
    )
    assert pool_of(node("plain", [])) == "(no taints, no pool labels)"


def test_by_default_the_canary_is_one_node_of_every_pool_the_first_by_name() -> None:
    nodes = [CanaryNode(pool, f"{pool}-{i}") for pool in ("gpu", "cpu", "base") for i in (3, 1, 2)]

    assert choose_canary(nodes) == (
        CanaryNode("base", "base-1"),
        CanaryNode("cpu", "cpu-1"),
        CanaryNode("gpu", "gpu-1"),
    )
    assert [n.name for n in choose_canary(nodes, 5)] == ["base-1", "cpu-1", "gpu-1", "base-2", "cpu-2"]
    assert [n.name for n in choose_canary(nodes, 2)] == ["base-1", "cpu-1"]


@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 30)), min_size=1, unique=True),
    st.integers(1, 40),
    st.randoms(use_true_random=False),
)
def test_the_choice_is_the_same_in_any_order_spreads_over_the_pools_and_takes_what_is_asked(
    entries: list[tuple[str, int]], count: int, random: Any
) -> None:
    nodes = [CanaryNode(pool, f"{pool}-{i}") for pool, i in entries]
    shuffled = list(nodes)
    random.shuffle(shuffled)
    if count > len(nodes):
        with pytest.raises(InvalidConfigError, match=f"--canary-nodes: {count} nodes asked for, but only"):
            choose_canary(nodes, count)
        return

    chosen = choose_canary(nodes, count)

    assert chosen == choose_canary(shuffled, count)
    assert len(chosen) == count == len(set(chosen))
    per_pool = {pool: sum(1 for n in chosen if n.pool == pool) for pool in {n.pool for n in nodes}}
    sizes = {pool: sum(1 for n in nodes if n.pool == pool) for pool in per_pool}
    # Round robin: a pool is short of the most-served by more than one node only when it has no more to give.
    most = max(per_pool.values())
    assert all(per_pool[pool] >= most - 1 or per_pool[pool] == sizes[pool] for pool in per_pool), per_pool


def test_a_canary_of_no_node_is_refused() -> None:
    with pytest.raises(InvalidConfigError, match=r"^--canary-nodes: must be at least 1, got 0$"):
        choose_canary([CanaryNode("a", "a-1")], 0)
    with pytest.raises(ValueError, match=r"^canary_nodes: must be at least 1, got 0$"):
        CutoverOptions(canary_nodes=0)
    with pytest.raises(ValueError, match=r"^window: must be a positive number of seconds, got 0$"):
        CutoverOptions(window=0)


def test_the_state_round_trips_through_the_annotation() -> None:
    annotated = {
        **REF,
        "metadata": {**REF["metadata"], "annotations": {defaults.CUTOVER_ANNOTATION: STATE.to_annotation()}},
    }

    assert state_of(annotated) == STATE
    assert state_of(REF) is None
    assert state_of(None) is None
    assert json.loads(STATE.to_annotation())["version"] == 1


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "Expecting value"),
        (json.dumps({"version": 2}), "version 1 expected"),
        (STATE.to_annotation().replace('"canary":[', '"canary":[{"pool":"x"},'), "'name'"),
        (STATE.but(canary=()).to_annotation(), "no canary node"),
        (STATE.but(started="").to_annotation(), "started missing"),
    ],
    ids=["json", "version", "node", "no-canary", "no-start"],
)
def test_an_annotation_that_is_no_cutover_state_is_refused_saying_how_to_remove_it(text: str, why: str) -> None:
    annotated = {**REF, "metadata": {**REF["metadata"], "annotations": {defaults.CUTOVER_ANNOTATION: text}}}

    with pytest.raises(InvalidConfigError) as refused:
        state_of(annotated)

    message = str(refused.value)
    assert message.startswith(f"daemonset/kube-system/node-local-dns: annotation {defaults.CUTOVER_ANNOTATION}: ")
    assert why in message
    assert message.endswith(
        "it is not a cutover's state; if no cutover is in progress, remove it with "
        f"'kubectl annotate daemonset -n kube-system node-local-dns {defaults.CUTOVER_ANNOTATION}-'"
    )


_NESTED = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (_NESTED, "nested deeper than 32 levels"),
        ('{"version":1,"x":' + _NESTED + "}", "nested deeper than 32 levels"),
        ('{"a":"[{[{","b":' + "[" * 32 + "]" * 32 + "}", "nested deeper than 32 levels"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 32 levels"),
        ("x" * (256 * 1024 + 1), "not a string of at most 262144 characters"),
        (STATE.to_annotation().replace('"forced":false', '"forced":"no"'), "forced: a JSON bool expected, got str"),
        (STATE.to_annotation().replace('"forced":false', '"forced":false,"extra":1'), "unknown field 'extra'"),
        (STATE.but(template="../x").to_annotation(), "template: not a template digest"),
        (STATE.but(old_revision="a/b").to_annotation(), "old_revision: not a controller-revision-hash"),
        (STATE.but(new_revision="A").to_annotation(), "new_revision: not a controller-revision-hash"),
        (STATE.but(canary=(CanaryNode("x", "../node"),)).to_annotation(), "canary node '../node': not a node name"),
        (STATE.but(canary=(CanaryNode("a\nb", "n"),)).to_annotation(), "canary node n: its pool is not a line of text"),
        (STATE.to_annotation().replace('"pool":"gpu"', '"pool":"gpu","x":1'), "an object of a pool and a name"),
        (STATE.but(started="yesterday").to_annotation(), "started: 'yesterday' is not a time as YYYY-MM-DDTHH:MM:SSZ"),
        (STATE.but(promoted="2026-12-02T02:59:59Z").to_annotation(), "is before started 2026-12-02T03:00:00Z"),
        (
            STATE.but(
                old_strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "1%", "x": 1}}
            ).to_annotation(),
            "old_strategy: not a DaemonSet's updateStrategy",
        ),
        (
            STATE.but(old_strategy={"type": "Recreate"}).to_annotation(),
            "old_strategy: not a DaemonSet's updateStrategy",
        ),
        (
            STATE.but(old_strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "101%"}}).to_annotation(),
            "old_strategy: maxSurge is neither a count nor a percentage",
        ),
        (
            STATE.but(old_strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": True}}).to_annotation(),
            "old_strategy: maxSurge is neither a count nor a percentage",
        ),
    ],
    ids=[
        "deep-array",
        "deep-field",
        "deep-after-string",
        "too-deep",
        "too-long",
        "type",
        "unknown",
        "template",
        "old-rev",
        "new-rev",
        "node-name",
        "pool-newline",
        "node-field",
        "started",
        "promoted",
        "strategy-key",
        "strategy-type",
        "percent",
        "bool-count",
    ],
)
def test_a_state_is_read_strictly_and_refused_on_one_line(text: str, why: str) -> None:
    annotated = {**REF, "metadata": {**REF["metadata"], "annotations": {defaults.CUTOVER_ANNOTATION: text}}}

    with pytest.raises(InvalidConfigError) as refused:
        state_of(annotated)

    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"daemonset/kube-system/node-local-dns: annotation {defaults.CUTOVER_ANNOTATION}: ")
    assert why in message


def _at(time: str, **metadata: Any) -> dict[str, Any]:
    return {
        **REF,
        "metadata": {
            **REF["metadata"],
            **metadata,
            "annotations": {defaults.CUTOVER_ANNOTATION: STATE.but(started=time).to_annotation()},
        },
    }


def test_brackets_inside_strings_are_not_nesting() -> None:
    state = STATE.but(canary=(CanaryNode('[{"\\' * 20, "n"),))
    annotated = {
        **REF,
        "metadata": {**REF["metadata"], "annotations": {defaults.CUTOVER_ANNOTATION: state.to_annotation()}},
    }

    assert state_of(annotated) == state


def test_a_start_in_the_future_by_the_api_servers_clock_is_refused() -> None:
    now = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC).timestamp()

    assert state_of(_at("2026-12-02T03:00:01Z"), now=now) is not None  # whole seconds: the same moment
    with pytest.raises(
        InvalidConfigError, match=r"started 2026-12-02T03:00:02Z is in the future by the API server's clock"
    ):
        state_of(_at("2026-12-02T03:00:02Z"), now=now)


def test_a_start_before_the_daemon_set_existed_is_refused() -> None:
    created = {"creationTimestamp": "2026-11-01T00:00:00Z"}

    assert state_of(_at("2026-11-01T00:00:00Z", **created)) is not None
    with pytest.raises(
        InvalidConfigError,
        match=r"started 1970-01-01T00:00:00Z is before the DaemonSet was created \(2026-11-01T00:00:00Z\)",
    ):
        state_of(_at("1970-01-01T00:00:00Z", **created))


def test_a_state_an_earlier_release_wrote_with_the_old_template_is_read_without_it() -> None:
    data = json.loads(STATE.to_annotation())
    data["old_template"] = {"spec": {"containers": [{"name": "node-cache", "image": "evil"}]}}
    annotated = {**REF, "metadata": {**REF["metadata"], "annotations": {defaults.CUTOVER_ANNOTATION: json.dumps(data)}}}

    assert state_of(annotated) == STATE


def test_the_template_digest_ignores_key_order_and_on_delete_leaves_the_app_alone() -> None:
    app: dict[str, Any] = {"spec": {"updateStrategy": {"type": "RollingUpdate"}, "template": {"b": 1, "a": [1, 2]}}}

    assert template_hash({"a": [1, 2], "b": 1}) == template_hash(app["spec"]["template"])
    assert template_hash({"a": [2, 1], "b": 1}) != template_hash(app["spec"]["template"])
    assert with_on_delete(app)["spec"]["updateStrategy"] == {"type": "OnDelete"}
    assert app["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
