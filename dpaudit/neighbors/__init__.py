"""Neighbouring relations and neighbour generators."""

from dpaudit.neighbors.generators import random_neighbor, worst_case_neighbors
from dpaudit.neighbors.relations import (
    ItemAddRemove,
    ItemReplace,
    NeighborRelation,
    QueryDistance,
    UserAddRemove,
    UserReplace,
)

__all__ = [
    "ItemAddRemove",
    "ItemReplace",
    "NeighborRelation",
    "QueryDistance",
    "UserAddRemove",
    "UserReplace",
    "random_neighbor",
    "worst_case_neighbors",
]
