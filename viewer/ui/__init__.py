"""Qt widgets: they display and forward intent; benchmark logic lives in viewer.core."""
