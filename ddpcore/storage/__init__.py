"""How columns of numbers are held and walked, below everything that reads or judges them: ranges of rows handed to
worker processes (`fan`), times as integer microseconds (`micros`), values read in order by position without a
full sort (`ordered`), a rank's columns read step by step (`transposed`), and the picking of entries by a bound
(`picking`). The speed tricks (bound dunders, byte masks, column layouts) live here, so that the layers above read
like their formulas.

The front door: code outside this package imports only what `__all__` names here, each loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .fan import (  # noqa: F401
        BLOCK_ROWS,
        BLOCK_VALUES,
        TASK_VALUES,
        Fan,
        block_rows,
        ranges,
    )
    from .micros import (  # noqa: F401
        US_DIGITS,
        US_PER_MS,
        Micros,
        as_ms,
        median,
    )
    from .ordered import (  # noqa: F401
        SAMPLE,
        SELECTED_FROM,
        LeftOut,
        Positions,
        Sample,
        SortedRuns,
        Within,
        bracket,
        in_order,
        inside,
        sample_of,
        sorted_places,
        within,
    )
    from .picking import (  # noqa: F401
        above_or_not,
        affine,
        below_at_above,
        count_at_most,
        gathered,
        largest_each,
        least_at,
        least_each,
        order_of,
        picked,
        picked_where_above,
        scaled,
        values_above,
        values_at_most,
        where_above,
        where_at_least,
        where_at_most,
        where_equal,
        without_places,
    )
    from .transposed import (  # noqa: F401
        Transposed,
    )
    from .whenread import (  # noqa: F401
        RowsWhenRead,
    )

_LAZY = {
    "fan": (
        "BLOCK_ROWS",
        "BLOCK_VALUES",
        "Fan",
        "TASK_VALUES",
        "block_rows",
        "ranges",
    ),
    "micros": (
        "Micros",
        "US_DIGITS",
        "US_PER_MS",
        "as_ms",
        "median",
    ),
    "ordered": (
        "LeftOut",
        "Positions",
        "SAMPLE",
        "SELECTED_FROM",
        "Sample",
        "SortedRuns",
        "Within",
        "bracket",
        "in_order",
        "inside",
        "sample_of",
        "sorted_places",
        "within",
    ),
    "picking": (
        "above_or_not",
        "affine",
        "below_at_above",
        "count_at_most",
        "gathered",
        "largest_each",
        "least_at",
        "least_each",
        "order_of",
        "picked",
        "picked_where_above",
        "scaled",
        "values_above",
        "values_at_most",
        "where_above",
        "where_at_least",
        "where_at_most",
        "where_equal",
        "without_places",
    ),
    "transposed": ("Transposed",),
    "whenread": ("RowsWhenRead",),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
