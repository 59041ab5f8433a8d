"""How columns of numbers are held and walked, below everything that reads or judges them: ranges of rows handed to
worker processes (`fan`), times as integer microseconds (`micros`), values read in order by position without a
full sort (`ordered`), a rank's columns read step by step (`transposed`), a table's rows laid on the grid of some
columns' values (`grid`), the picking of entries by a bound (`picking`), and Parquet files read with the standard
library (`parquetfile`). The speed tricks (bound dunders, byte masks, column layouts) live here, so that the layers
above read like their formulas.

The front door: the layer's public names (`__all__`), each loaded on first use: what a user of ddpcore needs, kept
as it is between releases. The layers above reach the rest of its modules' names by module (`from
..analysis.chance import ALPHA`); code outside ddpcore has no promise that they stay."""

from __future__ import annotations

from ..base.front import front_door

_LAZY: dict[str, tuple[str, ...]] = {}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
