"""What a figure, clip or slide of one question says, as plain data (no Qt, no drawing).

The figure export, the clip export, the task gallery and the window's
presentation mode all show the same things about a question: its column,
the question sentence, the ground truth and each chosen model's answer and
score. They get them from here, so a talk's slides and its clip never
disagree, and every model keeps its session index (its colour) throughout.
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass

import numpy as np

from ..answers import is_scored
from ..browse import answer_text, truth_text
from ..diagnostics import UserError
from ..kinds import AnswerKind
from ..release import Question, Release
from ..session import Session

_CLOSE_MATCHES = 5
_TRAILING_OPTION = re.compile(r"\s*\n?\s*[A-H][.:)]\s*$")
# "A. back-right", "A) back-right", "(A) back-right": the letter the option text already carries.
_LEADING_LETTER = re.compile(r"^\s*\(?([A-Za-z])[.)]\s+")


@dataclass
class ModelAnswer:
    index: int             # into session.results: the model's colour everywhere
    name: str
    text: str              # "−150°", "(unparsed)", "(missing)"
    score: float | None    # in [0, 1]; None when the question cannot be scored
    status: str
    value: object = None   # the parsed answer (option index for choices), None if unparsed

    @property
    def score_text(self) -> str:
        return "—" if self.score is None else f"{self.score:.2f}"


@dataclass(frozen=True)
class OptionRow:
    """One text option as shown (the window's option list, figures): its letter and text, whether it is the
    truth, which models (indices) picked it."""
    letter: str
    text: str
    truth: bool
    picked_by: tuple[int, ...]


def option_body(text: str, letter: str) -> str:
    """The option's text without its own leading letter, when that letter is the option's."""
    m = _LEADING_LETTER.match(text)
    return text[m.end():] if m and m.group(1).upper() == letter else text


def option_rows(options, truth: int | None, picks: list[tuple[int, int]]) -> list[OptionRow]:
    """The rows of a question's text options; `truth` and each `(model, pick)` are option indices (a pick
    beyond the options gets a row of its own, "(not among the options)")."""
    n = max([len(options)] + [int(v) + 1 for _, v in picks] + ([int(truth) + 1] if truth is not None else []))
    rows = []
    for k in range(n):
        letter = chr(ord("A") + k)
        text = option_body(str(options[k]), letter) if k < len(options) else "(not among the options)"
        rows.append(OptionRow(letter, text, truth is not None and int(truth) == k,
                              tuple(m for m, v in picks if int(v) == k)))
    return rows


@dataclass
class QuestionStory:
    qi: int
    question: Question
    key: str               # Table-1 column, e.g. "ED_v" ("?" for an unknown task)
    title: str             # "Egocentric direction (visual)"
    label: str             # the benchmark's short label of the column ("ObjSize"; GST-Bench: the key)
    benchmark: str         # the benchmark's name, "VSI-Bench"
    sentence: str          # the question itself, without the answer-format boilerplate
    prompt: str            # the full asking text, as the model read it
    convention: str        # how the answer is written, one line
    truth: str             # ground truth for people: "−161°", "4.7 m", "(490, 664)", "C"
    answers: list[ModelAnswer]

    @property
    def kind(self) -> AnswerKind | None:
        return self.question.kind

    @property
    def uid(self) -> str:
        return self.question.uid


def find_question(release: Release, uid: str) -> int:
    """Index of `uid`; UserError naming the closest uids when it is not in the release."""
    i = release.index.get(uid)
    if i is not None:
        return i
    candidates = release.uids
    if len(candidates) > 20000:
        # difflib is quadratic-ish per candidate: look among uids of the same scene first.
        head = uid.split("_", 1)[0]
        same = [u for u in candidates if u.startswith(head)]
        candidates = same or candidates[:20000]
    close = difflib.get_close_matches(uid, candidates, n=_CLOSE_MATCHES, cutoff=0.5)
    if close:
        raise UserError(f"--uid {uid!r} is not in the release; closest: " + ", ".join(close))
    raise UserError(f"--uid {uid!r} is not in the release ({len(release)} questions, none close)")


def choose_models(session: Session, spec: str | None) -> list[int]:
    """Indices into session.results for a comma-separated list of names; all when None."""
    if not spec:
        return list(range(len(session.results)))
    names = [n.strip() for n in spec.split(",") if n.strip()]
    out = []
    for n in names:
        k = next((i for i, r in enumerate(session.results) if r.model == n), None)
        if k is None:
            have = ", ".join(session.models) or "none loaded"
            raise UserError(f"--models: no model {n!r} (models: {have})")
        if k not in out:
            out.append(k)
    return out


def question_sentence(q: Question) -> tuple[str, str]:
    """(the question as people read it, the full asking text): the benchmark's own text of the question
    when it keeps one (whole, every sentence), else the asking sentence of the prompt segments."""
    own = q.benchmark.question_text(q)
    texts = [t.strip() for t in q.texts if t and t.strip()]
    if own:
        return own, "\n".join(texts) or own
    asking = [t for t in texts if "?" in t]
    prompt = asking[-1] if asking else (texts[-1] if texts else "")
    prompt = _TRAILING_OPTION.sub("", prompt).strip()
    cut = prompt.find("?")
    sentence = prompt[:cut + 1] if cut >= 0 else prompt.split("\n", 1)[0]
    return sentence.strip(), prompt


def convention(q: Question) -> str:
    return q.kind.convention_for(q.column, q.benchmark.scale(q)) if q.kind is not None else ""


def value_text(q: Question, value) -> str:
    """A parsed value of question q for people: in the question's unit where its benchmark gives one
    ("228 cm", "30.2 m²", a count "2"), else as its answer kind writes it."""
    scale = q.benchmark.scale(q)
    if scale is not None and value is not None and np.ndim(value) == 0:
        return scale.text(float(value))
    return q.kind.text(value)


def truth_for_people(release: Release, qi: int) -> str:
    """Question qi's ground truth in its unit ("228 cm"); an unreadable one as the browser says it."""
    q = release.questions[qi]
    return value_text(q, q.truth.value) if q.kind is not None and q.truth.ok else truth_text(release, qi)


def build_story(session: Session, qi: int, models: list[int] | None = None) -> QuestionStory:
    release = session.release
    q = release.questions[qi]
    col = q.column
    sentence, prompt = question_sentence(q)
    answers = []
    for m in (range(len(session.results)) if models is None else models):
        r = session.results[m]
        s = float(r.score[qi])
        scored = is_scored(r.status[qi]) and q.kind is not None
        answers.append(ModelAnswer(m, r.model, value_text(q, r.parsed(release, qi)) if scored
                                   else answer_text(r, release, qi),
                                   None if math.isnan(s) else s, str(r.status[qi]),
                                   r.parsed(release, qi)))
    truth = truth_for_people(release, qi)
    bench = q.benchmark
    return QuestionStory(qi, q, col.key if col else "?", col.title if col else q.task,
                         bench.label(col.key) if col else "?", bench.title,
                         sentence, prompt, convention(q), truth, answers)


def answered(story: QuestionStory) -> list[ModelAnswer]:
    """The answers that are scored (those that can be drawn)."""
    return [a for a in story.answers if is_scored(a.status)]
