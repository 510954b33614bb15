"""Serves Keystone's WSGI application for the stackops keystone-operator tests.

usage: python serve.py <keystone.conf> <host> <port>     (port 0 picks a free port)

Prints "LISTENING <port>" once the socket is bound, and exits when its stdin closes, so a test
process that dies never leaves a Keystone behind.
"""

import os
import sys
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


def one_request_at_a_time(application):
    """Keystone here runs on sqlite, which refuses concurrent writers ("database is locked", a 500
    to the client): a password update next to a token request failed under load. A deployment uses
    MariaDB; the tests want Keystone's answers, not sqlite's locking, so requests run one at a time
    (each still on its own thread, so a slow client never holds the others' connections)."""
    lock = threading.Lock()

    def serialized(environ, start_response):
        with lock:
            result = application(environ, start_response)
            try:
                return list(result)
            finally:
                if hasattr(result, "close"):
                    result.close()

    return serialized


def exit_when_stdin_closes(server):
    sys.stdin.read()
    server.shutdown()
    os._exit(0)


def main():
    config, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.environ["OS_KEYSTONE_CONFIG_FILES"] = config
    # Keystone parses sys.argv with oslo.config: leave it nothing to misread.
    sys.argv = sys.argv[:1]
    from keystone.wsgi.api import application

    server = make_server(host, port, one_request_at_a_time(application), server_class=ThreadingServer, handler_class=QuietHandler)
    threading.Thread(target=exit_when_stdin_closes, args=(server,), daemon=True).start()
    print(f"LISTENING {server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
