"""The kubeconfig as kubectl reads it, or the pod's service account when there is none.

kubectl (client-go's loading rules) merges every file of ``$KUBECONFIG``, in order, skipping
the missing ones: for each cluster, user and context name the first file that defines it
wins, and the first file that sets a non-empty ``current-context`` names the current one;
a relative path in a file (``certificate-authority``, ``client-key``…) is relative to that
file. ``--kubeconfig FILE`` is that one file, not merged; with neither, ``~/.kube/config``.

In a pod, when none of those files exists, kubectl uses the pod's service account instead:
``$KUBERNETES_SERVICE_HOST``/``PORT`` and the token and CA the kubelet mounts at
:data:`SERVICE_ACCOUNT_DIR`. So do we.

The official client does the reading (``KubeConfigMerger``, ``KubeConfigLoader``,
``InClusterConfigLoader``); where it strays from kubectl's rules, this module corrects it
(each correction says why). Every refusal is a one-line :class:`KubeconfigError` naming
the file(s) and the problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml
from kubernetes import config as kube_config
from kubernetes.client import ApiClient, Configuration
from kubernetes.config.incluster_config import InClusterConfigLoader
from kubernetes.config.kube_config import KubeConfigMerger
from urllib3.util.retry import Retry as Urllib3Retry

from constructs_nld import defaults
from constructs_nld.deploy.errors import KubeconfigError
from constructs_nld.deploy.kube import KubeClient

__all__ = [
    "SERVICE_ACCOUNT_DIR",
    "ClientConfig",
    "client_config",
    "current_context",
    "in_cluster",
    "kubeconfig_contexts",
    "load_client",
]

SERVICE_ACCOUNT_DIR: Final = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where the kubelet mounts a pod's service account: ``token``, ``ca.crt`` and ``namespace``."""

_DEFAULT_KUBECONFIG: Final = "~/.kube/config"
"""kubectl's default. Not the official client's ``KUBE_CONFIG_DEFAULT_LOCATION``: that is ``$KUBECONFIG``
as it was when the client was imported, a list of files read as one path."""

_HOST_ENV: Final = "KUBERNETES_SERVICE_HOST"
_PORT_ENV: Final = "KUBERNETES_SERVICE_PORT"
_NAMESPACE_ENV: Final = "POD_NAMESPACE"

_SECTIONS: Final = {"clusters": "cluster", "users": "user", "contexts": "context"}
"""Each named list of a kubeconfig, and what one entry of it is called."""

_FILE_KEYS: Final = {"clusters": ("certificate-authority",), "users": ("client-certificate", "client-key", "tokenFile")}
"""The fields that name a file, by section (client-go's ``GetClusterFileReferences``/``GetAuthInfoFileReferences``)."""


@dataclass(frozen=True)
class ClientConfig:
    """How to reach one cluster's API server: what :func:`load_client` connects with."""

    configuration: Configuration
    """The official client's configuration: server, TLS and credentials."""
    namespace: str
    """Where a namespaced object without one goes: the context's namespace, or the pod's."""
    in_cluster: bool
    """True when it is the pod's service account rather than a kubeconfig."""


@dataclass(frozen=True)
class _Merged:
    """The kubeconfig files that exist, merged as kubectl merges them."""

    files: tuple[Path, ...]
    node: Any
    """The official client's merged ``ConfigNode`` (None when every file is empty)."""
    contexts: Mapping[str, Mapping[str, Any]]
    """Each context's body by name, in merged order."""
    current: str | None

    @property
    def label(self) -> str:
        """``kubeconfig a.yaml:b.yaml``: the files, as ``$KUBECONFIG`` lists them."""
        return f"kubeconfig {os.pathsep.join(str(path) for path in self.files)}"


def _asked(kubeconfig: str | None) -> tuple[list[Path], str]:
    """The files to read, in order, and where they come from (for the messages)."""
    if kubeconfig is not None:
        return [Path(kubeconfig).expanduser()], "--kubeconfig"
    from_env = os.environ.get("KUBECONFIG", "")
    if from_env:
        listed = [Path(part).expanduser() for part in from_env.split(os.pathsep) if part]
        return list(dict.fromkeys(listed)), "$KUBECONFIG"  # client-go reads a file listed twice once
    return [Path(_DEFAULT_KUBECONFIG).expanduser()], "default"


