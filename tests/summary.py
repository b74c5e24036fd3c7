"""Sum the JUnit results of every run into one line: N passed, N failed.

Reads meson's testlog.junit.xml (unit tests, one case per TAP subtest) and
pytest's XML files in each build directory given, and build/fuzz.log. Exit
status 1 if anything failed or nothing ran.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

passed = failed = skipped = 0
for d in map(Path, sys.argv[1:]):
    files = list(d.glob("pytest-*.xml"))
    meson = d / "meson-logs" / "testlog.junit.xml"
    if meson.exists():
        files.append(meson)
    files += list(d.glob("meson-logs/valgrind*.junit.xml"))
    for f in files:
        root = ET.parse(f).getroot()
        for case in root.iter("testcase"):
            if f == meson and case.get("name") == "mount":
                # counted case by case from pytest's own XML, unless pytest
                # died before writing it
                if not list(d.glob("pytest-*.xml")) and (
                        case.find("failure") is not None
                        or case.find("error") is not None):
                    failed += 1
                continue
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
fuzz = Path(sys.argv[1]) / "fuzz.log"
if fuzz.exists():
    ok = "fuzz: exit 0" in fuzz.read_text()
    passed += ok
    failed += not ok
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or not passed else 0)
