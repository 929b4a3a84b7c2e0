"""GST-Bench's published leaderboard, as numbers to show beside loaded models (core/reference_rows.py).

Copied from the project page's leaderboard, `static/data/leaderboard.js` in the GitHub repository
qwerirwq/GST-Bench (the version at commit b49be2b6), read on 2026-12-01. That file lists 27 models and
the two baselines; the paper's Table 1 (the page's image `static/images/GST-images/table_main_cropped.png`)
reports 22 of the models, Random Guessing and Human Level, with the same numbers: those rows have
`in_paper` True. The other five are "project page only"; one of them (GPT-6 Astra) scores above the human
level, and its stated Avg (83.26) is not the mean of its 12 columns (83.21). The paper's fine-tuned
Qwen3-VL-8B row (trained on GST-Train) is not on the page and is left out. The paper states in its text:
Gemini-3-Pro 42.68, Human 79.08, Random 20.01 (tests/test_reference_rows.py checks these and more).

The Human Level rests on 20 samples per task.
"""
from __future__ import annotations

SOURCE = ("GST-Bench project page, static/data/leaderboard.js (GitHub qwerirwq/GST-Bench, commit b49be2b6), "
          "read 2026-12-01")
PAPER = "GST-Bench paper, Table 1"
# (name, family, in the paper's Table 1, the 12 columns in COLUMNS' order (ED_v ... Traj) and Avg, as published)
ROWS: tuple[tuple[str, str, bool, tuple[float, ...]], ...] = (
    ("Gemini-2.5-Pro", "Proprietary", True,
     (18.60, 42.00, 31.80, 23.08, 35.40, 32.40, 30.47, 21.52, 97.69, 80.00, 41.01, 37.44, 40.95)),
    ("Gemini-3-Pro", "Proprietary", True,
     (21.73, 25.35, 42.23, 22.11, 27.39, 43.67, 37.47, 16.89, 98.15, 82.73, 52.25, 42.18, 42.68)),
    ("Gemini-3.1-Pro", "Proprietary", False,
     (31.55, 44.87, 51.15, 34.13, 39.47, 62.80, 54.34, 35.28, 99.54, 89.09, 56.74, 55.45, 54.53)),
    ("GPT-5", "Proprietary", True,
     (27.98, 27.35, 34.28, 31.09, 27.39, 43.23, 22.33, 16.74, 97.69, 79.55, 43.26, 39.34, 40.85)),
    ("GPT-5.5", "Proprietary", False,
     (37.65, 35.61, 54.28, 39.90, 36.55, 53.54, 53.02, 45.59, 99.07, 87.27, 60.67, 56.40, 54.96)),
    ("GPT-4o", "Proprietary", True,
     (19.64, 10.09, 22.36, 13.46, 10.13, 25.24, 24.03, 15.99, 81.02, 71.36, 45.51, 25.12, 30.33)),
    ("Seed1.8", "Proprietary", True,
     (16.37, 12.43, 27.96, 20.35, 13.32, 36.07, 28.45, 17.79, 99.07, 67.27, 37.64, 31.75, 34.04)),
    ("Seed2.1-Pro", "Proprietary", False,
     (31.55, 25.74, 37.70, 35.74, 34.87, 44.37, 34.34, 23.77, 100.00, 87.73, 49.44, 44.55, 45.82)),
    ("GPT-6 Astra", "Proprietary", False,
     (61.61, 58.74, 94.87, 67.95, 52.57, 90.83, 94.34, 94.02, 100.00, 100.00, 88.76, 94.79, 83.26)),
    ("LLaVA-OV-1.5-4B", "Open-source", True,
     (17.41, 4.17, 14.28, 17.63, 4.34, 18.86, 20.23, 16.29, 49.54, 37.27, 27.53, 25.59, 21.10)),
    ("LLaVA-OV-1.5-8B", "Open-source", True,
     (17.71, 5.52, 14.22, 18.11, 3.94, 10.83, 13.33, 16.89, 52.78, 33.18, 21.91, 26.54, 19.58)),
    ("Qwen3-VL-2B", "Open-source", True,
     (17.41, 4.13, 9.73, 16.19, 6.55, 18.08, 20.93, 18.39, 88.89, 25.91, 21.35, 24.17, 22.64)),
    ("Qwen3-VL-4B", "Open-source", True,
     (15.33, 4.09, 17.46, 16.66, 6.55, 12.66, 19.61, 18.09, 94.44, 34.09, 22.47, 26.07, 23.96)),
    ("Qwen3-VL-8B", "Open-source", True,
     (18.75, 5.57, 17.35, 12.50, 11.59, 13.01, 24.81, 17.64, 96.76, 42.27, 25.28, 25.12, 25.89)),
    ("Qwen3-VL-32B", "Open-source", True,
     (16.67, 13.96, 18.05, 15.22, 16.19, 26.55, 24.03, 17.64, 94.44, 60.45, 32.58, 29.38, 30.43)),
    ("InternVL3.5-2B", "Open-source", True,
     (18.45, 2.70, 9.50, 18.11, 4.56, 13.97, 12.25, 17.34, 59.72, 29.09, 25.84, 25.12, 19.72)),
    ("InternVL3.5-4B", "Open-source", True,
     (15.63, 4.96, 8.91, 12.02, 5.40, 5.15, 20.62, 16.29, 66.67, 30.91, 25.28, 26.07, 19.83)),
    ("InternVL3.5-8B", "Open-source", True,
     (17.71, 5.57, 19.06, 16.67, 8.36, 14.85, 18.84, 13.90, 75.00, 35.00, 25.84, 25.12, 22.99)),
    ("InternVL3.5-38B", "Open-source", True,
     (21.28, 11.13, 20.29, 20.03, 10.44, 33.10, 22.09, 20.63, 75.00, 68.64, 36.52, 29.38, 30.71)),
    ("NVILA-8B", "Open-source", True,
     (18.15, 7.22, 15.87, 16.02, 7.52, 26.64, 6.67, 16.44, 79.17, 34.55, 29.78, 25.59, 23.64)),
    ("NVILA-15B", "Open-source", True,
     (15.47, 4.74, 8.85, 16.66, 3.10, 10.13, 8.06, 17.79, 74.07, 40.00, 32.02, 22.27, 21.10)),
    ("Cosmos-Reason2-2B", "Embodied-understanding", True,
     (15.18, 3.91, 8.38, 14.10, 7.65, 8.47, 17.75, 16.74, 78.70, 24.09, 26.40, 18.48, 19.99)),
    ("Cosmos-Reason2-8B", "Embodied-understanding", True,
     (13.39, 6.96, 10.86, 16.83, 7.61, 10.57, 19.77, 14.50, 84.26, 28.64, 23.60, 22.75, 21.64)),
    ("RoboBrain2.5-8B", "Embodied-understanding", True,
     (20.24, 10.39, 14.04, 19.23, 11.28, 14.06, 20.31, 16.74, 80.56, 37.27, 26.97, 24.17, 24.61)),
    ("RynnBrain1.1-9B", "Embodied-understanding", False,
     (21.43, 24.09, 20.00, 19.07, 15.71, 22.09, 22.95, 17.19, 83.80, 44.09, 29.21, 35.55, 29.60)),
    ("Robix-7B", "Embodied-understanding", True,
     (17.41, 12.35, 24.13, 18.43, 12.52, 21.83, 22.95, 15.99, 88.43, 53.18, 35.96, 25.59, 29.06)),
    ("Robix-32B", "Embodied-understanding", True,
     (18.90, 24.87, 21.95, 18.91, 20.18, 21.05, 22.48, 17.94, 84.72, 43.64, 30.90, 25.59, 29.26)),
    ("Random Guessing", "Baseline", True,
     (14.88, 23.22, 15.04, 17.31, 20.40, 14.15, 16.51, 15.55, 23.15, 27.73, 24.72, 27.49, 20.01)),
    ("Human Level (20 samples/task)", "Baseline", True,
     (75.00, 41.50, 93.00, 70.00, 41.50, 89.00, 84.00, 85.00, 100.00, 95.00, 85.00, 90.00, 79.08)),
)


def published_rows(benchmark, page: bool):
    """The paper's rows (and with `page`, the entries only the project page lists) as reference rows."""
    from ...reference_rows import PAGE_ONLY, ReferenceRow
    out = []
    for name, family, in_paper, values in ROWS:
        if not (in_paper or page):
            continue
        source = SOURCE + ("" if not in_paper else f"; as in the {PAPER}")
        out.append(ReferenceRow(name, dict(zip(benchmark.table_keys, values[:-1])), values[-1], source,
                                "paper" if in_paper else PAGE_ONLY, family))
    return out
