"""help/<tool>'s ready-to-run lines run as written (spec 12): the
required arguments are filled with values that fit the schema (its
default, first example, const or enum value; for a read-only tool or a
prompt also a number within the bounds, a string that fits the format,
the length and the pattern), and help shows the bounds, pattern and
format. Every line of every tool and prompt of server-everything, of the
demo server and of a strict fake server is run with bash in a thread
directory, and no reply may be a schema refusal. A value mcpfs would
invent for a tool that may change things is a placeholder (<integer>):
its lines are refused by mcpfs (EINVAL), never sent (test_help_every_line
counts what reaches the server)."""

import json
import os
import re


from conftest import demo, everything, needs_everything, read_file, thread
from help_util import calls, run_lines, scripted, sh

PLACEHOLDER = re.compile(
    r'<(string|integer|number|boolean|array|object|value)>')

# server-everything's tools and prompts not run here, and why (asserted
# below):
# - the two elicitation tools wait for an answer in requests/ (test_ask.py
#   answers those);
# - resource-prompt wants resourceType "Text" or "Blob": a prompt's
#   arguments have no schema (prompts/list gives names and descriptions
#   only), so help cannot know.
EVERYTHING_SKIP = {'trigger-elicitation-request', 'trigger-url-elicitation',
                   'resource-prompt'}


def refusal(out):
    """Why the reply out (what cat printed) is a schema refusal, or None."""
    try:
        reply = json.loads(out)
    except ValueError:
        return f'not a JSON reply: {out!r}'
    err = reply.get('error') or {}
    if err.get('code') == -32602 or 'invalid' in str(err).lower():
        return f'invalid params: {err}'
    if reply.get('isError'):
        words = json.dumps(reply.get('content')).lower()
        if '-32602' in words or 'validation' in words or \
                'invalid' in words:
            return f'refused: {reply}'
    return None


def run_every_line(thread, skip=()):
    """Run each line of each help/ file of the thread; return the lines
    run, the refusals met and the lines held by a placeholder (each
    refused by mcpfs, EINVAL, as it must be)."""
    ran, bad, held = [], [], []
    for name in sorted(os.listdir(thread / 'help')):
        if name.split(':')[-1] in skip:
            continue
        text = read_file(thread / 'help' / name).decode()
        lines = run_lines(text)
        assert len(lines) == 2, (name, text)
        for line in lines:
            rc, out, err = sh('bash', line, thread)
            if PLACEHOLDER.search(line):
                held.append(line)
                if 'Invalid argument' not in err or 'request refused' \
                        not in out:
                    bad.append((name, line, f'sent: {out} {err}'))
                continue
            ran.append(line)
            why = refusal(out) if rc == 0 else f'exit {rc}: {err}'
            if why:
                bad.append((name, line, why))
    return ran, bad, held


