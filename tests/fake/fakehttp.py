"""fakehttp.py - what the Python HTTP fakes (mcp_http.py, mcp_modern.py,
authserver.py) share: serving until killed."""


def serve(srv, port=None):
    """Print the port the test reads (srv's own unless given), then serve
    srv until SIGINT."""
    print(srv.server_address[1] if port is None else port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
