"""A model renamed (the Models tab, `-p NAME=PATH`) is still found by saved views and keeps its frame policy
(issue 28): views record each model's stable id (its file and the name the file gives it), and a renamed
model answers to its former names."""
from viewer.assets import assets_dir
from viewer.core.browse import BrowseFilter
from viewer.core.frames import FramePolicies
from viewer.core.frames.sampling import parse_policy
from viewer.core.review.views import ViewStore, resolve_view, view_document
from viewer.core.session import open_session
from viewer.core.state import InspectorState


def demo_files():
    root = assets_dir() / "demo"
    return root, sorted((root / "predictions").glob("*.jsonl"))


def save_and_reopen(tmp_path, state, name):
    store = ViewStore(tmp_path / "annotations.sqlite")
    store.save(name, view_document(state.filter, state.sort, state.visible_models, state.models,
                                   [i for i, _ in state.model_identities()]))
    return ViewStore(tmp_path / "annotations.sqlite").documents()[name]


def test_a_view_saved_under_a_name_finds_the_model_given_another_name_by_p(tmp_path):
    root, files = demo_files()
    first = open_session(root, files)
    state = InspectorState()
    state.open(first)
    state.filter = BrowseFilter(model=1, model_b=2)
    state.sort = (("error", 1), True)
    state.visible_models = frozenset({1})
    doc = save_and_reopen(tmp_path, state, "sign")
    assert set(doc["ids"]) == set(first.models)

    # Another day: the same files, the second one named by -p NAME=PATH.
    renamed = open_session(root, [files[0], f"baseline={files[1]}", files[2]])
    assert renamed.models[1] == "baseline" and renamed.results[1].model_id == first.results[1].model_id
    other = InspectorState()
    other.open(renamed)
    v = resolve_view("sign", doc, other.models, other.model_identities())
    assert not v.skipped
    assert v.filter.model == 1 and v.filter.model_b == 2 and v.sort == (("error", 1), True) and v.visible == {1}

    # A view saved before ids were recorded names the file's own name: found through the alias.
    old = {k: v for k, v in doc.items() if k != "ids"}
    v = resolve_view("sign", old, other.models, other.model_identities())
    assert not v.skipped and v.filter.model == 1
    # Without the model's identities (an old caller), the name alone: skipped, and said.
    assert resolve_view("sign", old, other.models).skipped == (first.models[1],)


def test_a_rename_in_the_window_keeps_views_and_the_frame_policy(tmp_path):
    root, files = demo_files()
    state = InspectorState()
    state.open(open_session(root, files))
    old_name = state.models[2]
    policy = parse_policy("uniform:16")
    state.frame_policies = state.frame_policies.with_policy(old_name, policy)
    state.filter = BrowseFilter(model=2, model_b=0)
    doc_before = save_and_reopen(tmp_path, state, "before")

    assert state.rename_model(2, "flipper") is None
    r = state.session.results[2]
    assert state.models[2] == "flipper" and old_name in r.aliases
    # The policy went with the model: by its new name, and by its stable id whatever it is called.
    assert state.frame_policies.policy_of("flipper") == policy
    assert state.frame_policies.policy_of("anything", r.model_id) == policy
    assert state.frame_policies.policy_of(old_name) != policy
    assert state.model_frames("flipper").policy == policy
    assert state.frame_policies.unknown_models(state.models, [x.model_id for x in state.session.results]) == []

    # The view saved under the old name finds it; a view saved after the rename too, after another rename.
    v = resolve_view("before", doc_before, state.models, state.model_identities())
    assert v.filter.model == 2 and not v.skipped
    doc_after = save_and_reopen(tmp_path, state, "after")
    assert doc_after["filter"]["model"] == "flipper" and doc_after["ids"]["flipper"] == r.model_id
    assert state.rename_model(2, "sign-flipper-v2") is None
    v = resolve_view("after", doc_after, state.models, state.model_identities())
    assert v.filter.model == 2 and not v.skipped
    assert state.frame_policies.policy_of("sign-flipper-v2") == policy


def test_frame_policies_renamed_moves_a_policy_and_keeps_the_others():
    p8, p4 = parse_policy("uniform:8"), parse_policy("uniform:4")
    fp = FramePolicies(p8).with_policy("a", p4)
    moved = fp.renamed("a", "b", "file.jsonl#a")
    assert moved.policy_of("b") == p4 and moved.policy_of("a") == p8 and moved.policy_of("c", "file.jsonl#a") == p4
    assert fp.renamed("x", "y") is fp                  # no policy of its own: nothing to move
