"""'Target in k of the N sampled frames' in the window: the browser's k column and its filter, and each
model's score against k in the plots dock (docs/frames.md).

k is computed for the whole release under the model's eye's policy (ui/models_eye.py) in a background job
(render/frames_scan.release_target_k: the videos scanned for the red box once, cached), with progress and
cancel, again when the policy changes. The filter is the state's `filter.target_k` (core/browse.py).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PyQt6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from ..core.browse import TARGET_K_FILTERS
from ..core.state import InspectorState
from . import style
from .jobs import Jobs

BUCKETS = (0, 1, 2, 3, 4)               # and "5+"


class ScoreVsK:
    """Each model's mean score over the questions whose target is in k sampled frames (k = 0, 1, .., 5+),
    drawn in a plot of the plots dock; the count of questions under each k."""

    def __init__(self, state: InspectorState, plot: pg.PlotItem):
        self.state, self.plot = state, plot
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.setLabel("bottom", "k: sampled frames showing the target")
        plot.setLabel("left", "mean score")
        plot.setYRange(0, 1)
        plot.getAxis("bottom").setTicks([[(b, str(b)) for b in BUCKETS] + [(len(BUCKETS), "5+")]])
        self.k: np.ndarray | None = None
        state.events.models.connect(self.redraw)
        state.events.visible_models.connect(self.redraw)

    def set_k(self, k: np.ndarray | None) -> None:
        self.k = k
        self.redraw()

    def curves(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per model: the buckets that have questions, its mean score in each, and their counts."""
        session = self.state.session
        if session is None or self.k is None:
            return {}
        bucket = np.minimum(self.k, len(BUCKETS))
        out = {}
        for r in session.results:
            xs, ys, ns = [], [], []
            for b in range(len(BUCKETS) + 1):
                m = (bucket == b) & ~np.isnan(r.score) & session.release.in_leaderboard
                if m.any():
                    xs.append(b)
                    ys.append(float(r.score[m].mean()))
                    ns.append(int(m.sum()))
            out[r.model] = (np.array(xs), np.array(ys), np.array(ns))
        return out

    def redraw(self, *_) -> None:
        self.plot.clear()
        session = self.state.session
        for m, (name, (xs, ys, ns)) in enumerate(self.curves().items()):
            if not len(xs):
                continue
            color = style.model_color(m)
            self.plot.plot(xs, ys, pen=pg.mkPen(color, width=2), symbol="o", symbolBrush=color, symbolSize=7,
                           name=name)
            if m == 0:
                for x, n in zip(xs, ns):
                    t = pg.TextItem(f"n={n}", color=(90, 90, 90), anchor=(0.5, 0))
                    t.setPos(float(x), 0.08)
                    self.plot.addItem(t)
        if session is not None and self.k is None:
            t = pg.TextItem("k not computed yet", color=(120, 120, 120))
            t.setPos(0, 0.5)
            self.plot.addItem(t)


class TargetKBar(QWidget):
    """The browser's row: filter by k, and what the k column counts (under which policy, how many never)."""

    def __init__(self, state: InspectorState, jobs: Jobs, browser, eye, score_vs_k: ScoreVsK | None = None):
        super().__init__()
        self.state, self.jobs, self.browser, self.eye, self.score_vs_k = state, jobs, browser, eye, score_vs_k
        self.box = QComboBox(toolTip="Questions by whether their target is in the frames the model's eye's "
                                     "policy samples (the k column)")
        self.box.addItems(list(TARGET_K_FILTERS))
        self.status = QLabel("")
        self.status.setStyleSheet("color: gray")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("target in frames:"))
        lay.addWidget(self.box)
        lay.addWidget(self.status, 1)
        self.box.currentTextChanged.connect(self._filter)
        state.events.filter.connect(self._show_filter)
        state.events.session.connect(self.compute)
        eye.policyChanged.connect(self.compute)
        self.policy = None

    def _filter(self, text: str) -> None:
        if self.state.filter.target_k != text:
            self.state.filter = replace(self.state.filter, target_k=text)

    def _show_filter(self, f) -> None:
        if self.box.currentText() != f.target_k:
            self.box.blockSignals(True)
            self.box.setCurrentText(f.target_k)
            self.box.blockSignals(False)

    def compute(self, *_) -> None:
        session = self.state.session
        if session is None:
            return
        from ..render.frames_scan import release_target_k
        self.policy = self.eye.policy_text()
        self.status.setText(f"k under {self.policy}: scanning the videos…")
        self.jobs.submit(release_target_k, session.release, self.policy, lane="target_k", scope="session",
                         with_progress=True, label="finding the target in the sampled frames",
                         done=lambda result, policy=self.policy: self._done(policy, *result),
                         failed=lambda msg: self.status.setText(f"k: {msg}"))

    def _done(self, policy: str, k: np.ndarray, sampled: np.ndarray) -> None:
        index = self.browser.index
        if index is None or len(k) != index.n or policy != self.eye.policy_text():
            return
        index.target_k, index.sampled_n = k, sampled
        known = ~np.isnan(k)
        never = int(np.count_nonzero(known & (k == 0)))
        self.status.setText(f"k under {policy}: target never sampled in {never} of {int(known.sum())}")
        self.browser.apply_filter()
        if self.score_vs_k is not None:
            self.score_vs_k.set_k(k)
