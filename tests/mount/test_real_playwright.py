"""The problem mcpfs exists to solve, against the real @playwright/mcp
(pinned in package.json, run from node_modules) driving Debian's headless
Chromium: browser_navigate on a thread, then browser_take_screenshot on the
same thread, shows the page that was navigated to, and not about:blank.

What a direct stdio session showed (explored before mcpfs existed):
* Entry point: node node_modules/@playwright/mcp/cli.js --headless
  --browser chromium --executable-path /usr/bin/chromium --no-sandbox
  --isolated --output-dir DIR. It downloads nothing at start (the browser is
  the executable given; ~/.cache/ms-playwright stays empty) and needs no
  further flag here as root on a closed network: --no-sandbox is what root
  needs. The browser starts lazily, on the first browser_* call (about 2 s),
  and inherits the server's environment (MCPFS_TEST_TAG reaches chromium and
  its crashpad handlers). Chromium itself looks up accounts.google.com in
  the background; that fails here and changes nothing.
* initialize: serverInfo {"name": "Playwright", "version": "1.64.0-..."},
  capabilities {"tools": {"listChanged": true}}.
* browser_navigate {"url": URL} -> content [{"type": "text", "text":
  "### Ran Playwright code ... await page.goto('URL') ... ### Page
  - Page URL: URL ..."}]; it also writes a snapshot .yml and a console log
  into the output dir (workspace root is the cwd).
* browser_take_screenshot {} (optional type png|jpeg|webp, filename,
  fullPage, target/element) -> content [{"type": "text", "text":
  "### Result - [Screenshot of viewport](./page-....png) ..."},
  {"type": "image", "mimeType": "image/png", "data": BASE64}]: a 1280x720
  RGB PNG of the viewport, also saved in the output dir.
"""

import base64
import functools
import http.server
import os
import shutil
import struct
import subprocess
import threading
import zlib
from pathlib import Path

import pytest

from conftest import (REPO, call, status, text, wait_until, pid_alive,
                      proc_read, proc_stat, procs)

PLAYWRIGHT = REPO / 'node_modules/@playwright/mcp/cli.js'
CHROMIUM = Path('/usr/bin/chromium')

PAGE_RGB = (0xff, 0x00, 0xff)
PAGE = ('<!doctype html><html><head><title>mcpfs magenta</title>'
        '<style>html,body{margin:0;height:100%;background:#ff00ff}</style>'
        '</head><body><div style="position:fixed;inset:0;'
        'background:#ff00ff"></div></body></html>')


def _missing():
    if not PLAYWRIGHT.exists():
        return f'{PLAYWRIGHT} missing (run npm ci in the repository)'
    if not shutil.which('node'):
        return 'node is not installed'
    if not CHROMIUM.exists():
        return f'{CHROMIUM} missing (apt-get install chromium)'
    return None


pytestmark = pytest.mark.skipif(_missing() is not None,
                                reason=_missing() or '')


def playwright(outdir):
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return {'command': 'node',
            'args': [str(PLAYWRIGHT), '--headless', '--browser', 'chromium',
                     '--executable-path', str(CHROMIUM), '--no-sandbox',
                     '--isolated', '--output-dir', str(outdir)],
            'cwd': str(outdir), 'timeout': 60}


# ---------------------------------------------------------------- PNG

def decode_png(data):
    """A small PNG decoder: bit depth 8, colour types 2 (RGB) and 6 (RGBA),
    no interlace, filters 0-4. Checks the signature and the CRC of every
    critical chunk (IHDR, PLTE, IDAT, IEND); like libpng, it skips ancillary
    chunks without insisting on their CRC (server-everything's tiny image
    ships an iCCP chunk whose CRC is wrong).
    Returns (width, height, bpp, rows): bpp 3 (RGB) or 4 (RGBA), rows a
    list of bytes objects of width * bpp bytes each."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n', f'not a PNG: {data[:8]!r}'
    pos, idat, ihdr, end = 8, [], None, False
    while pos < len(data):
        length, ctype = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])
        assert len(body) == length, f'truncated {ctype!r} chunk'
        if ctype in (b'IHDR', b'PLTE', b'IDAT', b'IEND'):
            assert zlib.crc32(ctype + body) == crc, f'bad CRC in {ctype!r}'
        pos += 12 + length
        if ctype == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif ctype == b'IDAT':
            idat.append(body)
        elif ctype == b'IEND':
            end = True
            break
    assert ihdr and end and idat, 'PNG without IHDR, IDAT or IEND'
    width, height, depth, colour, _comp, _filt, interlace = ihdr
    assert depth == 8 and colour in (2, 6) and interlace == 0, \
        f'unsupported PNG: depth {depth} colour type {colour} ' \
        f'interlace {interlace}'
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b''.join(idat))
    assert len(raw) == height * (stride + 1), 'IDAT size does not match IHDR'
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xff
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        else:
            assert f == 0, f'bad filter type {f} on row {y}'
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def colour_fraction(png, rgb, tol=8):
    """Fraction of the pixels of a PNG within tol of rgb on each channel."""
    width, height, bpp, rows = decode_png(png)
    hit = 0
    for row in rows:
        for i in range(0, width * bpp, bpp):
            if abs(row[i] - rgb[0]) <= tol and \
                    abs(row[i + 1] - rgb[1]) <= tol and \
                    abs(row[i + 2] - rgb[2]) <= tol:
                hit += 1
    return hit / (width * height)


def screenshot_png(reply):
    """The one image of a browser_take_screenshot reply, decoded from
    base64 (its mimeType must say PNG)."""
    assert reply.get('isError') is not True, f'tool error: {reply!r}'
    images = [c for c in reply['content'] if c.get('type') == 'image']
    assert len(images) == 1, f'expected one image item: {reply!r}'[:2000]
    assert images[0]['mimeType'] == 'image/png'
    return base64.b64decode(images[0]['data'], validate=True)


# ---------------------------------------------------------------- helpers

@pytest.fixture
def page_url(tmp_path):
    """A local page with a solid #ff00ff background filling the viewport,
    served by http.server on 127.0.0.1 (random port) in a thread."""
    root = tmp_path / 'www'
    root.mkdir()
    (root / 'index.html').write_text(PAGE)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(
        ('127.0.0.1', 0), functools.partial(Quiet, directory=str(root)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f'http://127.0.0.1:{srv.server_address[1]}/index.html'
    srv.shutdown()
    srv.server_close()


def cmdline(pid):
    """pid's argv ([] if it cannot be read, or has none: a zombie)."""
    raw = proc_read(pid, 'cmdline')
    return raw.split(b'\0') if raw else []


