#!/usr/bin/env python3
"""A TCP proxy on loopback that holds every chunk it forwards for DELAY_MS, each way: a network
between a client and its server, for pg_bench.sh -l (fairdeckd's database across a link).

    delay_proxy.py LISTEN_PORT TARGET_PORT DELAY_MS

Order is kept per direction. asyncio's timers wake on whole milliseconds (epoll), so a chunk
waits between DELAY_MS and about DELAY_MS + 1; pg_bench.sh prints the round trip measured
through it."""
import asyncio
import sys


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def sender():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    task = asyncio.create_task(sender())
    try:
        while True:
            data = await reader.read(1 << 16)
            queue.put_nowait((loop.time() + delay, data))
            if not data:
                break
    except ConnectionError:
        queue.put_nowait((0.0, b""))
    await task


async def main(listen, target, delay):
    async def handle(client_r, client_w):
        server_r, server_w = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(client_r, server_w, delay), pipe(server_r, client_w, delay), return_exceptions=True)

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: delay_proxy.py LISTEN_PORT TARGET_PORT DELAY_MS")
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000))
