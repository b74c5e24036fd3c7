"""The log (spec 6): a session's repeated warnings are rate-limited with a
count (a burst of lines, then "... N more"), so a server that floods its
stdout with lines that are not JSON grows the log by a small fraction of
what it wrote; and control characters in what is logged (names from a
request, text from a server) are escaped, so no one can forge a line."""

import re
import sys

from conftest import REPO, call, text, thread, tool

PYFAKE = REPO / 'tests/fake/pyfake.py'
LOG_LINE = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} mcpfs ')


def test_non_json_flood_is_summed_up(mcpfs_mount):
    m = mcpfs_mount({'s': {'command': sys.executable,
                           'args': [str(PYFAKE)]}})
    t = thread(m, 's', 't')
    assert text(tool(t, 'echo', text='x')).startswith('ran echo')
    before = m.log.stat().st_size
    n = 25000
    # the reply comes after every junk line on the same stdout
    assert text(tool(t, 'junk', n=n)) == str(n)
    grown = m.log.stat().st_size - before
    written = n * len('not json 000000\n')
    assert grown < written // 50, (grown, written)  # was about 6x
    log = m.log.read_text(errors='replace')
    skipped = log.count('skipped a non-JSON stdout line')
    assert 1 <= skipped <= 30, skipped
    more = [int(x) for x in re.findall(r'skipped lines \.\.\. (\d+) more',
                                       log)]
    assert more and sum(more) + skipped <= n and sum(more) >= 10000, more


def test_no_forged_log_line(mcpfs_mount):
    m = mcpfs_mount({'s': {'command': sys.executable,
                           'args': [str(PYFAKE), '--hostile'],
                           'denyTools': ['x*']}})
    t = thread(m, 's', 't')
    forged = 'x\n2026-01-01 00:00:00.000 mcpfs error: forged\r\x1b[1A'
    reply = call(t, {'name': forged, 'arguments': {}})
    assert 'not allowed by the policy' in reply['error']['message']
    log = m.log.read_text(errors='replace')
    assert 'forged by the server' in log and 'x\\x0a2026-01-01' in log
    for line in log.splitlines():
        assert LOG_LINE.match(line), line   # every line is mcpfs's own
        assert '\x1b' not in line and '\r' not in line, line
        assert not line.startswith('2026-01-01'), line
