"""Finding the bundled assets: installed (viewer/_assets), checkout (assets/), override."""
from pathlib import Path

import pytest

import viewer
from viewer import assets
from viewer.core.diagnostics import UserError

REPO = Path(__file__).resolve().parent.parent


def test_installed_layout_wins(tmp_path):
    pkg = tmp_path / "site-packages" / "viewer"
    (pkg / "_assets" / "demo").mkdir(parents=True)
    (tmp_path / "site-packages" / "assets").mkdir()          # a stray folder must not be taken
    assert assets.find_assets(pkg, environ={}) == pkg / "_assets"


def test_checkout_layout_is_the_fallback(tmp_path):
    pkg = tmp_path / "repo" / "viewer"
    pkg.mkdir(parents=True)
    assert assets.find_assets(pkg, environ={}) == tmp_path / "repo" / "assets"


def test_environment_overrides(tmp_path):
    pkg = tmp_path / "viewer"
    (pkg / "_assets").mkdir(parents=True)
    assert assets.find_assets(pkg, environ={assets.ENV: str(tmp_path / "x")}) == tmp_path / "x"
    assert assets.find_assets(pkg, environ={assets.ENV: ""}) == pkg / "_assets"


def test_this_checkout_uses_its_top_level_assets():
    if (Path(viewer.__file__).parent / "_assets").is_dir():
        pytest.skip("running from an installed copy")
    assert assets.find_assets(Path(viewer.__file__).resolve().parent, environ={}) == REPO / "assets"


def test_missing_demo_is_a_user_error_naming_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv(assets.ENV, str(tmp_path))
    with pytest.raises(UserError, match="make-demo"):
        assets.default_release()
    (tmp_path / "demo").mkdir()
    assert assets.default_release() == tmp_path / "demo"


def test_default_predictions_are_the_sorted_jsonl_files(tmp_path):
    assert assets.default_predictions(tmp_path) == []
    (tmp_path / "predictions").mkdir()
    for name in ("b.jsonl", "a.jsonl", "notes.txt"):
        (tmp_path / "predictions" / name).write_text("")
    assert [p.name for p in assets.default_predictions(tmp_path)] == ["a.jsonl", "b.jsonl"]
