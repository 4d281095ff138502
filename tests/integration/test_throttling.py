"""Under API Priority and Fairness's throttling, on the suite's real kube-apiserver: every command waits it out.

Priority and Fairness is on, as in every cluster. The deployer is a ServiceAccount, not the
suite's admin (group ``system:masters`` is exempt from it), bound to ``cluster-admin``. A
FlowSchema puts it, and a second ServiceAccount that loads the server in the background,
under a PriorityLevelConfiguration of one seat and a queue of one: while the loader keeps
that seat and queue busy, the API server answers the deployer's requests with ``429 Too Many
Requests`` and ``Retry-After``. (A ballast level of a large share, which no request uses,
brings the level's nominal share of the server's 600 seats down to exactly one; the server's
own metrics say so.)

- ``deploy`` (fresh and no-op), ``deploy --wait``, ``verify`` and ``uninstall`` each succeed
  under the load; the audit log shows the 429s the server answered them, exactly as many as the
  retries they counted, and after each 429 the deployer's next request came no sooner than
  the server's ``Retry-After`` asked.
- With the limit held longer than ``--timeout`` (the loader's requests made to hold the seat
  and the queue for seconds each, so that every other request is refused), mid-apply, during
  ``--wait``, before ``verify`` and during ``uninstall``'s wait, each command exits with its own
  code, 13, on one line naming the answer, and none of its requests got through; when the
  load stops, the rerun converges and ``verify`` passes.
"""

from __future__ import annotations

import contextlib
import http.client
import re
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import pytest

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from tests.controlplane import ControlPlane
from tests.faults import WRITE_METHODS, after_write
from tests.fleet import fleet_node
from tests.harness.rest import Rest
from tests.integration import rest
from tests.simcluster import SimulatedCluster

NAMESPACE: Final = "ci"
DEPLOYER: Final = "throttled-deployer"
LOADER: Final = "background-load"
USER: Final = f"system:serviceaccount:{NAMESPACE}:{DEPLOYER}"
FLOWCONTROL: Final = "/apis/flowcontrol.apiserver.k8s.io/v1"
LEVEL: Final = "nld-test-one-seat"
BALLAST: Final = "nld-test-ballast"
SCHEMA: Final = "nld-test-deployer"
BINDING: Final = "nld-test-throttled-deployer"
WAITS: Final = ("--stall-after", "120", "--progress", "plain")


def _level(name: str, shares: int, *, lendable: int, response: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": shares,
                "lendablePercent": lendable,
                "borrowingLimitPercent": 0,
                "limitResponse": response,
            },
        },
    }


ONE_SEAT: Final = _level(
    LEVEL, 1, lendable=0, response={"type": "Queue", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 1}}
)
"""One seat (with the ballast), one queue of one request: a second request waits, a third is refused."""
BALLAST_LEVEL: Final = _level(BALLAST, 10_000, lendable=100, response={"type": "Reject"})

