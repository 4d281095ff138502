"""The deploy side's readers of manifests: a pod spec's interception mode and keeper, selectors, flags, times."""

from __future__ import annotations

from datetime import UTC, datetime

from constructs_nld.deploy.manifest import created_at, flag, interception_of, keeper_container, selector


def test_interception_is_read_from_node_cache_args() -> None:
    assert interception_of({"containers": [{"name": "node-cache", "args": ["-localip", "fd00::10"]}]}) == "node-cache"
    assert interception_of({"containers": [{"args": ["-localip", "x", "-setupiptables=false"]}]}) == "fallthrough"
    assert interception_of({}) == "node-cache"


def test_the_keeper_is_the_container_the_construct_names_keeper() -> None:
    keeper = {"name": "keeper", "command": ["/bin/sh", "/etc/nodelocaldns-keeper/keeper.sh", "keep"]}
    assert keeper_container({"containers": [{"name": "node-cache"}, keeper]}) == keeper
    assert keeper_container({"containers": [{"name": "node-cache", "args": ["-localip", "fd00::10"]}]}) is None
    assert keeper_container({}) is None


def test_selector_joins_labels_in_their_order() -> None:
    assert selector({"k8s-app": "node-local-dns", "tier": "node"}) == "k8s-app=node-local-dns,tier=node"
    assert selector({}) == ""


def test_flag_is_the_word_after_its_name() -> None:
    args = ["-localip", "fd00::10,fd00:ec2::a", "-upstreamsvc", "kube-dns-upstream"]
    assert flag(args, "-upstreamsvc") == "kube-dns-upstream"
    assert flag(args, "-localip") == "fd00::10,fd00:ec2::a"
    assert flag(args, "-pidfile") is None
    assert flag(["-localip"], "-localip") is None


def test_created_at_reads_the_api_servers_timestamp() -> None:
    assert created_at({"metadata": {"creationTimestamp": "2026-12-01T10:00:05Z"}}) == datetime(
        2026, 12, 1, 10, 0, 5, tzinfo=UTC
    )
