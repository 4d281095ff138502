"""The exit codes of ``deploy.py``: one table, from which ``--help`` and the README's table are generated.

Exit codes are public API: a CI job branches on them. Each row says which commands return
the code and what it means there; :func:`epilog` writes a command's ``--help`` section and
:func:`markdown_table` the README's (``make readme`` rewrites it, a test checks it is current).

Pure code: the CLI prints ``--help`` from it before importing anything else.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

__all__ = ["COMMANDS", "EXIT_CODES", "ExitCode", "Meanings", "epilog", "markdown_table"]

COMMANDS: Final = ("deploy", "verify", "uninstall", "soak", "cutover", "history", "rollback", "convert")
"""The commands of ``deploy.py``; ``deploy`` is the default."""


class ExitCode(IntEnum):
    """Exit codes of ``deploy.py``; :data:`EXIT_CODES` says what each means for each command."""

    OK = 0
    ERROR = 1
    INVALID = 2
    PRECONDITION = 3
    CLUSTER_IP = 4
    NO_MONITORING = 5
    TIMEOUT = 6
    CHECKS_FAILED = 7
    SOAK_FAILED = 8
    SOAK_NO_DATA = 9
    STALLED = 10
    FORBIDDEN = 11
    CUTOVER = 12
    THROTTLED = 13
    NOT_CARRIED = 14
    SIGINT = 130
    SIGTERM = 143


Meanings = tuple[tuple[tuple[str, ...], str], ...]
"""``(commands, meaning)`` pairs: the same code may mean a different thing to another command."""


_ALL: Final = COMMANDS
_CLUSTER: Final = ("deploy", "verify", "uninstall", "cutover", "history", "rollback")

EXIT_CODES: Final[tuple[tuple[ExitCode, Meanings], ...]] = (
    (
        ExitCode.OK,
        (
            (("deploy",), "done"),
            (("verify",), "every check passed (--uninstalled: nothing of NodeLocal DNS is left)"),
            (("uninstall",), "uninstalled, or nothing was installed"),
            (("soak",), "PASS: every signal passed"),
            (
                ("cutover",),
                "done (status: the canary soak PASSED; rollback: also when no cutover was in progress, which it says, "
                "pointing to the rollback command)",
            ),
            (("history",), "listed (also when no revision is recorded yet)"),
            (("rollback",), "the revision's objects applied again, and the rollback recorded"),
            (("convert",), "every key of the values file carried"),
        ),
    ),
    (
        ExitCode.ERROR,
        (
            (_CLUSTER, "the API server refused a request or could not be reached"),
            (("soak",), "Prometheus refused a query or could not be reached"),
        ),
    ),
    (
        ExitCode.INVALID,
        (
            (
                ("deploy",),
                "bad arguments, kubeconfig, app or props, or output still holding a placeholder (nothing applied)",
            ),
            (("verify",), "bad arguments, kubeconfig or app"),
            (("uninstall",), "bad arguments, kubeconfig or app (nothing deleted)"),
            (("soak",), "bad arguments or app"),
            (
                ("history", "rollback"),
                "bad arguments or kubeconfig; rollback: a revision the history does not hold, one that failed or "
                "kept no objects (nothing applied)",
            ),
            (
                ("cutover",),
                "bad arguments, kubeconfig or app; start: a ConfigMap change node-cache would reload on every node "
                "(nothing applied)",
            ),
            (
                ("convert",),
                "bad arguments, or a values file unreadable, not YAML or with a key of the wrong type "
                "(nothing written)",
            ),
        ),
    ),
    (
        ExitCode.PRECONDITION,
        (
            (
                ("deploy",),
                "kube-dns-upstream exists with a foreign selector, or the kube-dns ConfigMap has a stub domain "
                "the app serves (nothing applied)",
            ),
            (("uninstall",), "kube-dns-upstream exists with a foreign selector (nothing deleted)"),
            (("cutover",), "start: as deploy's, or the fleet not settled on one template (nothing applied)"),
            (
                ("deploy", "uninstall", "cutover", "history", "rollback"),
                "a record of the release history is malformed (its key named; nothing applied)",
            ),
            (
                ("rollback",),
                "kube-dns-upstream exists with a foreign selector, or the kube-dns ConfigMap has a stub domain the "
                "revision serves (nothing applied)",
            ),
        ),
    ),
    (
        ExitCode.CLUSTER_IP,
        ((("deploy", "rollback"), "kube-dns missing, or its ClusterIP not a usable IPv6 address (nothing applied)"),),
    ),
    (
        ExitCode.NO_MONITORING,
        ((("deploy", "rollback"), "monitoring.coreos.com CRDs absent without --skip-monitoring (nothing applied)"),),
    ),
    (
        ExitCode.TIMEOUT,
        (
            (
                ("deploy", "rollback"),
                "kube-dns-upstream got no ClusterIP within --clusterip-timeout, the restart kept conflicting beyond "
                "--restart-timeout, or another deploy held the cluster's Lease beyond --lease-timeout (then nothing "
                "applied)",
            ),
        ),
    ),
    (
        ExitCode.CHECKS_FAILED,
        ((("verify",), "a check failed (each failure prints its cause and fix; --uninstalled: something is left)"),),
    ),
    (
        ExitCode.SOAK_FAILED,
        (
            (("soak",), "FAIL: a signal failed"),
            (("cutover",), "status: the canary soak FAILED; promote: refused for it (nothing applied)"),
        ),
    ),
    (
        ExitCode.SOAK_NO_DATA,
        (
            (("soak",), "NOT ENOUGH DATA: nothing failed, but a signal lacks data (or the window a rollout)"),
            (
                ("cutover",),
                "status: NOT ENOUGH DATA (the window shorter than --window, no --prometheus); promote: refused "
                "for it (nothing applied)",
            ),
        ),
    ),
    (
        ExitCode.STALLED,
        (
            (
                ("deploy", "rollback"),
                "--wait: the rollout made no progress for --stall-after seconds (the message says how to roll back)",
            ),
            (
                ("uninstall",),
                "the node-cache pods did not go away within --stall-after (only the DaemonSet deleted; rerun to "
                "continue)",
            ),
            (
                ("cutover",),
                "start: a canary pod did not become ready within --stall-after (rollback ends it); promote, "
                "rollback: the rollout made no progress for --stall-after (rerun to continue)",
            ),
        ),
    ),
    (
        ExitCode.FORBIDDEN,
        (
            (
                _CLUSTER,
                "the kubeconfig's user lacks a permission the command needs: each is named (nothing applied or "
                "deleted; the rules: DeployerRBAC)",
            ),
        ),
    ),
    (
        ExitCode.CUTOVER,
        (
            (
                ("deploy",),
                "a cutover is in progress: a deploy would roll every node (cutover promote or rollback; nothing "
                "applied), or one started while the deploy ran (the DaemonSet left as the cutover has it)",
            ),
            (
                ("cutover",),
                "start: another cutover is in progress, or the app's template is the live one; status, promote: no "
                "cutover is in progress (nothing applied)",
            ),
            (("rollback",), "a cutover is in progress: a rollback would roll every node (nothing written)"),
        ),
    ),
    (
        ExitCode.THROTTLED,
        (
            (
                _CLUSTER,
                "the API server kept throttling a request (429, 503) beyond --api-timeout: each write is whole or not "
                "made, and a rerun when the load drops continues",
            ),
        ),
    ),
    (
        ExitCode.NOT_CARRIED,
        (
            (
                ("convert",),
                "converted and written, but some keys could not be carried: each is listed on stderr with the reason",
            ),
        ),
    ),
    (
        ExitCode.SIGINT,
        (
            (
                _ALL,
                "stopped by SIGINT (Ctrl-C) between two requests: each write is whole or not made, the deploy Lease "
                "released, no credential left on disk; a rerun continues",
            ),
        ),
    ),
    (
        ExitCode.SIGTERM,
        ((_ALL, "stopped by SIGTERM (a cancelled CI job), as SIGINT is"),),
    ),
)
"""Every exit code, in order, with its meaning per command."""


def epilog(command: str | None = None) -> str:
    """The ``exit codes:`` section of ``--help``: one command's codes, or (None) every code with its commands."""
    lines = ["exit codes:"]
    for code, meanings in EXIT_CODES:
        for commands, text in meanings:
            if command is None:
                who = "" if commands == _ALL else f"{', '.join(commands)}: "
                lines.append(f"  {int(code):<2} {who}{text}")
            elif command in commands:
                lines.append(f"  {int(code):<2} {text}")
    return "\n".join(lines) + "\n"


def markdown_table() -> str:
    """The README's table: one row per code and meaning, naming the commands it applies to."""
    rows = ["| exit code | commands | meaning |", "| --- | --- | --- |"]
    for code, meanings in EXIT_CODES:
        for commands, text in meanings:
            who = "all" if commands == _ALL else ", ".join(f"`{c}`" for c in commands)
            rows.append(f"| {int(code)} | {who} | {text} |")
    return "\n".join(rows) + "\n"