def _read(path: Path) -> dict[str, Any] | None:
    """One file, parsed and checked; None when it is empty (kubectl reads it as an empty config)."""
    try:
        data = yaml.safe_load(path.read_bytes())
    except OSError as error:
        raise KubeconfigError(f"cannot read kubeconfig {path}: {error.strerror or error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise KubeconfigError(f"kubeconfig {path} is not valid YAML{at}") from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise KubeconfigError(f"kubeconfig {path} is not a YAML mapping")
    current = data.get("current-context")
    if current is not None and not isinstance(current, str):
        raise KubeconfigError(f"kubeconfig {path}: current-context must be a string, got {current!r}")
    for section, entry in _SECTIONS.items():
        entries = data.get(section)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise KubeconfigError(f"kubeconfig {path}: {section} must be a list")
        seen: set[str] = set()
        for index, item in enumerate(entries, 1):
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str) or not name:
                raise KubeconfigError(f"kubeconfig {path}: {section} entry {index} has no name")
            if name in seen:  # client-go refuses the file too ("duplicate name")
                raise KubeconfigError(f"kubeconfig {path}: {entry} {name!r} is defined twice")
            seen.add(name)
    return data


def _absolute(entry: object, origin: str, keys: Iterable[str]) -> None:
    """Make the relative file paths of ``entry`` absolute, against the directory of ``origin``, the file holding it."""
    if not isinstance(entry, dict):
        return
    base = os.path.abspath(os.path.dirname(origin))
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            entry[key] = os.path.normpath(os.path.join(base, value))
    plugin = entry.get("exec")
    if isinstance(plugin, dict):
        command = plugin.get("command")
        # client-go resolves the command only when it is a path, not a name looked up in $PATH.
        if isinstance(command, str) and os.sep in command and not os.path.isabs(command):
            plugin["command"] = os.path.normpath(os.path.join(base, command))


def _merge(kubeconfig: str | None) -> _Merged:
    """The kubeconfig files that exist, merged; refused when there is none, or one is malformed."""
    paths, where = _asked(kubeconfig)
    files = tuple(path for path in paths if path.exists())
    if not files:
        if len(paths) == 1:
            missing = f"{paths[0]} ({where}) does not exist"
        else:
            missing = f"none of {', '.join(str(path) for path in paths)} ({where}) exists"
        raise KubeconfigError(f"no kubeconfig: {missing}; pass --kubeconfig FILE")
    parsed = [(path, _read(path)) for path in files]
    merger = KubeConfigMerger("")  # type: ignore[no-untyped-call]  # reads nothing: each file is added below
    for path, data in parsed:
        if data is not None:  # the official merger refuses an empty file; kubectl skips it
            merger.load_config(str(path))  # type: ignore[no-untyped-call]
    node = merger.config
    # kubectl: the first file that sets a non-empty current-context names it. The official merger
    # lets every later file that has the key (even empty) override it.
    current = next((str(data["current-context"]) for _, data in parsed if data and data.get("current-context")), None)
    contexts: dict[str, Mapping[str, Any]] = {}
    if node is not None:
        if current is None:
            node.value.pop("current-context", None)
        else:
            node.value["current-context"] = current
        # Its messages name the node: the files, not just the first one.
        node.name = os.pathsep.join(str(path) for path in files)
        for section, entry in _SECTIONS.items():
            for item in node.value[section]:
                # The official merger names each entry by its whole repr, tokens included, and its
                # messages quote that name: name it by its file and name instead.
                item.name = f"{item.path}/{section}[name={item.value['name']}]"
                # kubectl resolves a relative path against the file holding the entry. The official
                # loader resolves a user's client-certificate, client-key and exec command against the
                # file of the *cluster* it is used with: made absolute here, its resolution is moot.
                _absolute(item.value.get(entry), item.path, _FILE_KEYS.get(section, ()))
        for item in node.value["contexts"]:
            body = item.value.get("context")
            contexts[str(item.value["name"])] = body if isinstance(body, dict) else {}
    merged = _Merged(files, node, contexts, current)
    if not contexts:
        raise KubeconfigError(f"{merged.label} defines no contexts")
    return merged


def _service_account_possible(service_account: Path) -> bool:
    """client-go's in-cluster test: both service variables set, and the token file there."""
    return bool(os.environ.get(_HOST_ENV) and os.environ.get(_PORT_ENV)) and (service_account / "token").is_file()


def _nothing_asked(kubeconfig: str | None) -> bool:
    """No ``--kubeconfig``, and none of the ``$KUBECONFIG`` (or default) files exists."""
    return kubeconfig is None and not any(path.exists() for path in _asked(None)[0])


def in_cluster(kubeconfig: str | None = None, *, service_account: Path = SERVICE_ACCOUNT_DIR) -> bool:
    """Whether a command would use the pod's service account: in a pod, with no kubeconfig at all.

    That is kubectl's rule: no ``--kubeconfig``, none of the ``$KUBECONFIG`` (or
    ``~/.kube/config``) files exists, ``$KUBERNETES_SERVICE_HOST`` and ``PORT`` are set and
    the token is at ``service_account``.
    """
    return _nothing_asked(kubeconfig) and _service_account_possible(service_account)


