"""The kubeconfig as kubectl reads it: ``$KUBECONFIG`` merged, ``--kubeconfig`` alone, the pod's service account.

Real files in a temp dir, read by the official client's loader under our corrections; no
API server is contacted (tests/integration/test_kubeconfig.py does, and compares with kubectl).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.config.kube_config import KubeConfigMerger

from constructs_nld.deploy.errors import KubeconfigError
from constructs_nld.deploy.kubeconfig import (
    client_config,
    current_context,
    in_cluster,
    kubeconfig_contexts,
    load_client,
)
from tests.tlsfiles import make_pki


@pytest.fixture(autouse=True)
def _no_ambient_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No kubeconfig or pod around the test unless it makes one: HOME is empty, the variables unset."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE"):
        monkeypatch.delenv(name, raising=False)


def _config(
    clusters: dict[str, dict[str, Any]] | None = None,
    users: dict[str, dict[str, Any]] | None = None,
    contexts: dict[str, dict[str, Any]] | None = None,
    current: str | None = None,
) -> dict[str, Any]:
    config: dict[str, Any] = {"apiVersion": "v1", "kind": "Config"}
    for section, entry, named in (
        ("clusters", "cluster", clusters),
        ("users", "user", users),
        ("contexts", "context", contexts),
    ):
        if named is not None:
            config[section] = [{"name": name, entry: body} for name, body in named.items()]
    if current is not None:
        config["current-context"] = current
    return config


def _write(path: Path, config: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config if isinstance(config, str) else yaml.safe_dump(config, sort_keys=False))
    return path


def _use(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join(str(path) for path in paths))


def _token(found: Any) -> str:
    return str(found.configuration.get_api_key_with_prefix("BearerToken"))


@pytest.fixture
def two_files(tmp_path: Path) -> tuple[Path, Path]:
    """``a.yaml`` and ``b.yaml`` that both define cluster ``shared``, user ``u`` and context ``dup``."""
    a = _write(
        tmp_path / "a.yaml",
        _config(
            clusters={"shared": {"server": "https://a.example:6443"}},
            users={"u": {"token": "from-a"}},
            contexts={"dup": {"cluster": "shared", "user": "u"}, "only-a": {"cluster": "shared", "user": "u"}},
        ),
    )
    b = _write(
        tmp_path / "b.yaml",
        _config(
            clusters={"shared": {"server": "https://b.example:6443"}, "b": {"server": "https://b-only.example"}},
            users={"u": {"token": "from-b"}},
            contexts={
                "dup": {"cluster": "b", "user": "u", "namespace": "from-b"},
                "only-b": {"cluster": "shared", "user": "u", "namespace": "team"},
            },
            current="only-b",
        ),
    )
    return a, b


# --- the merge ---------------------------------------------------------------------------------
def test_kubeconfig_lists_every_files_contexts_first_files_first(
    monkeypatch: pytest.MonkeyPatch, two_files: tuple[Path, Path]
) -> None:
    _use(monkeypatch, *two_files)
    assert kubeconfig_contexts(None) == ("dup", "only-a", "only-b")


def test_the_first_file_that_defines_a_name_wins_whole_not_merged_field_by_field(
    monkeypatch: pytest.MonkeyPatch, two_files: tuple[Path, Path]
) -> None:
    _use(monkeypatch, *two_files)
    dup = client_config(None, "dup")
    assert dup.configuration.host == "https://a.example:6443"  # a's context, a's cluster
    assert _token(dup) == "Bearer from-a"
    assert dup.namespace == "default"  # b's "dup" has a namespace; a's, which wins, has none
    only_b = client_config(None, "only-b")
    assert only_b.configuration.host == "https://a.example:6443"  # b's context names "shared": a's
    assert _token(only_b) == "Bearer from-a"
    assert only_b.namespace == "team"
    assert load_client(None, "only-b", timeout=5).default_namespace == "team"


def test_current_context_comes_from_the_first_file_that_sets_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    contexts = {"x": {"cluster": "k"}, "y": {"cluster": "k"}}
    files = [
        _write(tmp_path / "unset.yaml", _config(contexts=contexts)),
        _write(tmp_path / "empty-string.yaml", _config(current="")),
        _write(tmp_path / "x.yaml", _config(clusters={"k": {"server": "https://k.example"}}, current="x")),
        _write(tmp_path / "y.yaml", _config(current="y")),
        _write(tmp_path / "blank.yaml", {"current-context": ""}),
    ]
    _use(monkeypatch, *files)
    assert current_context(None) == "x"
    assert client_config(None, None).configuration.host == "https://k.example"


def test_the_official_merger_alone_lets_the_last_file_that_has_the_key_win(tmp_path: Path) -> None:
    """Why the module corrects it: kubectl takes the first non-empty one ("x" above)."""
    files = [_write(tmp_path / "x.yaml", _config(current="x")), _write(tmp_path / "blank.yaml", _config(current=""))]
    merger = KubeConfigMerger(os.pathsep.join(str(path) for path in files))  # type: ignore[no-untyped-call]
    assert merger.config["current-context"] == ""


def test_missing_and_empty_files_are_skipped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, two_files: tuple[Path, Path]
) -> None:
    empty = _write(tmp_path / "empty.yaml", "")
    _use(monkeypatch, tmp_path / "missing.yaml", empty, two_files[1], tmp_path / "gone" / "config")
    assert kubeconfig_contexts(None) == ("dup", "only-b")
    assert current_context(None) == "only-b"


def test_kubeconfig_flag_is_that_file_alone(monkeypatch: pytest.MonkeyPatch, two_files: tuple[Path, Path]) -> None:
    a, b = two_files
    _use(monkeypatch, b, a)
    assert kubeconfig_contexts(str(a)) == ("dup", "only-a")
    with pytest.raises(KubeconfigError, match=rf"^kubeconfig {a} has no current-context"):
        current_context(str(a))


@pytest.mark.parametrize("value", [None, ""])
def test_without_kubeconfig_variable_the_default_file_is_read(
    monkeypatch: pytest.MonkeyPatch, two_files: tuple[Path, Path], value: str | None
) -> None:
    if value is not None:
        monkeypatch.setenv("KUBECONFIG", value)
    default = Path(os.environ["HOME"]) / ".kube" / "config"
    _write(default, two_files[1].read_text())
    assert kubeconfig_contexts(None) == ("dup", "only-b")


def test_relative_paths_are_relative_to_the_file_that_holds_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """kubectl's rule; the official loader alone reads a user's certificate and key beside the *cluster's* file."""
    clusters_dir, users_dir = tmp_path / "clusters", tmp_path / "users"
    for path in (clusters_dir / "ca.pem", users_dir / "certs" / "cert.pem", users_dir / "certs" / "key.pem"):
        _write(path, "pem")
    _write(users_dir / "token", "from-file")
    plugin = _write(
        users_dir / "bin" / "credential",
        "#!/bin/sh\necho '"
        '{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "from-exec"}}'
        "'\n",
    )
    plugin.chmod(0o755)
    cluster = {"k": {"server": "https://k.example", "certificate-authority": "ca.pem"}}
    users: dict[str, dict[str, Any]] = {
        "cert": {"client-certificate": "certs/cert.pem", "client-key": "./certs/../certs/key.pem"},
        "file": {"tokenFile": "token"},
        "exec": {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "./bin/credential"}},
    }
    contexts = {name: {"cluster": "k", "user": name} for name in users}
    _use(
        monkeypatch,
        _write(clusters_dir / "clusters.yaml", _config(clusters=cluster)),
        _write(users_dir / "users.yaml", _config(users=users, contexts=contexts)),
    )
    cert = client_config(None, "cert").tls
    assert cert is not None
    assert (cert.ca_file, cert.cert_file, cert.key_file) == (
        str(clusters_dir / "ca.pem"),
        str(users_dir / "certs" / "cert.pem"),
        str(users_dir / "certs" / "key.pem"),
    )
    assert _token(client_config(None, "file")) == "Bearer from-file"
    assert _token(client_config(None, "exec")) == "Bearer from-exec"


