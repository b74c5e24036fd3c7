"""A refused start is a clean exit 1, not a crash after the message
(spec 2: a config error is reported and mcpfs exits non-zero);
run_mcpfs_expect_exit checks the status of every refusal test."""

from conftest import run_mcpfs_expect_exit


def test_config_error_exits_1_not_a_crash(tmp_path):
    rc, out = run_mcpfs_expect_exit(tmp_path, '{"mcpServers": {"a": 5}}')
    assert rc == 1
    assert str(tmp_path / 'bad.json') in out, out
