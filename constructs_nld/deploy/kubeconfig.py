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

import base64
import binascii
import os
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import yaml
from kubernetes import config as kube_config
from kubernetes.client import ApiClient, Configuration
from kubernetes.config.incluster_config import InClusterConfigLoader
from kubernetes.config.kube_config import KubeConfigMerger

from constructs_nld import defaults
from constructs_nld.deploy.errors import KubeconfigError
from constructs_nld.deploy.execplugin import ExecCredential, run_plugin
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.redact import keep_secret
from constructs_nld.deploy.transport import TlsMaterial, tls_context, watched_pools

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
    tls: TlsMaterial | None = None
    """The CA and client certificate to connect with, held in memory (None: plain HTTP)."""


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
            _check_entry(path, entry, name, item.get(entry))
    return data


_STRINGS: Final = {
    "cluster": ("server", "certificate-authority", "certificate-authority-data", "tls-server-name", "proxy-url"),
    "user": (
        "token",
        "tokenFile",
        "client-certificate",
        "client-certificate-data",
        "client-key",
        "client-key-data",
        "username",
        "password",
    ),
    "context": ("cluster", "user", "namespace"),
}
"""The string fields of each kind of entry: another type is refused before the official loader meets it."""


def _check_entry(path: Path, entry: str, name: str, body: object) -> None:
    """One entry's body: a mapping (or absent), its string fields strings."""
    if body is None:
        return
    if not isinstance(body, dict):
        kind = type(body).__name__
        raise KubeconfigError(f"kubeconfig {path}: {entry} {name!r}: {entry} must be a mapping, got a {kind}")
    for key in _STRINGS[entry]:
        if key in body and not isinstance(body[key], str):
            raise KubeconfigError(f"kubeconfig {path}: {entry} {name!r}: {key} must be a string")
    if "insecure-skip-tls-verify" in body and not isinstance(body["insecure-skip-tls-verify"], bool):
        raise KubeconfigError(f"kubeconfig {path}: {entry} {name!r}: insecure-skip-tls-verify must be true or false")


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
    # No retry below ours: urllib3's would resend within each of KubeClient's attempts, past its deadline
    # (3 read timeouts of --timeout each), and a 429 unseen. Every failure reaches KubeClient's retries.
    configuration.retries = False
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
    return _in_memory(ClientConfig(configuration, _pod_namespace(service_account), in_cluster=True), TlsMaterial())


def _entry(merged: _Merged, section: str, name: object) -> dict[str, Any] | None:
    """The body of the first entry ``name`` of ``section`` in the merged kubeconfig (the one the loader uses)."""
    for item in merged.node.value[section]:
        if item.value.get("name") == name:
            body = item.value.get(_SECTIONS[section])
            return body if isinstance(body, dict) else None
    return None


def _take_data(body: dict[str, Any] | None, key: str, where: str) -> bytes | None:
    """Remove a ``*-data`` field from ``body`` (so that the loader writes no file of it); its bytes."""
    value = body.pop(key, None) if body is not None else None
    if value is None or value == "":
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise KubeconfigError(f"{where}: {key} is not base64") from None


def _keep_credentials(configuration: Configuration) -> None:
    """Register the configuration's token or password, so that no line prints it."""
    for value in configuration.api_key.values():
        if isinstance(value, str):
            keep_secret(value.split(" ", 1)[-1])
    if isinstance(configuration.password, str):
        keep_secret(configuration.password)


def _in_memory(found: ClientConfig, taken: TlsMaterial) -> ClientConfig:
    """``found`` with its TLS files and data moved into :attr:`ClientConfig.tls` (the configuration names no file)."""
    configuration = found.configuration
    _keep_credentials(configuration)
    tls = None
    if str(configuration.host).startswith("https"):
        tls = replace(
            taken,
            ca_file=configuration.ssl_ca_cert,
            cert_file=configuration.cert_file,
            key_file=configuration.key_file,
            verify=bool(configuration.verify_ssl),
        )
    configuration.ssl_ca_cert = configuration.cert_file = configuration.key_file = None
    return replace(found, tls=tls)


_REFRESH_MARGIN: Final = 30.0
"""Seconds before an exec credential expires that it is asked for again, so that no request carries an expired one."""


