"""Looking things up in an overlay's primitives, for tests."""
import numpy as np

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


def signature(ov):
    """An overlay's primitives as comparable values (arrays rounded), its size and notes."""
    if ov is None:
        return None

    def value(v):
        if isinstance(v, np.ndarray):
            return tuple(np.round(v.astype(float), 6).ravel().tolist())
        if isinstance(v, (list, tuple)):
            return tuple(value(x) for x in v)
        return v
    items = [(type(p).__name__,) + tuple((k, value(v)) for k, v in sorted(vars(p).items())) for p in ov.items]
    return ov.width, ov.height, items, tuple(ov.notes)
