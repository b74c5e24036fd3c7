"""result/ names a block by its mimeType through the system's table,
/etc/mime.types of Debian's media-types (spec 9): video/mp4 is .mp4,
application/pdf .pdf, text/html .html; the spec's own names stay (.png,
.jpg, .mp3); .bin only for a type the table lacks. Blocks from a fake
server returning one block per type asked for."""
import os

from conftest import call, read_file, shapes


def test_result_names_blocks_by_the_system_table(mcpfs_mount):
    assert os.path.exists('/etc/mime.types'), 'media-types is not installed'
    m = mcpfs_mount({'s': shapes()})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    types = ['video/mp4', 'application/pdf', 'text/html', 'image/png',
             'image/jpeg', 'audio/mpeg', 'application/x-mcpfs-no-such-type',
             'text/csv', 'Video/MP4; codecs=avc1']
    call(t, {'name': 'blocks', 'arguments': {'types': types}})
    names = sorted(n for n in os.listdir(t / 'result') if n[0].isdigit())
    assert names == sorted(['0.mp4', '1.pdf', '2.html', '3.png', '4.jpg',
                            '5.mp3', '6.bin', '7.csv', '8.mp4']), names
    for i, n in enumerate(['0.mp4', '1.pdf', '2.html', '6.bin']):
        assert read_file(t / 'result' / n) == \
            f'block {n.split(".")[0]}'.encode()