def _refresher(
    plugin: object, cluster: Mapping[str, Any] | None, expiry: float, run: Callable[..., ExecCredential]
) -> Callable[[Configuration], None]:
    """The hook the official client calls before each request: a new token from the plugin once it nears expiry."""
    expires = [expiry]

    def refresh(configuration: Configuration) -> None:
        if time.time() < expires[0] - _REFRESH_MARGIN:
            return
        credential = run(plugin, cluster)
        if credential.token is None:
            raise KubeconfigError("the exec plugin gave a client certificate where it gave a token before")
        configuration.api_key["BearerToken"] = f"Bearer {credential.token}"
        expires[0] = credential.expiry if credential.expiry is not None else float("inf")

    return refresh


def client_config(
    kubeconfig: str | None,
    context: str | None,
    *,
    timeout: float = defaults.DEPLOY_TIMEOUT,
    timeout_flag: str = "--timeout",
    service_account: Path = SERVICE_ACCOUNT_DIR,
) -> ClientConfig:
    """How to reach ``context`` (None: the current one) of the kubeconfig, or, in a pod with none, its own cluster.

    A missing or malformed kubeconfig, an unknown context or a failing exec plugin raises
    :class:`KubeconfigError` with one line naming the file(s) and what is wrong. The
    context's exec plugin runs within ``timeout`` seconds (``timeout_flag`` names them).
    No credential is written to a file: the ``*-data`` fields and a plugin's certificate
    stay in memory (:attr:`ClientConfig.tls`). ``service_account`` is where the pod's
    token, CA and namespace are.
    """
    if context is None and in_cluster(kubeconfig, service_account=service_account):
        return _from_service_account(service_account)
    merged = _merge(kubeconfig)
    name = context or merged.current
    if not name:
        raise KubeconfigError(f"{merged.label} has no current-context; pass --context (one of {_names(merged)})")
    if name not in merged.contexts:
        raise KubeconfigError(f"context {name!r} is not in {merged.label} (it has {_names(merged)})")
    where = f"{merged.label}, context {name!r}"
    cluster = _entry(merged, "clusters", merged.contexts[name].get("cluster"))
    user = _entry(merged, "users", merged.contexts[name].get("user"))
    taken = TlsMaterial(
        ca_data=_take_data(cluster, "certificate-authority-data", where),
        cert_data=_take_data(user, "client-certificate-data", where),
        key_data=_take_data(user, "client-key-data", where),
    )
    refresh: Callable[[Configuration], None] | None = None
    if user is not None and "exec" in user:
        plugin = user.pop("exec")

        def run(plugin: object, cluster: Mapping[str, Any] | None) -> ExecCredential:
            return run_plugin(plugin, cluster, timeout=timeout, timeout_flag=timeout_flag, where=where)

        credential = run(plugin, cluster)
        if credential.token is not None:
            user["token"] = credential.token
            if credential.expiry is not None:
                refresh = _refresher(plugin, cluster, credential.expiry, run)
        else:
            taken = replace(taken, cert_data=credential.certificate, key_data=credential.key)
    configuration = _configuration()
    try:
        kube_config.new_client_from_config_dict(  # type: ignore[no-untyped-call]
            config_dict=merged.node, context=name, persist_config=False, client_configuration=configuration
        )
    except Exception as error:  # the official loader's errors have no common base (ConfigException, KeyError, …)
        raise KubeconfigError(f"{where}: {' '.join(str(error).split()) or type(error).__name__}") from None
    if refresh is not None:
        configuration.refresh_api_key_hook = refresh  # type: ignore[assignment]  # typed None in the client
    namespace = merged.contexts[name].get("namespace")
    namespace = namespace if isinstance(namespace, str) and namespace else "default"
    return _in_memory(ClientConfig(configuration, namespace, in_cluster=False), taken)


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

    ``timeout`` bounds each request and its retries, and the exec plugin; ``timeout_flag``
    is the flag the messages name for it.
    """
    found = client_config(
        kubeconfig, context, timeout=timeout, timeout_flag=timeout_flag, service_account=service_account
    )
    try:
        context_tls: ssl.SSLContext | None = None if found.tls is None else tls_context(found.tls)
    except (ssl.SSLError, OSError, ValueError) as error:
        which = "the pod's service account" if found.in_cluster else f"context {context or 'current'!r}"
        raise KubeconfigError(f"{which}: its certificate, key or CA does not load ({error})") from None
    api = ApiClient(configuration=found.configuration)
    watched_pools(api.rest_client.pool_manager, context_tls)
    return KubeClient(
        api,
        timeout=timeout,
        timeout_flag=timeout_flag,
        default_namespace=found.namespace,
        qps=qps,
        burst=burst,
    )


def _names(merged: _Merged) -> str:
    return ", ".join(repr(name) for name in merged.contexts)