def kubeconfig_contexts(kubeconfig: str | None) -> tuple[str, ...]:
    """Every context of the kubeconfig (``kubeconfig``, else ``$KUBECONFIG`` merged, else ``~/.kube/config``).

    In merged order: the first file's contexts first, then each later file's new ones. Raises
    :class:`KubeconfigError` when there is no kubeconfig (in a pod too: it has one cluster,
    not contexts) or it is malformed.
    """
    merged = _merge(kubeconfig)
    return tuple(merged.contexts)


def current_context(kubeconfig: str | None, *, service_account: Path = SERVICE_ACCOUNT_DIR) -> str | None:
    """The context a command uses when none is named: the merged ``current-context``; None in a pod.

    Why: a command with no ``--context`` names its cluster by it. Raises
    :class:`KubeconfigError` when there is neither a kubeconfig nor a service account, or
    the kubeconfig sets no current-context.
    """
    if in_cluster(kubeconfig, service_account=service_account):
        return None
    merged = _merge(kubeconfig)
    if merged.current is None:
        raise KubeconfigError(f"{merged.label} has no current-context; pass --context (one of {_names(merged)})")
    return merged.current


def _configuration() -> Configuration:
    configuration = Configuration()
    # urllib3 would retry a GET or DELETE answered 429 with Retry-After by itself, unseen and past any
    # deadline: it keeps retrying broken connections only, and every answer reaches KubeClient's retries.
    configuration.retries = Urllib3Retry(total=3, respect_retry_after_header=False)
    return configuration


def _pod_namespace(service_account: Path) -> str:
    """client-go's in-cluster namespace: ``$POD_NAMESPACE``, else the service account's, else ``default``."""
    from_env = os.environ.get(_NAMESPACE_ENV, "")
    if from_env:
        return from_env
    try:
        return (service_account / "namespace").read_text().strip() or "default"
    except OSError:
        return "default"


def _from_service_account(service_account: Path) -> ClientConfig:
    configuration = _configuration()
    loader = InClusterConfigLoader(  # type: ignore[no-untyped-call]
        token_filename=str(service_account / "token"), cert_filename=str(service_account / "ca.crt")
    )
    try:
        loader.load_and_set(configuration)  # type: ignore[no-untyped-call]
    except (kube_config.ConfigException, OSError) as error:
        why = " ".join(str(error).split()).rstrip(".")
        raise KubeconfigError(f"in-cluster configuration ({service_account}): {why}") from None
    return ClientConfig(configuration, _pod_namespace(service_account), in_cluster=True)


def client_config(
    kubeconfig: str | None, context: str | None, *, service_account: Path = SERVICE_ACCOUNT_DIR
) -> ClientConfig:
    """How to reach ``context`` (None: the current one) of the kubeconfig, or, in a pod with none, its own cluster.

    A missing or malformed kubeconfig, or an unknown context, raises :class:`KubeconfigError`
    with one line naming the file(s) and what is wrong. ``service_account`` is where the
    pod's token, CA and namespace are.
    """
    if context is None and in_cluster(kubeconfig, service_account=service_account):
        return _from_service_account(service_account)
    merged = _merge(kubeconfig)
    name = context or merged.current
    if not name:
        raise KubeconfigError(f"{merged.label} has no current-context; pass --context (one of {_names(merged)})")
    if name not in merged.contexts:
        raise KubeconfigError(f"context {name!r} is not in {merged.label} (it has {_names(merged)})")
    configuration = _configuration()
    try:
        kube_config.new_client_from_config_dict(  # type: ignore[no-untyped-call]
            config_dict=merged.node, context=name, persist_config=False, client_configuration=configuration
        )
    except (kube_config.ConfigException, OSError, ValueError, TypeError) as error:
        raise KubeconfigError(f"{merged.label}, context {name!r}: {' '.join(str(error).split())}") from None
    namespace = merged.contexts[name].get("namespace")
    namespace = namespace if isinstance(namespace, str) and namespace else "default"
    return ClientConfig(configuration, namespace, in_cluster=False)


def load_client(
    kubeconfig: str | None,
    context: str | None,
    *,
    timeout: float,
    timeout_flag: str = "--timeout",
    qps: float = defaults.API_QPS,
    burst: int = defaults.API_BURST,
    service_account: Path = SERVICE_ACCOUNT_DIR,
) -> KubeClient:
    """A client for ``context`` of the kubeconfig (see :func:`client_config`), paced at ``qps``.

    ``timeout`` bounds each request and its retries; ``timeout_flag`` is the flag the
    messages name for it.
    """
    found = client_config(kubeconfig, context, service_account=service_account)
    return KubeClient(
        ApiClient(configuration=found.configuration),
        timeout=timeout,
        timeout_flag=timeout_flag,
        default_namespace=found.namespace,
        qps=qps,
        burst=burst,
    )


def _names(merged: _Merged) -> str:
    return ", ".join(repr(name) for name in merged.contexts)
