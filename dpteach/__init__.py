"""dpteach: learn sensitivity in differential privacy by running it.

The package behind the notebooks in ``notebooks/``; each module is one idea of one notebook:

* :mod:`dpteach.queries` — the queries and their conventions (notebook 02);
* :mod:`dpteach.neighbours` — datasets as multisets and their neighbours (notebook 02);
* :mod:`dpteach.sensitivity` — exact global and local sensitivity (notebooks 02 and 03);
* :mod:`dpteach.datasets` — the toy universes and the Adult census data;
* :mod:`dpteach.plotting` — one set-up call per notebook and ``save_fig``.
"""

from dpteach.datasets import load_adult
from dpteach.queries import QUERIES, evaluate
from dpteach.sensitivity import (
    blog_bounded_local,
    global_sensitivity,
    local_sensitivity,
    neighbour_table,
    replicate,
    sensitivity_by_distance,
    sensitivity_grid,
)

__all__ = [
    "QUERIES",
    "blog_bounded_local",
    "evaluate",
    "global_sensitivity",
    "load_adult",
    "local_sensitivity",
    "neighbour_table",
    "replicate",
    "sensitivity_by_distance",
    "sensitivity_grid",
]
