"""Reads for the cage."""

from .models import Cage


def cage_get(code: str = "main") -> Cage:
    cage, _ = Cage.objects.get_or_create(code=code)
    return cage
