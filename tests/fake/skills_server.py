#!/usr/bin/env python3
"""skills_server.py - an MCP stdio server (2025-11-25) that serves skills
the way the skills extension says (io.modelcontextprotocol/skills,
SEP-2640), written from the SEP's text, for the mount tests of skills/.

    skills_server.py SKILLS_DIR [--partial] [--no-ext] [--page N]
                     [--log FILE] [--many N] [--extra FILE]

Every folder of SKILLS_DIR (at any depth) holding a SKILL.md is a skill;
its skill path is the folder's path below SKILLS_DIR (acme/billing/refunds)
and its URIs are skill://<skill-path>/<file>. SKILL.md's YAML frontmatter
(name, description and any other "key: value" lines) is the entry's
frontmatter. Every file of the skill's folder (subfolders too, but not
those of a nested skill's own folder twice: they are listed in both, as
the SEP says) is listed in "resources" with its sha256 digest and size, except:

* a skill whose frontmatter has `dynamic: true` has "resources":
  "dynamic" (made on the fly: SKILL.md alone is readable);
* a file named TAMPERED.md is served with other bytes than its digest
  (as many), one named LONGER.md with more bytes than its size.

--many N adds a skill `many` made here, not on disk: SKILL.md and N files
f000000.md ... at its root, each a line of its own. --extra FILE appends
the entries of FILE's "skills" array to the listing as they are (hostile
names, files without a digest, ...), and serves the text of its "files"
object ({uri: text}) to resources/read.

capabilities.extensions has io.modelcontextprotocol/skills (unless
--no-ext); skills/list pages N entries at a time (--page, default 2) with
a nextCursor; skills/get {uri}; resources/read of any skill file (text
for UTF-8 files, a base64 blob otherwise); -32602 for an unknown one.
--partial declares the extension and answers -32601 to skills/list and
skills/get. --log FILE appends each request line received.
"""

import base64
import hashlib
import json
import os
import sys

EXT = 'io.modelcontextprotocol/skills'


def frontmatter(text):
    lines = text.split('\n')
    out = {}
    if not lines or lines[0].strip() != '---':
        return out
    for line in lines[1:]:
        if line.strip() == '---':
            break
        if ':' in line:
            k, v = line.split(':', 1)
            v = v.strip()
            out[k.strip()] = True if v == 'true' else v
    return out


def skills(root):
    found = []
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        if 'SKILL.md' in files:
            found.append(os.path.relpath(d, root))
    return found


def served(path):
    data = open(path, 'rb').read()
    if os.path.basename(path) == 'TAMPERED.md':   # as long, not the same
        data = data.swapcase()
    if os.path.basename(path) == 'LONGER.md':
        data = data + b'\n(changed after the listing was made)\n'
    return data


def entry(root, sp):
    d = os.path.join(root, sp)
    fm = frontmatter(open(os.path.join(d, 'SKILL.md')).read())
    e = {'uri': f'skill://{sp}/SKILL.md', 'frontmatter': fm}
    if fm.get('dynamic') is True:
        e['resources'] = 'dynamic'
        return e
    res = []
    for sub, dirs, files in sorted(os.walk(d)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(sub, f)
            rel = os.path.relpath(p, d)
            digest = hashlib.sha256(open(p, 'rb').read()).hexdigest()
            res.append({'uri': f'skill://{sp}/{rel}',
                        'digest': 'sha256:' + digest,
                        'size': os.path.getsize(p)})
    e['resources'] = res
    return e


MANY_MD = '---\nname: many\ndescription: A skill of many files\n---\n'


def many_files(n):
    """The files of the skill `many`: {uri: bytes}."""
    files = {'skill://many/SKILL.md': MANY_MD.encode()}
    for i in range(n):
        files[f'skill://many/f{i:06d}.md'] = b'file %d\n' % i
    return files


def many_entry(files):
    return {'uri': 'skill://many/SKILL.md',
            'frontmatter': {'name': 'many',
                            'description': 'A skill of many files'},
            'resources': [{'uri': u,
                           'digest': 'sha256:' +
                           hashlib.sha256(b).hexdigest(),
                           'size': len(b)} for u, b in files.items()]}


def main():
    args = sys.argv[1:]
    root = args[0]
    partial = '--partial' in args
    ext = '--no-ext' not in args
    page = int(args[args.index('--page') + 1]) if '--page' in args else 2
    log = args[args.index('--log') + 1] if '--log' in args else None
    extra, served_extra = [], {}
    if '--many' in args:
        served_extra = many_files(int(args[args.index('--many') + 1]))
        extra.append(many_entry(served_extra))
    if '--extra' in args:
        with open(args[args.index('--extra') + 1]) as f:
            x = json.load(f)
        extra += x.get('skills', [])
        served_extra.update({u: t.encode() for u, t in
                             x.get('files', {}).items()})

    def send(m):
        sys.stdout.write(json.dumps(m) + '\n')
        sys.stdout.flush()

    for line in sys.stdin:
        if log:
            with open(log, 'a') as f:
                f.write(line)
        msg = json.loads(line)
        rid, method = msg.get('id'), msg.get('method')
        params = msg.get('params') or {}
        if rid is None:
            continue
        res = err = None
        if method == 'initialize':
            caps = {'resources': {}}
            if ext:
                caps['extensions'] = {EXT: {}}
            res = {'protocolVersion': params.get('protocolVersion',
                                                 '2025-11-25'),
                   'capabilities': caps,
                   'serverInfo': {'name': 'skills', 'version': '1'}}
        elif method in ('skills/list', 'skills/get') and (partial or
                                                         not ext):
            err = {'code': -32601, 'message': 'Method not found'}
        elif method == 'skills/list':
            all_ = [entry(root, sp) for sp in skills(root)] + extra
            at = int(params.get('cursor') or 0)
            res = {'skills': all_[at:at + page]}
            if at + page < len(all_):
                res['nextCursor'] = str(at + page)
        elif method == 'skills/get':
            uri = params.get('uri', '')
            match = [entry(root, sp) for sp in skills(root)
                     if f'skill://{sp}/SKILL.md' == uri]
            if match:
                res = {'skill': match[0]}
            else:
                err = {'code': -32602, 'message': f'no skill {uri}'}
        elif method == 'resources/list':
            res = {'resources': []}
        elif method == 'resources/read':
            uri = params.get('uri', '')
            path = os.path.join(root, uri[len('skill://'):]) \
                if uri.startswith('skill://') else ''
            if uri in served_extra:
                res = {'contents': [{'uri': uri, 'mimeType': 'text/plain',
                                     'text': served_extra[uri].decode()}]}
            elif path and os.path.isfile(path) and \
                    os.path.realpath(path).startswith(
                        os.path.realpath(root) + os.sep):
                data = served(path)
                try:
                    c = {'uri': uri, 'text': data.decode('utf-8'),
                         'mimeType': 'text/markdown'}
                except UnicodeDecodeError:
                    c = {'uri': uri, 'mimeType': 'application/octet-stream',
                         'blob': base64.b64encode(data).decode()}
                res = {'contents': [c]}
            else:
                err = {'code': -32602, 'message': f'no resource {uri}'}
        elif method == 'tools/list':
            res = {'tools': []}
        elif method == 'ping':
            res = {}
        else:
            err = {'code': -32601, 'message': 'Method not found'}
        m = {'jsonrpc': '2.0', 'id': rid}
        if err:
            m['error'] = err
        else:
            m['result'] = res
        send(m)


if __name__ == '__main__':
    main()
