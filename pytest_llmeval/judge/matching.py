"""Claim matching results shared by the LLM and the offline judge."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ClaimLink:
    """One side's verdict for one claim: its counterpart on the other side (or none) and why."""

    index: int  # 0-based index of the claim on its own side
    match: int | None  # 0-based index on the other side, None = unmatched
    reason: str
    score: float | None = None  # offline similarity, when there is one


@dataclass
class Matching:
    """Matches counted separately on each side.

    ``response[i]`` says which gold claim (if any) states response claim ``i``;
    ``gold[j]`` says which response claim (if any) states gold claim ``j``.
    """

    response: list[ClaimLink] = field(default_factory=list)
    gold: list[ClaimLink] = field(default_factory=list)

    @property
    def matched_response(self) -> int:
        return sum(link.match is not None for link in self.response)

    @property
    def matched_gold(self) -> int:
        return sum(link.match is not None for link in self.gold)

    def to_dict(self) -> dict[str, Any]:
        def side(links: list[ClaimLink]) -> list[dict[str, Any]]:
            return [
                {
                    "index": link.index,
                    "match": link.match,
                    "reason": link.reason,
                    "score": link.score,
                }
                for link in links
            ]

        return {"response": side(self.response), "gold": side(self.gold)}
