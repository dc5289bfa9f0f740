#!/usr/bin/env python3
"""A TCP proxy in front of an HTTP server that loses the server's answer: the first N final
answers with a given status (201 by default) are never passed on, and the client's connection is
closed instead, as a venue's Wi-Fi drops the packet that carried "got it". Everything else (the
request, interim 1xx answers, other answers) passes through unchanged, at --rate bytes a second
when given (a slow link, so that a download is long enough to be killed in the middle; with
--cut 0 the proxy only slows).

    python3 scripts/cut_answer_proxy.py --target 127.0.0.1:8080 [--port 0] [--cut 1] [--every 1] [--status 201] [--any-answer]
        [--rewrite-host] [--rate BYTES_PER_SECOND]

Prints "proxy listening on 127.0.0.1:PORT" once ready, and "cut answer N" for each answer it
loses. Loopback only."""

import argparse
import asyncio
import re
import sys

from peers import end_with_parent

STATUS_LINE = re.compile(rb"^HTTP/1\.[01] (\d{3})")
LATER_STATUS_LINE = re.compile(rb"(?:^|\n)(HTTP/1\.[01] (\d{3}) )")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True, help="HOST:PORT of the server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cut", type=int, default=1, help="how many answers to lose")
    parser.add_argument("--every", type=int, default=1,
                        help="lose every Nth answer of the status (until --cut are lost), so that a client that "
                             "retries the first step of a conversation gets through it to the later ones")
    parser.add_argument("--status", type=int, default=201, help="the status of the answers to lose")
    parser.add_argument("--any-answer", action="store_true",
                        help="look at every answer on a kept-alive connection, not only its first (a client that "
                             "asks something before it uploads): a later answer is found by its status line at the "
                             "start of a read")
    parser.add_argument("--rewrite-host", action="store_true",
                        help="send the server its own address as the Host header, and in its answers put the "
                             "proxy's address where the server's own is (same length: both are 5-digit loopback "
                             "ports), so that a site that names itself (WordPress's Link header and URLs) is "
                             "reached through the proxy")
    parser.add_argument("--rate", type=int, default=0,
                        help="pass the server's answers on at about this many bytes a second (0: as fast as they come)")
    options = parser.parse_args()
    host, port = options.target.rsplit(":", 1)
    left = {"cuts": options.cut, "seen": 0, "matching": 0}
    own_host = {}

    async def pump_requests(reader, writer):
        try:
            while chunk := await reader.read(1 << 16):
                if options.rewrite_host and "line" in own_host:
                    chunk = chunk.replace(own_host["line"], b"Host: " + options.target.encode())
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            try:
                writer.write_eof()
            except (OSError, RuntimeError):
                pass

    def as_proxy(chunk):
        if options.rewrite_host and "answer" in own_host and len(own_host["answer"][0]) == len(own_host["answer"][1]):
            return chunk.replace(*own_host["answer"])
        return chunk

    def lose_this_one():
        """Counts an answer of the status; true when it is one to lose."""
        if left["cuts"] <= 0:
            return False
        left["matching"] += 1
        if left["matching"] % options.every:
            return False
        left["cuts"] -= 1
        left["seen"] += 1
        print(f"cut answer {left['seen']}", flush=True)
        return True

    async def pass_on(client, data):
        """Writes `data` to the client, in twentieths of a second's worth at --rate."""
        if not options.rate:
            client.write(data)
            return
        step = max(1, options.rate // 20)
        for start in range(0, len(data), step):
            piece = data[start:start + step]
            client.write(piece)
            await client.drain()
            await asyncio.sleep(len(piece) / options.rate)

    async def pump_answers(server, client):
        """Passes the server's bytes on, reading the status line of the connection's first
        final answer (interim 1xx answers pass); an answer to lose closes the client's connection
        before any of its bytes reach it."""
        buffer = b""
        inspecting = True
        try:
            while chunk := await server.read(1 << 16):
                chunk = as_proxy(chunk)
                if not inspecting:
                    later = LATER_STATUS_LINE.search(chunk) if options.any_answer and left["cuts"] > 0 else None
                    if later and int(later.group(2)) == options.status and lose_this_one():
                        await pass_on(client, chunk[:later.start(1)])
                        await client.drain()
                        client.transport.abort()
                        return
                    await pass_on(client, chunk)
                    await client.drain()
                    continue
                buffer += chunk
                while inspecting and b"\r\n" in buffer:
                    match = STATUS_LINE.match(buffer)
                    status = int(match.group(1)) if match else 0
                    if 100 <= status < 200:
                        if b"\r\n\r\n" not in buffer:
                            break
                        end = buffer.index(b"\r\n\r\n") + 4
                        await pass_on(client, buffer[:end])
                        buffer = buffer[end:]
                        continue
                    if status == options.status and lose_this_one():
                        client.transport.abort()
                        return
                    inspecting = False
                if not inspecting and buffer:
                    await pass_on(client, buffer)
                    buffer = b""
                await client.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            client.close()

    async def serve(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pump_requests(client_reader, server_writer), pump_answers(server_reader, client_writer))
        server_writer.close()

    end_with_parent()
    server = await asyncio.start_server(serve, "127.0.0.1", options.port)
    bound = server.sockets[0].getsockname()[1]
    own_host["line"] = b"Host: 127.0.0.1:%d" % bound
    own_host["answer"] = (b"127.0.0.1:" + port.encode(), b"127.0.0.1:%d" % bound)
    print(f"proxy listening on 127.0.0.1:{bound}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
