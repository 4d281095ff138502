"""``deploy``: the app applied with the spec's rules, in its steps (:mod:`constructs_nld.deploy.deployment`)."""

from __future__ import annotations

from collections.abc import Callable

from constructs_nld.deploy.deployment import Deployment, DeployReport
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.options import DeployOptions
from constructs_nld.deploy.rollout import Progress
from constructs_nld.deploy.source import AppSource

__all__ = ["deploy"]


def deploy(
    client: KubeClient,
    source: AppSource,
    options: DeployOptions | None = None,
    out: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> DeployReport:
    """Deploy the app of ``source`` to the cluster behind ``client``; one line per step to ``out``.

    With ``options.wait``, ``progress`` shows the rollout (default: a line per change
    through ``out``). Raises a :class:`~constructs_nld.deploy.errors.DeployError` (whose
    ``exit_code`` the CLI returns) or ``ApiException`` for a request the API server refused.
    """
    return Deployment(client, source, options or DeployOptions(), out, progress).run()