SCHEMA_OBJECT: Final = {
    "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
    "kind": "FlowSchema",
    "metadata": {"name": SCHEMA},
    "spec": {
        "matchingPrecedence": 100,
        "priorityLevelConfiguration": {"name": LEVEL},
        "distinguisherMethod": {"type": "ByUser"},
        "rules": [
            {
                "subjects": [
                    {"kind": "ServiceAccount", "serviceAccount": {"namespace": NAMESPACE, "name": account}}
                    for account in (DEPLOYER, LOADER)
                ],
                "resourceRules": [
                    {
                        "verbs": ["*"],
                        "apiGroups": ["*"],
                        "resources": ["*"],
                        "clusterScope": True,
                        "namespaces": ["*"],
                    }
                ],
                "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            }
        ],
    },
}


@dataclass
class Throttled:
    """The deployer under its one-seat level, the loader that keeps the seat busy, and the audit of it."""

    plane: ControlPlane
    kubeconfig: Path
    loader_token: str
    lines: list[str] = field(default_factory=list)

    @property
    def admin(self) -> Rest:
        return self.plane.fixture_api()

    def nominal_seats(self) -> int | None:
        """The level's nominal seats, from the API server's own metrics."""
        _, text = self.admin.request("GET", "/metrics", ok=(200,))
        found = re.search(rf'^apiserver_flowcontrol_nominal_limit_seats{{priority_level="{LEVEL}"}} (\S+)$', text, re.M)
        return int(float(found.group(1))) if found else None

    def run(self, *argv: str, capsys: pytest.CaptureFixture[str]) -> int:
        """``deploy.py`` as the deployer; its output lines kept in :attr:`lines`."""
        code = main(["--kubeconfig", str(self.kubeconfig), *argv])
        captured = capsys.readouterr()
        self.lines += captured.out.splitlines() + captured.err.splitlines()
        return code

    @contextlib.contextmanager
    def load(
        self, threads: int = 2, *, busy: float = 0.5, period: float = 1.0, hold: bool = False
    ) -> Iterator[list[int]]:
        """Keep the level's seat and queue busy ``busy`` seconds of every ``period``; yields the loader's statuses.

        Two kept-alive connections hold the seat and the queue most of the time they send (the
        deployer's request then finds the queue full about one time in five), and are almost
        never refused themselves: more would be refused often, and Priority and Fairness
        doubles its ``Retry-After`` for a level whose requests it keeps dropping. Half the
        time busy: a command meets a few 429s, not one on every other request.

        With ``hold``, all the time, and each request holds the seat for 3 s: a list at a
        resourceVersion the server does not have yet, which it waits for before answering 504.
        One holds the seat while the other holds the queue, so that every other request of the
        level is refused: a limit held for as long as the load lasts.
        """
        stop = threading.Event()
        statuses: list[int] = []
        where = urllib.parse.urlsplit(self.plane.server)
        context = ssl.create_default_context(cafile=str(self.plane.ca_path))
        headers = {"Authorization": f"Bearer {self.loader_token}"}
        path = f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts"
        if hold:
            path += "?resourceVersion=999999999999&resourceVersionMatch=NotOlderThan"
            busy = period

        def hammer() -> None:
            connection = http.client.HTTPSConnection(where.hostname or "", where.port, context=context, timeout=10)
            try:
                while not stop.is_set():
                    phase = time.monotonic() % period
                    if phase >= busy:
                        stop.wait(period - phase)
                        continue
                    connection.request("GET", path, headers=headers)
                    answer = connection.getresponse()
                    answer.read()
                    statuses.append(answer.status)
            finally:
                connection.close()

        workers = [threading.Thread(target=hammer, daemon=True) for _ in range(threads)]
        for worker in workers:
            worker.start()
        try:
            yield statuses
        finally:
            stop.set()
            for worker in workers:
                worker.join(timeout=15)

    @contextlib.contextmanager
    def held(self) -> Iterator[Callable[[], None]]:
        """A hold of the level (:meth:`load` with ``hold``) that the test begins when it calls the yielded function."""
        with contextlib.ExitStack() as stack:

            def begin() -> None:
                stack.enter_context(self.load(hold=True))
                time.sleep(0.5)  # the first holds the seat, the second waits in the queue

            yield begin

    def events_since(self, mark: int) -> list[dict[str, Any]]:
        """The deployer's requests, as the API server's audit log records them."""
        return self.plane.requests_since(mark, user=USER)


def _at(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


@pytest.fixture
def throttled(sim: SimulatedCluster, tmp_path: Path) -> Iterator[Throttled]:
    """The deployer and the loader, both under :data:`LEVEL` (one seat); everything removed afterwards."""
    plane = sim.control_plane
    sim.add_nodes(fleet_node("cpu", i) for i in range(1, 4))
    admin = plane.fixture_api()
    tokens = {account: rest.service_account_token(admin, NAMESPACE, account) for account in (DEPLOYER, LOADER)}
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": BINDING},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"kind": "ServiceAccount", "name": a, "namespace": NAMESPACE} for a in (DEPLOYER, LOADER)],
    }
    created = [
        ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding),
        (f"{FLOWCONTROL}/prioritylevelconfigurations", BALLAST_LEVEL),
        (f"{FLOWCONTROL}/prioritylevelconfigurations", ONE_SEAT),
        (f"{FLOWCONTROL}/flowschemas", SCHEMA_OBJECT),
    ]
    kubeconfig = rest.kubeconfig_for(
        plane.kubeconfig_path, DEPLOYER, tokens[DEPLOYER], tmp_path / "deployer.kubeconfig"
    )
    bed = Throttled(plane, kubeconfig, tokens[LOADER])
    try:
        for collection, obj in created:
            admin.request("POST", collection, body=obj, ok=(201,))
        deadline = time.monotonic() + 30
        while bed.nominal_seats() != 1:
            assert time.monotonic() < deadline, f"{LEVEL} did not get exactly 1 seat within 30 s: {bed.nominal_seats()}"
            time.sleep(0.2)
        yield bed
    finally:
        for collection, obj in reversed(created):
            admin.request("DELETE", f"{collection}/{obj['metadata']['name']}", ok=(200, 404))


