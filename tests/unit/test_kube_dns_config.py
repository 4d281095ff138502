"""What the kube-dns ConfigMap makes node-cache do: read from the live object, against the app's Corefile."""

from __future__ import annotations

import pytest

from constructs_nld import ForwardZone, NodeLocalDNSProps
from constructs_nld.deploy.component import Component, locate
from constructs_nld.deploy.errors import PreconditionError
from constructs_nld.deploy.kube_dns_config import (
    KubeDnsConfig,
    collisions,
    refuse_collisions,
    served_zones,
    upstreams_ignored,
)
from constructs_nld.deploy.source import props_source
from tests.conftest import CLUSTER_IP

CORP = ForwardZone(names=("corp.example", "corp.internal"), upstreams=("fd03::53",))


def component(**props: object) -> Component:
    return locate(tuple(props_source(NodeLocalDNSProps(**props))(CLUSTER_IP)))  # type: ignore[arg-type]


def config_map(**data: str) -> dict[str, object]:
    return {"metadata": {"name": "kube-dns"}, "data": data}


def test_the_settings_are_read_from_their_json_and_zones_written_one_way() -> None:
    read = KubeDnsConfig.of(
        config_map(stubDomains='{"Corp.Example.": ["fd03::100"]}', upstreamNameservers='["fd03::53", "fd03::54"]')
    )

    assert read == KubeDnsConfig({"corp.example": ("fd03::100",)}, ("fd03::53", "fd03::54"), ())
    assert read.describe() == "stubDomains: corp.example → fd03::100; upstreamNameservers: fd03::53 fd03::54"
    assert KubeDnsConfig.of(None).empty
    assert KubeDnsConfig.of(config_map(stubDomains="{}", upstreamNameservers="[]")).empty


def test_json_node_cache_cannot_parse_is_reported_as_such() -> None:
    read = KubeDnsConfig.of(config_map(stubDomains="{corp.example: fd03::100}", upstreamNameservers='{"a": 1}'))

    assert read.unreadable == ("stubDomains", "upstreamNameservers")
    assert not read.empty
    assert read.describe() == (
        "stubDomains: not JSON of the expected shape; upstreamNameservers: not JSON of the expected shape"
    )


def test_served_zones_are_read_from_every_block_header() -> None:
    text = "cluster.local:53 {\n}\ncorp.example:53 corp.internal:53 {\n    forward . fd03::53 {\n    }\n}\n.:53 {\n}\n"

    assert served_zones(text) == {"cluster.local", "corp.example", "corp.internal", "."}


def test_a_stub_domain_the_app_serves_collides_only_while_the_config_map_is_mounted() -> None:
    stubs = KubeDnsConfig.of(config_map(stubDomains='{"corp.internal": ["fd03::100"], "other.example": ["fd03::1"]}'))

    assert component(zones=(CORP,)).reads_kube_dns_config
    assert collisions(component(zones=(CORP,)), stubs) == ("corp.internal",)
    assert collisions(component(), stubs) == ()
    assert not component(zones=(CORP,), read_kube_dns_config_map=False).reads_kube_dns_config
    assert collisions(component(zones=(CORP,), read_kube_dns_config_map=False), stubs) == ()


def test_deploy_refuses_a_collision_naming_the_config_map_and_the_zones() -> None:
    live = config_map(stubDomains='{"cluster.local": ["fd03::100"]}')

    with pytest.raises(
        PreconditionError,
        match=r"^configmap/kube-system/kube-dns has stubDomains cluster.local, which the app's Corefile serves too: "
        r"node-cache reads both and CoreDNS refuses a zone served twice",
    ):
        refuse_collisions(component(), live)
    refuse_collisions(component(), config_map(stubDomains='{"corp.example": ["fd03::100"]}'))


def test_upstream_nameservers_are_ignored_only_when_the_app_names_its_own() -> None:
    upstreams = KubeDnsConfig.of(config_map(upstreamNameservers='["fd03::53"]'))

    assert upstreams_ignored(component(upstream_servers=("fd03::200",)), upstreams)
    assert not upstreams_ignored(component(), upstreams)
