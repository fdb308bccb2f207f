"""A real multi-node Ray cluster on this machine, started as a lab starts one (`ray start`).

`LocalRayCluster` runs `ray start --head --block` and `ray start --address HEAD --block` for
each further node, every node a child process in its own process group, with its own ports
(free ones from the OS), a small object store, no dashboard, a temp dir and an auth token of
its own (drivers get it through `cluster.env`). Ray resolves `--node-ip-address=127.0.0.1` to
the machine's own address, so the cluster listens there: this machine has no other network.
A node is stopped by killing its process group and every process descended from it, by
pid: never `ray stop`, which would stop every Ray on the machine (other test sessions' too).

    cluster = LocalRayCluster(tmp_root)
    try:
        cluster.start_head(num_cpus=1)
        node = cluster.add_node(num_cpus=1, resources={"lab_node": 1})
        cluster.wait_for_nodes(2)
        ... storyscope ... --executor ray --ray-address cluster.address
        cluster.kill_node(node)          # a node lost mid-run
    finally:
        cluster.stop()
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
NODE_START_TIMEOUT_S = 180


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class RayNode:
    name: str
    process: subprocess.Popen
    log: Path


class LocalRayCluster:
    """Ray nodes started by `ray start` on this machine; see the module docstring."""

    def __init__(self, root: Path, object_store_mb: int = 100) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        # Ray's socket paths live under the temp dir and must stay short (108 chars).
        self.temp_dir = Path(f"/tmp/rayc{os.getpid()}_{int(time.time()) % 100000}")
        self.object_store_bytes = object_store_mb * 2**20
        self.gcs_port = free_port()
        self.nodes: list[RayNode] = []
        # Ray >= 2.5x clusters started by `ray start` require a token of every driver and node.
        # This cluster's own token (not ~/.ray/auth_token, which other Rays on the machine may
        # use): nodes and drivers find it through `self.env`.
        token = self.root / "auth_token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        self.env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.gcs_port}"

    def _node_ports(self) -> list[str]:
        low = free_port()
        return [
            f"--node-manager-port={free_port()}",
            f"--object-manager-port={free_port()}",
            f"--dashboard-agent-listen-port={free_port()}",
            f"--dashboard-agent-grpc-port={free_port()}",
            f"--metrics-export-port={free_port()}",
            f"--runtime-env-agent-port={free_port()}",
            f"--min-worker-port={low}",
            f"--max-worker-port={low + 40}",
        ]

    def _start(self, name: str, args: list[str], env: dict | None = None) -> RayNode:
        log = self.root / f"{name}.log"
        command = [
            RAY,
            "start",
            "--block",
            "--node-ip-address=127.0.0.1",
            f"--object-store-memory={self.object_store_bytes}",
            "--disable-usage-stats",
            *self._node_ports(),
            *args,
        ]
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed as a whole, alone
                env={**os.environ, **self.env, **(env or {})},
            )
        node = RayNode(name, process, log)
        self.nodes.append(node)
        return node

    def start_head(self, num_cpus: int = 1, env: dict | None = None) -> RayNode:
        return self._start(
            "head",
            [
                "--head",
                f"--port={self.gcs_port}",
                f"--temp-dir={self.temp_dir}",
                "--include-dashboard=false",
                f"--num-cpus={num_cpus}",
            ],
            env,
        )

    def add_node(
        self, num_cpus: int = 1, resources: dict | None = None, env: dict | None = None
    ) -> RayNode:
        args = [f"--address={self.address}", f"--num-cpus={num_cpus}"]
        if resources:
            args.append(f"--resources={json.dumps(resources)}")
        return self._start(f"node{len(self.nodes)}", args, env)

    def cluster_state(self) -> dict:
        """Alive nodes and total resources, asked of the cluster by a short driver process."""
        probe = (
            f"import json, ray; ray.init(address={self.address!r}, log_to_driver=False,"
            " configure_logging=False); print(json.dumps({'alive': sum(n['Alive'] for n in"
            " ray.nodes()), 'resources': ray.cluster_resources()}))"
        )
        out = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            timeout=90,
            env={**os.environ, **self.env},
        )
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {"alive": 0, "resources": {}}

    def wait_for_nodes(self, alive: int) -> dict:
        """Wait until `alive` nodes are up (and the head's GCS answers); return the state."""
        deadline = time.monotonic() + NODE_START_TIMEOUT_S
        state: dict = {}
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.process.poll() is not None:
                    raise RuntimeError(f"ray node {node.name} exited: {node.log.read_text()}")
            state = self.cluster_state()
            if state["alive"] >= alive:
                return state
            time.sleep(2)
        raise TimeoutError(f"{alive} Ray nodes not up after {NODE_START_TIMEOUT_S} s: {state}")

    def kill_node(self, node: RayNode, sig: int = signal.SIGKILL, grace_s: float = 10.0) -> None:
        """Stop one node: its process group and every process descended from it, by pid.
        With SIGTERM, whatever is still alive after `grace_s` is then killed."""
        pids = {node.process.pid, *_descendants(node.process.pid)}
        _signal(pids, sig, group=node.process.pid)
        deadline = time.monotonic() + (grace_s if sig != signal.SIGKILL else 5.0)
        while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
            time.sleep(0.2)
        _signal({pid for pid in pids if _alive(pid)}, signal.SIGKILL, group=None)
        try:
            node.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if node in self.nodes:
            self.nodes.remove(node)

    def stop(self) -> None:
        """Stop every node (workers first, the head last) and remove the cluster's temp dir."""
        for node in list(reversed(self.nodes)):
            self.kill_node(node, signal.SIGTERM)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _signal(pids: set[int], sig: int, group: int | None) -> None:
    if group is not None:
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie left for its parent to reap counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _descendants(root: int) -> list[int]:
    """Every process descended from `root` (read from /proc: children by parent pid)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
