"""Loaded by Python at start-up when this folder is on PYTHONPATH: the service processes that
tests start get the same network block as the test process (loopback and unix sockets only)."""

import os
import socket
from collections.abc import Callable

ENV_FLAG = "CE_TEST_BLOCK_NETWORK"
_LOCAL_HOSTS = {"127.0.0.1", "::1", "localhost", "test"}
_real_connect = socket.socket.connect
_real_getaddrinfo = socket.getaddrinfo


def is_local(address: object) -> bool:
    if isinstance(address, str | bytes):  # a unix socket path
        return True
    if isinstance(address, tuple) and address:
        host = str(address[0])
        return host in _LOCAL_HOSTS or host.startswith("127.")
    return False


def guarded_connect(self: socket.socket, address: object) -> None:
    if not is_local(address):
        raise ConnectionRefusedError(f"tests may not reach the network: {address!r}")
    _real_connect(self, address)  # type: ignore[arg-type]  # is_local checked its shape


def guarded_getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
    if host is not None and not is_local((host,)):
        raise socket.gaierror(f"tests may not resolve {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]  # passed through


def install(setattr_: Callable[[object, str, object], None] = setattr) -> None:
    """Replace socket.connect and socket.getaddrinfo with the guarded versions."""
    setattr_(socket.socket, "connect", guarded_connect)
    setattr_(socket, "getaddrinfo", guarded_getaddrinfo)


if os.environ.get(ENV_FLAG) == "1":
    install()
