"""Looking things up in an overlay's primitives, for tests."""
from viewer.core import primitives as pr


def one(ov, kind, role):
    """The single primitive of this type and role (e.g. the truth's star)."""
    items = ov.of(kind, role)
    assert len(items) == 1, (kind, role, items)
    return items[0]


def truth_point(ov):
    return one(ov, pr.Marker, pr.TRUTH).at


def viewpoint(ov):
    return one(ov, pr.Marker, pr.VIEWPOINT).at
