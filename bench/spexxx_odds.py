"""Odds of each Spexxx combination within four throws, and the points they suggest.

The rule text publishes the points of orange (1), blue (5) and red (12) cells only.
For the other zones this script computes, exactly, the probability of reaching a
zone's combination within four throws when the player keeps dice optimally for that
one target (a dynamic programme over the kept dice; five of a kind also counts, since
it may go on any free cell), and checks it by playing that policy with seeded random
dice. Suggested points interpolate the published anchors on
the rarity scale -log(p), so points grow with rarity.

    /work/venv/bin/python bench/spexxx_odds.py
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from functools import cache
from itertools import combinations_with_replacement

THROWS = 4
FACES = range(1, 7)
Dice = tuple[int, ...]

#: Each zone's combination for one representative cell (all cells of a zone are alike
#: up to relabelling the faces). ``exact``: the five dice must be exactly these.
TARGETS: dict[str, tuple[dict[int, int], bool]] = {
    "orange": ({1: 1, 2: 1}, False),
    "green": ({1: 2, 2: 1}, False),
    "yellow": ({1: 2, 2: 2}, False),
    "blue": ({1: 3, 2: 1}, False),
    "purple": ({1: 3, 2: 2}, True),
    "red": ({1: 4, 2: 1}, True),
}
ANCHORS = {"orange": 1, "blue": 5, "red": 12}
SEED = 2016
SIMULATED_TURNS = 20_000


def fits_counts(need: dict[int, int], exact: bool) -> Callable[[Dice], bool]:
    def fits(dice: Dice) -> bool:
        have = Counter(dice)
        enough = all(have[face] >= n for face, n in need.items())
        return enough and (not exact or sum(need.values()) == len(dice))

    return fits


def straight(length: int) -> Callable[[Dice], bool]:
    runs = [set(range(start, start + length)) for start in range(1, 8 - length)]
    return lambda dice: any(run <= set(dice) for run in runs)


@cache
def roll_outcomes(k: int) -> tuple[tuple[Dice, float], ...]:
    """Every multiset ``k`` dice can show, with its probability."""
    total = 6**k
    out = []
    for combo in combinations_with_replacement(FACES, k):
        ways = math.factorial(k)
        for n in Counter(combo).values():
            ways //= math.factorial(n)
        out.append((combo, ways / total))
    return tuple(out)


def sub_multisets(dice: Dice) -> set[Dice]:
    subs: set[Dice] = {()}
    for die in dice:
        subs |= {tuple(sorted((*s, die))) for s in subs}
    return subs


class Odds:
    """The optimal keep policy for one target and its exact success probability."""

    def __init__(self, target: Callable[[Dice], bool]) -> None:
        self.reached = lambda dice: target(dice) or len(set(dice)) == 1
        self.value = cache(self._value)
        self.keep_value = cache(self._keep_value)

    def _value(self, dice: Dice, left: int) -> float:
        if self.reached(dice):
            return 1.0
        if left == 0:
            return 0.0
        return self.keep_value(self.best_keep(dice, left), left)

    def best_keep(self, dice: Dice, left: int) -> Dice:
        return max(sorted(sub_multisets(dice)), key=lambda kept: self.keep_value(kept, left))

    def _keep_value(self, kept: Dice, left: int) -> float:
        return sum(
            p * self.value(tuple(sorted(kept + rolled)), left - 1)
            for rolled, p in roll_outcomes(5 - len(kept))
        )

    @property
    def exact(self) -> float:
        """P(target or five of a kind within THROWS throws)."""
        return self.keep_value((), THROWS)

    def simulate(self, rng: random.Random, games: int) -> float:
        """The same policy played with random dice: a check on the exact figure."""
        hits = 0
        for _ in range(games):
            kept: Dice = ()
            for left in range(THROWS - 1, -1, -1):
                dice = tuple(sorted(kept + tuple(rng.randint(1, 6) for _ in range(5 - len(kept)))))
                if self.reached(dice):
                    hits += 1
                    break
                if left:
                    kept = self.best_keep(dice, left)
        return hits / games



def suggested_points(probs: dict[str, float]) -> dict[str, int]:
    """Interpolate the published anchors piecewise-linearly in -log(p)."""
    anchors = sorted((-math.log(probs[z]), pts) for z, pts in ANCHORS.items())

    def points(rarity: float) -> float:
        lo, hi = (anchors[0], anchors[1]) if rarity <= anchors[1][0] else (anchors[1], anchors[2])
        (x0, y0), (x1, y1) = lo, hi
        return y0 + (rarity - x0) * (y1 - y0) / (x1 - x0)

    return {z: ANCHORS.get(z) or max(1, round(points(-math.log(p)))) for z, p in probs.items()}


def main() -> None:
    odds = {zone: Odds(fits_counts(need, exact)) for zone, (need, exact) in TARGETS.items()}
    odds["gold"] = Odds(straight(4))
    odds["silver"] = Odds(straight(5))
    probs = {zone: o.exact for zone, o in odds.items()}
    points = suggested_points(probs)
    rng = random.Random(SEED)
    print(f"{'zone':8} {'P exact':>8} {'P simulated':>12} {'rarity -ln p':>13} {'points':>7}")
    for zone in sorted(probs, key=probs.__getitem__, reverse=True):
        source = "rule text" if zone in ANCHORS else "suggested"
        simulated = odds[zone].simulate(rng, SIMULATED_TURNS)
        print(f"{zone:8} {probs[zone]:8.4f} {simulated:12.4f} {-math.log(probs[zone]):13.3f} "
              f"{points[zone]:7d}  ({source})")
    print(f"simulated: {SIMULATED_TURNS} turns per zone with the same policy, seed {SEED}")


if __name__ == "__main__":
    main()
