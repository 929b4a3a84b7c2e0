"""Reading model predictions in the formats people actually have, one registered format each.

- JSON Lines records, lmms-eval sample logs (JSON Lines or a JSON object with `logs`), a JSON
  list or a uid map: json_records.py;
- VLMEvalKit result tables, TSV/CSV or XLSX: tables.py;
- a benchmark's own formats, registered with it (`Benchmark.prediction_formats`).

formats.py is the registry (`PredictionFormat`, `register_format`) and `load_predictions`.
Predictions are kept raw (the model's text); parsing happens at scoring time because it depends
on each question's answer type.
"""
from . import json_records, tables  # noqa: F401  (registers the generic formats)
from .formats import (
    FORMATS,
    PREDICTION_KEYS,
    UID_KEYS,
    Head,
    PredictionFormat,
    PredictionSet,
    format_of,
    load_predictions,
    named_path,
    register_format,
    unregister_format,
)

__all__ = ["FORMATS", "PREDICTION_KEYS", "UID_KEYS", "Head", "PredictionFormat", "PredictionSet", "format_of",
           "load_predictions", "named_path", "register_format", "unregister_format"]