# --- refusals ----------------------------------------------------------------------------------
def test_a_missing_kubeconfig_flag_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KubeconfigError) as raised:
        kubeconfig_contexts(str(tmp_path / "nope.yaml"))
    assert (
        str(raised.value)
        == f"no kubeconfig: {tmp_path}/nope.yaml (--kubeconfig) does not exist; pass --kubeconfig FILE"
    )


def test_no_file_of_the_variable_existing_is_refused_naming_them_all(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _use(monkeypatch, tmp_path / "a.yaml", tmp_path / "b.yaml")
    with pytest.raises(KubeconfigError) as raised:
        client_config(None, None)
    assert str(raised.value) == (
        f"no kubeconfig: none of {tmp_path}/a.yaml, {tmp_path}/b.yaml ($KUBECONFIG) exists; pass --kubeconfig FILE"
    )


def test_no_default_file_is_refused() -> None:
    with pytest.raises(KubeconfigError) as raised:
        current_context(None)
    home = os.environ["HOME"]
    assert str(raised.value) == f"no kubeconfig: {home}/.kube/config (default) does not exist; pass --kubeconfig FILE"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("clusters: [\n  - {name: a\n", " is not valid YAML at line 2, column 3"),
        ("- a\n- b\n", " is not a YAML mapping"),
        ("current-context: 5\n", ": current-context must be a string, got 5"),
        ("contexts: {a: {cluster: k}}\n", ": contexts must be a list"),
        ("users: [{name: u, user: {}}, {user: {token: t}}]\n", ": users entry 2 has no name"),
        ("contexts: [just-a-name]\n", ": contexts entry 1 has no name"),
        ("clusters: [{name: k, cluster: {}}, {name: k, cluster: {}}]\n", ": cluster 'k' is defined twice"),
        ("apiVersion: v1\nkind: Config\n", " defines no contexts"),
    ],
)
def test_a_malformed_file_is_refused_naming_it_even_among_good_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, two_files: tuple[Path, Path], text: str, problem: str
) -> None:
    bad = _write(tmp_path / "bad.yaml", text)
    for order in ((bad,), (two_files[0], bad)):
        if problem == " defines no contexts" and len(order) > 1:
            continue  # the good file brings contexts
        _use(monkeypatch, *order)
        with pytest.raises(KubeconfigError) as raised:
            kubeconfig_contexts(None)
        assert str(raised.value) == f"kubeconfig {bad}{problem}"


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KubeconfigError) as raised:
        load_client(str(tmp_path), None, timeout=5)
    assert str(raised.value) == f"cannot read kubeconfig {tmp_path}: Is a directory"


