"""Regenerate the Python code of ``proto/`` into ``arena/v1/``: ``python proto/generate.py``
(it needs grpcio-tools, a development dependency: ``make test`` installs it).

The generated modules are committed (so installing Arena needs no code
generation); ``tests/test_protogen.py`` fails when they are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = ROOT / "proto"
OUTPUT = ROOT  # proto/arena/v1/x.proto -> arena/v1/x_pb2.py, importable as arena.v1.x_pb2


def proto_files() -> list[Path]:
    return sorted((PROTO_ROOT / "arena").rglob("*.proto"))


def generate(output: Path = OUTPUT) -> list[Path]:
    """Run protoc (from grpcio-tools) and return the files written."""
    from grpc_tools import protoc

    files = [str(path.relative_to(PROTO_ROOT)) for path in proto_files()]
    include = str(Path(protoc.__file__).parent / "_proto")
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={output}",
        f"--pyi_out={output}",
        f"--grpc_python_out={output}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed on {files}")
    return sorted((output / "arena" / "v1").glob("*_pb2*.py*"))


def main() -> None:
    for path in generate():
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    sys.exit(main())
