"""Data model, loading, conventions, geometry, scoring and audit. No Qt, ever."""
