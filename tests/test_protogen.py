"""The committed generated code matches proto/: regenerate and compare byte for byte."""

from __future__ import annotations

import importlib.util
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[1] / "proto" / "generate.py"
_spec = importlib.util.spec_from_file_location("proto_generate", GENERATOR)
assert _spec is not None and _spec.loader is not None
protogen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(protogen)


def test_generated_code_is_current(tmp_path: Path) -> None:
    fresh = protogen.generate(tmp_path)
    assert fresh, "protoc wrote nothing"
    committed = protogen.ROOT / "arena" / "v1"
    for path in fresh:
        current = committed / path.name
        assert current.exists(), f"{path.name} is not committed: run python proto/generate.py"
        assert current.read_bytes() == path.read_bytes(), (
            f"arena/v1/{path.name} is stale: run python proto/generate.py"
        )
    names = {path.name for path in fresh}
    stale = [p.name for p in committed.glob("*_pb2*.py*") if p.name not in names]
    assert not stale, f"generated files without a proto: {stale}"


def test_the_generated_modules_import_as_arena_v1() -> None:
    from arena.v1 import bench_pb2_grpc, player_pb2, player_pb2_grpc

    assert player_pb2.DESCRIPTOR.package == "arena.v1"
    assert hasattr(player_pb2_grpc, "PlayerServiceServicer")
    assert hasattr(bench_pb2_grpc, "EchoServiceStub")
