"""CoreDNS v1.13.2, the one node-cache 1.26.8 embeds, as a process in a network namespace.

The data-plane test bed (:class:`tests.e2e.netns.Testbed`) runs it as cluster CoreDNS and as the
"internet", and the tests run the synthesized Corefile and the upstreams the props name on it.
``tools/build-binaries.sh coredns`` builds it into :data:`COREDNS_BINARY`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.harness.process import Process, ProcessExitedError

if TYPE_CHECKING:
    from tests.e2e.netns import Namespace

__all__ = ["COREDNS_BINARY", "CoreDNS", "CoreDNSExitedError"]

COREDNS_BINARY = Path(__file__).resolve().parents[2] / ".cache" / "bin" / "coredns"
"""CoreDNS v1.13.2, built by ``tools/build-binaries.sh coredns``."""


class CoreDNSExitedError(ProcessExitedError):
    """A CoreDNS process ended while it was expected to run."""


class CoreDNS(Process):
    """A CoreDNS process in a namespace, its Corefile and its log (beside the Corefile)."""

    exited_error = CoreDNSExitedError

    def __init__(self, namespace: Namespace, corefile: Path, binary: Path) -> None:
        """Plan ``binary -conf corefile`` inside ``namespace``; :meth:`start` runs it."""
        super().__init__(f"CoreDNS ({corefile})", corefile.with_suffix(".log"), grace_period=5, startup_timeout=20)
        self.namespace = namespace
        self.corefile = corefile
        self.binary = binary

    def argv(self) -> list[str]:
        """The binary inside the namespace; ``ip netns exec`` execs it, so the pid is CoreDNS itself."""
        return self.namespace.argv(str(self.binary), "-conf", str(self.corefile))

    def healthy(self) -> bool:
        """CoreDNS printed its version banner, which it does once every listener is up."""
        return "\nCoreDNS-" in "\n" + self.log

    def wait_started(self, timeout: float = 20) -> None:
        """Wait for the banner; :class:`CoreDNSExitedError` (with the log) if it exits first, else ``TimeoutError``."""
        self.wait_healthy(timeout)