def is_chromium(pid):
    """A Chromium process (its crashpad handler included), a zombie too."""
    argv0 = cmdline(pid)[:1]
    if argv0 and b'chrom' in os.path.basename(argv0[0]):
        return True
    return b'chrom' in proc_read(pid, 'comm')


def descendants(root):
    """Every live process below root (walking /proc ppid links)."""
    kids = {}
    for pid, st in procs().items():
        kids.setdefault(st[1], []).append(pid)
    out, todo = [], [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


# ---------------------------------------------------------------- tests

def test_navigate_then_screenshot_keeps_the_page(mcpfs_mount, tmp_path,
                                                 page_url):
    m = mcpfs_mount({'pw': playwright(tmp_path / 'out')})
    a, b = m.path / 'pw' / 'a', m.path / 'pw' / 'b'
    os.mkdir(a)
    os.mkdir(b)

    nav = call(a, {'name': 'browser_navigate',
                   'arguments': {'url': page_url}}, timeout=60)
    assert nav.get('isError') is not True, nav
    assert page_url in text(nav), nav

    shot = call(a, {'name': 'browser_take_screenshot', 'arguments': {}},
                timeout=60)
    png = screenshot_png(shot)
    w, h, _, _ = decode_png(png)
    assert w >= 100 and h >= 100, (w, h)
    frac = colour_fraction(png, PAGE_RGB)
    assert frac > 0.8, f'thread a screenshot is only {frac:.0%} #ff00ff: ' \
        'the navigation did not survive to the next call'

    # thread b never navigated: its own browser shows no magenta page
    other = call(b, {'name': 'browser_take_screenshot', 'arguments': {}},
                 timeout=60)
    png_b = screenshot_png(other)
    frac_b = colour_fraction(png_b, PAGE_RGB)
    assert frac_b < 0.5, f'thread b (never navigated) is {frac_b:.0%} ' \
        '#ff00ff: threads share a browser'

    pa, pb = status(a)['pid'], status(b)['pid']
    assert pa and pb and pa != pb

    # the browsers this test started: chromium below mcpfs, or tagged
    tagged = set(m.pids())
    ours = {p for p in set(descendants(m.proc.pid)) | tagged
            if is_chromium(p)}
    assert ours, 'no chromium process found below mcpfs or with the tag'
    assert any(p in tagged for p in ours), 'chromium does not carry the tag'

    m.unmount()   # asserts exit 0 and no tagged process left (chromium too)
    # Every one of them ended. Chromium helpers whose parent died first are
    # re-parented to this test (a child subreaper, see conftest) and wait
    # there as zombies: reap those; a running one is a leak.
    wait_until(lambda: all(not pid_alive(p) or not is_chromium(p)
                           for p in ours),
               10, 'every chromium this test started to end')
    me = os.getpid()
    for p in descendants(me):
        st = proc_stat(p)
        if st and st[1] == me and is_chromium(p):
            assert st[0] == 'Z', f'chromium {p} left running'
            os.waitpid(p, 0)


def test_examples_browser_sh(mcpfs_mount, tmp_path):
    """examples/browser.sh, the shell walkthrough, against a mount: it
    serves its own magenta page, navigates, screenshots into a PNG and
    removes its thread."""
    m = mcpfs_mount({'playwright': playwright(tmp_path / 'out')})
    shot = tmp_path / 'walk.png'
    r = subprocess.run(['sh', str(REPO / 'examples/browser.sh'), str(m.path),
                        '', str(shot)], capture_output=True, text=True,
                       timeout=75, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    frac = colour_fraction(shot.read_bytes(), PAGE_RGB)
    assert frac > 0.6, f'the walkthrough screenshot is {frac:.0%} #ff00ff'
    assert sorted(os.listdir(m.path / 'playwright')) == \
        ['call', 'help', 'tools.json']
    m.unmount()
