"""User data written atomically keeps the usual permissions and never replaces a link with a file."""
import os

from viewer.core.atomic import atomic_write_text


def test_new_and_replaced_files_get_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "out.csv"
        atomic_write_text(out, "a\n")
        assert out.stat().st_mode & 0o777 == 0o644
        out.chmod(0o600)
        atomic_write_text(out, "b\n")                # an export written again is readable as a new one
        assert out.read_text() == "b\n" and out.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


def test_an_output_that_is_a_symlink_is_written_through(tmp_path):
    target = tmp_path / "real" / "export.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "export.json"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    assert [p.name for p in target.parent.iterdir()] == ["export.json"]     # no temporary file left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "flags.csv"
    out.write_text("keep")

    class Boom:
        def encode(self, _):
            raise RuntimeError("disk on fire")
    try:
        atomic_write_text(out, Boom())
    except RuntimeError:
        pass
    assert out.read_text() == "keep" and [p.name for p in tmp_path.iterdir()] == ["flags.csv"]