def _throttled_retries(lines: list[str]) -> int:
    """The retries after a 429 or 503 the commands counted in their closing lines."""
    found = (re.search(r"\((\d+) throttled", line) for line in lines if line.startswith("[retries] "))
    return sum(int(match.group(1)) for match in found if match)


def test_every_command_waits_out_the_429s_it_gets(throttled: Throttled, capsys: pytest.CaptureFixture[str]) -> None:
    mark = throttled.plane.audit_mark()
    with throttled.load() as loaded:
        codes = {
            "deploy --wait (fresh)": throttled.run("--wait", *WAITS, capsys=capsys),
            "deploy (no-op)": throttled.run(capsys=capsys),
            "verify": throttled.run("verify", capsys=capsys),
            "uninstall": throttled.run("uninstall", capsys=capsys),
            "verify --uninstalled": throttled.run("verify", "--uninstalled", capsys=capsys),
        }
    events = sorted(throttled.events_since(mark), key=lambda e: e["requestReceivedTimestamp"])
    refused = [i for i, event in enumerate(events) if event["responseStatus"]["code"] == 429]

    assert codes == dict.fromkeys(codes, ExitCode.OK), "\n".join(throttled.lines)
    assert len(loaded) > 500 and loaded.count(429) < len(loaded) / 10  # the seat was kept busy, by the rules
    assert refused, "the API server throttled nothing: the load did not reach the deployer's level"
    assert len(refused) == _throttled_retries(throttled.lines), "\n".join(throttled.lines)
    retry_lines = [line for line in throttled.lines if line.startswith("[retry] ")]
    assert len(retry_lines) == len(refused)
    for line in retry_lines:
        asked, waited = re.search(r"Retry-After (\d+)s; retry \d+ in ([\d.]+)s$", line).groups()  # type: ignore[union-attr]
        assert float(waited) >= float(asked) >= 1, line
    for index in refused:
        event = events[index]
        if (event.get("objectRef") or {}).get("apiGroup") == "authorization.k8s.io":
            # The access check sends its rules and access reviews from several threads at once: the
            # next one may be another thread's, not the retry. The [retry] lines above give their waits.
            continue
        # The next request of the same kind is the retry; others may come from another thread (the
        # deploy Lease's renewals).
        retry = next(
            (e for e in events[index + 1 :] if (e["verb"], e["requestURI"]) == (event["verb"], event["requestURI"])),
            None,
        )
        if retry is not None:
            gap = _at(retry["requestReceivedTimestamp"]) - _at(event["stageTimestamp"])
            assert gap >= 0.99, (event["requestURI"], gap)


HELD_AFTER: Final = {
    "deploy": ((), 3, WRITE_METHODS),
    "deploy --wait": (("--wait", *WAITS), 8, WRITE_METHODS),
    "verify": (("verify",), 0, WRITE_METHODS),
    "uninstall": (("uninstall",), 1, ("delete",)),
}
"""Each command, and the write after which the limit is held: mid-apply, during the rollout's wait, before
verify's first read, during the wait for the pods to go."""


@pytest.mark.parametrize("name", list(HELD_AFTER))
def test_throttling_beyond_the_timeout_exits_13_and_the_rerun_converges(
    throttled: Throttled, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, writes, methods = HELD_AFTER[name]
    if name in ("verify", "uninstall"):
        assert throttled.run(capsys=capsys) == ExitCode.OK
    held_at: list[int] = []
    with throttled.held() as hold:

        def begin() -> None:
            hold()
            held_at.append(throttled.plane.audit_mark())

        if writes == 0:
            begin()
        with after_write(writes or 1_000, begin, methods) as made:
            code = throttled.run(*argv, "--timeout", "3", capsys=capsys)
    errors = [line for line in throttled.lines if line.startswith("error: ")]
    refused = throttled.events_since(held_at[0]) if held_at else []
    output = "\n".join(throttled.lines)
    throttled.lines.clear()

    assert code == ExitCode.THROTTLED, output
    assert len(made) == writes, output
    assert len(errors) == 1 and re.match(
        r"^error: throttled: the API server answered \S+ \S+ with 429 Too Many Requests, Retry-After \d+s, and "
        r"\d+ retr(y|ies) within --timeout 3s did not get it through: rerun when the load drops",
        errors[0],
    ), errors
    assert refused and {e["responseStatus"]["code"] for e in refused} == {429}, "a request got through the hold"
    assert throttled.run(*argv, capsys=capsys) == ExitCode.OK, "\n".join(throttled.lines)
    check = ("verify", "--uninstalled") if name == "uninstall" else ("verify",)
    assert throttled.run(*check, capsys=capsys) == ExitCode.OK, "\n".join(throttled.lines)
