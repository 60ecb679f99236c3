"""``arena dashboard``: the web pages and the API."""

from __future__ import annotations

import socket
from typing import Annotated

import typer

from arena.cli.platform import out

app = typer.Typer()


@app.command("dashboard")
def dashboard_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    fd: Annotated[
        int | None,
        typer.Option(help="Serve on this listening socket, inherited (arena up binds it)."),
    ] = None,
) -> None:
    """Serve the dashboard and the API (http://HOST:PORT/, the API under /api/v1)."""
    import uvicorn

    from arena.platform.settings import Settings
    from dashboard import server
    from dashboard.app import create_app

    settings = Settings.from_env()
    app = create_app(settings)
    server.freeze_heap()
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    out.print(
        f"Dashboard: http://{shown}:{port}/  (API: /api/v1, docs: /docs); Ctrl-C stops it",
        markup=False,
    )
    if fd is not None:
        # uvicorn's own ``fd=`` takes any inherited socket for a Unix one, and asyncio then
        # leaves Nagle's algorithm on for its TCP connections: each answer on a kept-alive
        # connection waited ~40 ms for the client's delayed ACK (arena bench site)
        config = server.config(app, settings.trusted_proxies, log_level="info", access_log=True)
        uvicorn.Server(config).run(sockets=[inherited(fd)])
        return
    config = server.config(
        app, settings.trusted_proxies, host=host, port=port, log_level="info", access_log=True
    )
    uvicorn.Server(config).run()


def inherited(fd: int) -> socket.socket:
    """The listening socket behind ``fd``, with its own family (TCP: asyncio then turns
    Nagle's algorithm off for each connection)."""
    return socket.socket(fileno=fd)
