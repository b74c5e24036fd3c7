"""Check that meson knows every mount test file: tests/meson.build makes
one meson test per tests/mount/test_*.py from the list it globbed when it
was configured; a file added since has no test until meson reconfigures.

usage: mountlist.py MOUNT_DIR "FILES MESON CONFIGURED WITH"
Exit status 1 (with the files named) if the two lists differ."""
import sys
from pathlib import Path

have = sorted(p.name for p in Path(sys.argv[1]).glob('test_*.py'))
known = sorted(sys.argv[2].split())
new = [f for f in have if f not in known]
gone = [f for f in known if f not in have]
if new or gone:
    for f in new:
        print(f'{f}: no meson test yet')
    for f in gone:
        print(f'{f}: a meson test for a file that is gone')
    print('run `meson setup --reconfigure BUILD_DIR` to list them again')
    sys.exit(1)
print(f'{len(have)} mount test files, each with its meson test')