def test_files_with_no_context_between_them_are_refused_naming_them_all(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    files = [_write(tmp_path / "empty.yaml", ""), _write(tmp_path / "clusters.yaml", _config(clusters={"k": {}}))]
    _use(monkeypatch, *files)
    with pytest.raises(KubeconfigError) as raised:
        client_config(None, None)
    assert str(raised.value) == f"kubeconfig {tmp_path}/empty.yaml:{tmp_path}/clusters.yaml defines no contexts"


def test_no_current_context_is_refused_naming_the_files_and_their_contexts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    files = [
        _write(tmp_path / "a.yaml", _config(contexts={"a": {"cluster": "k"}})),
        _write(tmp_path / "b.yaml", _config(contexts={"b": {"cluster": "k"}}, current="")),
    ]
    _use(monkeypatch, *files)
    expected = (
        f"kubeconfig {tmp_path}/a.yaml:{tmp_path}/b.yaml has no current-context; pass --context (one of 'a', 'b')"
    )
    for call in (lambda: current_context(None), lambda: client_config(None, None)):
        with pytest.raises(KubeconfigError) as raised:
            call()
        assert str(raised.value) == expected


def test_an_unknown_context_is_refused_naming_the_files_and_their_contexts(
    monkeypatch: pytest.MonkeyPatch, two_files: tuple[Path, Path]
) -> None:
    a, b = two_files
    _use(monkeypatch, a, b)
    with pytest.raises(KubeconfigError) as raised:
        load_client(None, "prod", timeout=5)
    assert str(raised.value) == f"context 'prod' is not in kubeconfig {a}:{b} (it has 'dup', 'only-a', 'only-b')"


@pytest.mark.parametrize(
    ("files", "context", "problem"),
    [
        (
            [_config(contexts={"c": {"cluster": "gone"}})],
            "c",
            "Invalid kube-config file. Expected object with name gone in {where}/clusters list",
        ),
        (
            [
                _config(clusters={"k": {"server": "https://k.example", "certificate-authority": "ca.pem"}}),
                _config(contexts={"c": {"cluster": "k"}}),
            ],
            "c",
            "File does not exist: {dir}/ca.pem",
        ),
        (
            [
                _config(clusters={"k": {"server": "https://k.example"}}, contexts={"c": {"cluster": "k", "user": "u"}}),
                # a token misplaced beside the name: the official loader's message quoted the whole entry
                {"users": [{"name": "u", "token": "s3cret"}]},
            ],
            "c",
            "Invalid kube-config file. Expected key user in {dir}/f1.yaml/users[name=u]",
        ),
    ],
    ids=["context without its cluster", "certificate file missing", "user without its body"],
)
def test_what_the_official_loader_refuses_is_one_line_naming_the_files_and_context(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, files: list[dict[str, Any]], context: str, problem: str
) -> None:
    paths = [_write(tmp_path / f"f{index}.yaml", config) for index, config in enumerate(files)]
    _use(monkeypatch, *paths)
    where = os.pathsep.join(str(path) for path in paths)
    with pytest.raises(KubeconfigError) as raised:
        client_config(None, context)
    assert str(raised.value) == f"kubeconfig {where}, context {context!r}: " + problem.format(where=where, dir=tmp_path)
    assert "s3cret" not in str(raised.value)


# --- in a pod ----------------------------------------------------------------------------------
@pytest.fixture
def service_account(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A pod's service-account files and variables (no kubeconfig anywhere)."""
    directory = tmp_path / "serviceaccount"
    _write(directory / "token", "pod-token")
    _write(directory / "ca.crt", make_pki(tmp_path / "pki").ca.read_text())
    _write(directory / "namespace", "team-a\n")
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    return directory


def test_in_a_pod_without_kubeconfig_the_service_account_is_used(service_account: Path) -> None:
    assert in_cluster(service_account=service_account)
    assert current_context(None, service_account=service_account) is None
    found = client_config(None, None, service_account=service_account)
    assert found.in_cluster
    assert found.configuration.host == "https://10.96.0.1:443"
    assert found.tls is not None
    assert found.tls.ca_file == str(service_account / "ca.crt")
    assert _token(found) == "bearer pod-token"
    assert found.namespace == "team-a"
    assert load_client(None, None, timeout=5, service_account=service_account).default_namespace == "team-a"


def test_in_a_pod_an_ipv6_service_host_is_bracketed(monkeypatch: pytest.MonkeyPatch, service_account: Path) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "fd00::1")
    assert client_config(None, None, service_account=service_account).configuration.host == "https://[fd00::1]:443"


def test_in_a_pod_the_namespace_is_pod_namespace_then_the_service_accounts_then_default(
    monkeypatch: pytest.MonkeyPatch, service_account: Path
) -> None:
    monkeypatch.setenv("POD_NAMESPACE", "from-downward-api")
    assert client_config(None, None, service_account=service_account).namespace == "from-downward-api"
    monkeypatch.delenv("POD_NAMESPACE")
    (service_account / "namespace").unlink()
    assert client_config(None, None, service_account=service_account).namespace == "default"


def test_in_a_pod_a_kubeconfig_still_wins(
    monkeypatch: pytest.MonkeyPatch, service_account: Path, two_files: tuple[Path, Path]
) -> None:
    a, b = two_files
    assert not in_cluster(str(a), service_account=service_account)
    _use(monkeypatch, service_account / "missing", b)
    assert not in_cluster(service_account=service_account)
    assert current_context(None, service_account=service_account) == "only-b"
    assert not client_config(None, None, service_account=service_account).in_cluster


@pytest.mark.parametrize("missing", ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "token", "token-is-a-dir"])
def test_without_all_of_a_pods_signs_it_is_not_in_cluster(
    monkeypatch: pytest.MonkeyPatch, service_account: Path, missing: str
) -> None:
    if missing.startswith("KUBERNETES_"):
        monkeypatch.setenv(missing, "")
    else:
        (service_account / "token").unlink()
        if missing == "token-is-a-dir":
            (service_account / "token").mkdir()
    assert not in_cluster(service_account=service_account)
    with pytest.raises(KubeconfigError, match=r"^no kubeconfig: .*\(default\) does not exist; pass --kubeconfig FILE$"):
        client_config(None, None, service_account=service_account)


def test_in_a_pod_a_named_context_still_needs_a_kubeconfig(service_account: Path) -> None:
    with pytest.raises(KubeconfigError, match=r"^no kubeconfig: "):
        client_config(None, "prod", service_account=service_account)
    with pytest.raises(KubeconfigError, match=r"^no kubeconfig: "):
        kubeconfig_contexts(None)


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        ("ca.crt", "Service certification file does not exist"),
        ("empty ca.crt", "Cert file exists but empty"),
        ("empty token", "Token file exists but empty"),
    ],
)
def test_broken_service_account_files_are_refused_on_one_line(service_account: Path, damage: str, problem: str) -> None:
    if damage == "ca.crt":
        (service_account / "ca.crt").unlink()
    else:
        (service_account / damage.split()[1]).write_text("")
    with pytest.raises(KubeconfigError) as raised:
        client_config(None, None, service_account=service_account)
    assert str(raised.value) == f"in-cluster configuration ({service_account}): {problem}"
