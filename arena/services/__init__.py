"""The platform's use cases, above the store: what the CLI, the API and the pages ask
for, each one function taking a request and giving back a frozen dataclass (pydantic
reads them with ``from_attributes``; ``--json`` prints them). The store keeps the
models, the queries and the exactly-once write."""
