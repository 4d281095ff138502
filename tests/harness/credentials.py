"""Who may talk to the test kube-apiserver: users and their tokens, the service-account key, kubeconfigs.

Every user is in group ``system:masters`` (bound to cluster-admin by RBAC) and has its own
token, so the audit log tells their requests apart: :data:`ADMIN_USER` is the code under
test's, :data:`FIXTURE_USER` the harness's own, and each component of the simulated cluster
(controllers, scheduler, kwok) has one of its own.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import yaml

__all__ = ["ADMIN_USER", "APISERVER_USER", "FIXTURE_USER", "Credentials"]

ADMIN_USER: Final = "admin"
"""User of the kubeconfig handed to code under test (group ``system:masters``)."""

FIXTURE_USER: Final = "controlplane-fixture"
"""User of the fixture's own requests, kept apart so audit counts never include them."""

APISERVER_USER: Final = "system:apiserver"
"""User the apiserver's internal loopback client shows in the audit log."""

_CONTEXT_NAME: Final = "nld-test"


def _kubeconfig_file(user: str) -> str:
    """File name of a user's kubeconfig; ``system:kube-scheduler.kubeconfig`` without the colon."""
    if user == ADMIN_USER:
        return "kubeconfig"
    if user == FIXTURE_USER:
        return "fixture.kubeconfig"
    return user.replace(":", "-") + ".kubeconfig"


class Credentials:
    """The tokens file, the service-account signing key and one kubeconfig per user, in ``directory``.

    Parameters:
        directory: Where the files go (the control plane's temporary directory).
        component_users: Users besides :data:`ADMIN_USER` and :data:`FIXTURE_USER`.
    """

    def __init__(self, directory: Path, component_users: tuple[str, ...] = ()) -> None:
        """Make a fresh token per user; nothing is written until :meth:`write`."""
        self.directory = directory
        self.component_users = component_users
        self.tokens: dict[str, str] = {
            user: secrets.token_hex(16) for user in (ADMIN_USER, FIXTURE_USER, *component_users)
        }

    @property
    def tokens_file(self) -> Path:
        """kube-apiserver's ``--token-auth-file``."""
        return self.directory / "tokens.csv"

    @property
    def service_account_key(self) -> Path:
        """The private key that signs service-account tokens."""
        return self.directory / "sa.key"

    @property
    def service_account_public_key(self) -> Path:
        """The public key that verifies them."""
        return self.directory / "sa.pub"

    def kubeconfig(self, user: str) -> Path:
        """Where the kubeconfig of ``user`` is (written by :meth:`write_kubeconfigs`)."""
        return self.directory / _kubeconfig_file(user)

    def write(self) -> None:
        """Write the tokens file and make the service-account key pair."""
        # token,user,uid,"groups": system:masters is bound to cluster-admin by RBAC.
        self.tokens_file.write_text(
            "".join(f'{token},{user},{user}-uid,"system:masters"\n' for user, token in self.tokens.items())
        )
        # openssl CLI, because `cryptography` is not a dependency of the project.
        if shutil.which("openssl") is None:
            raise RuntimeError("openssl CLI not found; it is needed to make the service-account key")
        key, public = str(self.service_account_key), str(self.service_account_public_key)
        for args in (
            ["openssl", "genrsa", "-out", key, "2048"],
            ["openssl", "rsa", "-in", key, "-pubout", "-out", public],
        ):
            done = subprocess.run(args, capture_output=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.decode(errors='replace')}")

    def write_kubeconfigs(self, server: str, ca_path: Path) -> None:
        """Write every user's kubeconfig for the apiserver at ``server``, verified with ``ca_path``."""
        for user, token in self.tokens.items():
            config: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": _CONTEXT_NAME, "cluster": {"server": server, "certificate-authority": str(ca_path)}}
                ],
                "users": [{"name": user, "user": {"token": token}}],
                "contexts": [{"name": _CONTEXT_NAME, "context": {"cluster": _CONTEXT_NAME, "user": user}}],
                "current-context": _CONTEXT_NAME,
            }
            path = self.kubeconfig(user)
            path.write_text(yaml.safe_dump(config, sort_keys=False))
            path.chmod(0o600)