@needs_everything
def test_every_help_line_of_everything_runs(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev', 't1')
    names = os.listdir(t / 'help')
    # the skipped ones are there, for the reasons given
    assert {'trigger-elicitation-request', 'trigger-url-elicitation',
            'prompt:resource-prompt'} <= set(names), names
    for name in ('trigger-elicitation-request', 'trigger-url-elicitation'):
        assert 'elicitation' in read_file(
            t / 'help' / name).decode().lower()
    assert '  resourceType (string, required)\n' in read_file(
        t / 'help' / 'prompt:resource-prompt').decode()
    ran, bad, held = run_every_line(t, EVERYTHING_SKIP)
    assert len(ran) >= 2 * 15, ran
    assert not bad, bad
    # simulate-research-query may change things: its topic is not made up
    assert len(held) == 2 and all(
        'simulate-research-query' in line for line in held), held


def test_every_help_line_of_demo_runs(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't1')
    ran, bad, held = run_every_line(t)
    assert len(ran) == 2 * 6, ran
    assert not bad, bad
    # set stores a key and a value that no schema gives: placeholders
    assert len(held) == 2 and all('tools/set' in line for line in held)


def prop(**kw):
    return kw


# Each tool takes one required argument x of this schema. Those that give
# their value (default, examples, const, enum) are filled for any tool.
GIVEN = {'examples', 'const', 'enum', 'default'}
STRICT = {
    'min1': prop(type='number', minimum=1),
    'min1int': prop(type='integer', minimum=1, maximum=10),
    'negative': prop(type='integer', maximum=-3),
    'exclusive': prop(type='number', exclusiveMinimum=0, maximum=0.5),
    'exclusive_int': prop(type='integer', exclusiveMinimum=4),
    'exclusive_max': prop(type='number', exclusiveMaximum=-1),
    'draft4_exclusive': prop(type='integer', minimum=0,
                             exclusiveMinimum=True),
    'multiple': prop(type='integer', minimum=7, multipleOf=5),
    'nullable_int': prop(type=['integer', 'null'], minimum=4),
    'uri': prop(type='string', format='uri'),
    'email': prop(type='string', format='email'),
    'date': prop(type='string', format='date'),
    'datetime': prop(type='string', format='date-time'),
    'uuid': prop(type='string', format='uuid'),
    'ipv4': prop(type='string', format='ipv4'),
    'long_name': prop(type='string', minLength=12),
    'short': prop(type='string', maxLength=3),
    'lower': prop(type='string', pattern='^[a-z]+$'),
    'digits': prop(type='string', pattern='^[0-9]+$'),
    'examples': prop(type='string', pattern='^v[0-9]$', examples=['v7']),
    'const': prop(type='string', const='exactly this'),
    'enum': prop(type='integer', enum=[3, 5]),
    'default': prop(type='integer', minimum=2, default=9),
    'any_of': prop(anyOf=[{'type': 'null'},
                          {'type': 'integer', 'minimum': 3}]),
    'array': prop(type='array', minItems=2,
                  items={'type': 'integer', 'minimum': 2}),
    'object': prop(type='object', required=['k'],
                   properties={'k': {'type': 'string', 'format': 'email'},
                               'o': {'type': 'integer'}}),
    'boolean': prop(type='boolean'),
}


def test_strict_schemas_get_fitting_values(mcpfs_mount, tmp_path):
    """Each schema twice: as a read-only tool (values invented to fit)
    and as one that may change things, named w_..., where only the
    schema's own values are filled."""
    tools = [{'name': n, 'annotations': {'readOnlyHint': True},
              'inputSchema': {'type': 'object', 'properties': {'x': s},
                              'required': ['x']}}
             for n, s in STRICT.items()]
    tools += [{'name': 'w_' + n, 'inputSchema': {
        'type': 'object', 'properties': {'x': s}, 'required': ['x']}}
        for n, s in STRICT.items()]
    entry, log = scripted(tmp_path, {'tools': tools})
    m = mcpfs_mount({'s': entry})
    t = thread(m, 's', 't1')
    ran, bad, held = run_every_line(t)
    assert len(ran) == 2 * (len(STRICT) + len(GIVEN))
    assert len(held) == 2 * (len(STRICT) - len(GIVEN))
    assert not bad, bad
    got = {c['name']: c['arguments']['x'] for c in calls(log)}
    assert set(got) == set(STRICT) | {'w_' + n for n in GIVEN}
    for n in GIVEN:
        assert got['w_' + n] == got[n]
    h = read_file(t / 'help' / 'w_min1int').decode()
    assert "  echo 'x=<integer>' > tools/w_min1int; " in h, h
    assert """  echo '{"x":<integer>}' > tools/w_min1int; """ in h, h
    h = read_file(t / 'help' / 'w_uri').decode()
    assert """  echo '{"x":<string>}' > tools/w_uri; """ in h, h
    assert (got['min1'], got['min1int'], got['negative']) == (1, 1, -3)
    assert got['default'] == 9 and got['enum'] == 3
    assert got['const'] == 'exactly this' and got['examples'] == 'v7'
    # help shows the bounds, the pattern and the format (spec 12)
    h = read_file(t / 'help' / 'min1int').decode()
    assert '  x (integer, required, minimum 1, maximum 10)\n' in h, h
    h = read_file(t / 'help' / 'lower').decode()
    assert ', pattern ^[a-z]+$)' in h, h
    assert ', format uri)' in read_file(t / 'help' / 'uri').decode()
    assert ', exclusiveMinimum 0, maximum 0.5)' in read_file(
        t / 'help' / 'exclusive').decode()
