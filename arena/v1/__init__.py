"""Generated code of proto/arena/v1 (python proto/generate.py); do not edit."""
