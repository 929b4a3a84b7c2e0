"""VSI-Bench (thinking-in-space): its columns, answer kinds, release and prediction readers, and objects."""
from .benchmark import VSI
from .mra_number import MRA, MRA_ELEVEN
from .option_text import OPTION_TEXT

__all__ = ["VSI", "MRA", "MRA_ELEVEN", "OPTION_TEXT"]
