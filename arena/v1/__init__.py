"""Generated code of proto/arena/v1 (python -m arena.protogen); do not edit."""
