"""What `score` writes besides its table: the leaderboard as CSV, Markdown or LaTeX (`board`), and the
per-sample JSON lines (`per_sample`)."""
