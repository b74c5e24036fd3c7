"""fakehttp.py - what the Python HTTP fakes (mcp_http.py, mcp_modern.py,
authserver.py) share: sending a whole body, and serving until killed."""

import json
import socket


class Sending:
    """A mixin for a BaseHTTPRequestHandler: a reply with a body of known
    length (no Content-Type when both body and ctype are empty)."""

    def send_body(self, code, body, ctype, headers=()):
        self.send_response(code)
        if body or ctype:
            self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, code, obj, headers=()):
        self.send_body(code, json.dumps(obj).encode(), 'application/json',
                       headers)

    def send_text(self, code, text, headers=()):
        self.send_body(code, text.encode(), 'text/plain', headers)


def serve(srv, port=None):
    """Print the port the test reads (srv's own unless given), then serve
    srv until SIGINT."""
    print(srv.server_address[1] if port is None else port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


def non_loopback_ipv4():
    """An IPv4 address of this host other than loopback (the one a
    default route would use), or None."""
    for probe in ('192.0.2.1', '10.255.255.255', '8.8.8.8'):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                ip = s.getsockname()[0]
            if not ip.startswith('127.') and ip != '0.0.0.0':
                return ip
        except OSError:
            continue
    return None
