"""Neighbouring relations and neighbour generators."""

from dpaudit.neighbors.canary import beyond_margin_items, canary_pair, linear_on_domain
from dpaudit.neighbors.generators import random_neighbor, worst_case_neighbors
from dpaudit.neighbors.pairs import PAIR_RELATIONS, worst_case_pair
from dpaudit.neighbors.relations import (
    ItemAddRemove,
    ItemReplace,
    NeighborRelation,
    QueryDistance,
    UserAddRemove,
    UserReplace,
)

__all__ = [
    "PAIR_RELATIONS",
    "ItemAddRemove",
    "ItemReplace",
    "NeighborRelation",
    "QueryDistance",
    "UserAddRemove",
    "UserReplace",
    "beyond_margin_items",
    "canary_pair",
    "linear_on_domain",
    "random_neighbor",
    "worst_case_neighbors",
    "worst_case_pair",
]
