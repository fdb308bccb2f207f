"""Raw HTTP on asyncio servers, to test the gateway's transports."""

from __future__ import annotations

import asyncio

TRANSPORTS = ("aiohttp", "httpx")


async def read_request(reader: asyncio.StreamReader) -> bytes | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return head + await reader.readexactly(length)
