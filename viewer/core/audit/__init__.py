"""Ground-truth audit: the questions that break GST-Bench's own promises (spec section 4).

Severities say how sure the audit is that the sample is broken:
  - error:   wrong or broken as posed: the answer disagrees with the geometry,
             media are missing, or a promise the column relies on is broken
             (target visible from the current view, view on the trajectory);
  - warning: worth a reviewer's look, the evidence is indirect (several
             models agree on another answer; visibility measured on boxes);
  - info:    an observation (a model's answers follow another convention).

Every check counts, per question it applies to, whether it was checked
(flagged or passed) or skipped for lack of data, with the reason. A release
without scene metadata (like the published samples) has its geometric
checks skipped, never passed; so are the visibility checks of an audit
given no ray caster.

  types.py       Finding, Tally, AuditReport: what the audit produces
  registry.py    Check (what a check declares and runs) and CHECKS, the registry
  visibility.py  the ray-casting interface the visibility checks need (viewer.render implements it)
  images.py      the image reading and map rendering the choice checks need (viewer.render implements it)
  choice*.py     judging choice questions by their pictures, per scene (the measures are numpy, in choice_measures)
  auditors.py    what a check's run functions are given, per scene and per release
  run.py         run_audit: the scene stage per scene (in processes or on a cluster: the per-question
                 checks, the visibility casts and the choice judgements; a long video's casts in frame
                 chunks), then the release-wide checks
  checks/        the checks, one module per check or family, registered by checks/__init__.py when CHECKS is first read

Add a check: a module in checks/ with its Check subclass and object, and
one line in checks.BUILT_IN (or `register(check)` from outside the package).
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# The package's names, each imported from its module when first used: a module of the package (image_check,
# which the window's image loading uses) is then imported without the audit's run and checks (~20 ms).
_FROM = {"ImageSource": "images", "ImageSourceFactory": "images",
         "CHECKS": "registry", "IMAGES": "registry", "SCENE": "registry", "VISIBILITY": "registry",
         "Check": "registry", "parse_checks": "registry", "register": "registry", "unregister": "registry",
         "run_audit": "run",
         "AuditReport": "types", "Finding": "types", "Tally": "types",
         "Visibility": "visibility", "VisibilityFactory": "visibility"}
__all__ = ["CHECKS", "IMAGES", "SCENE", "VISIBILITY", "AuditReport", "Check", "Finding", "ImageSource",
           "ImageSourceFactory", "Tally", "Visibility", "VisibilityFactory", "parse_checks", "register", "run_audit",
           "unregister"]

if TYPE_CHECKING:
    from .images import ImageSource, ImageSourceFactory
    from .registry import CHECKS, IMAGES, SCENE, VISIBILITY, Check, parse_checks, register, unregister
    from .run import run_audit
    from .types import AuditReport, Finding, Tally
    from .visibility import Visibility, VisibilityFactory


def __getattr__(name: str):
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
