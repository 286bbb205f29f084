"""The tuner's defaults and the levels and shares its search decides by."""

from __future__ import annotations

OBJECTIVES = ("seat", "destinations", "strategies")
# default bands: seat and strategies in win-share points (0.015 = 1.5 points), destinations
# in robust z units of deal value
DEFAULT_BANDS = {"seat": 0.015, "destinations": 2.5, "strategies": 0.05}
DEFAULT_BUDGET = 240_000  # games of the search (screen and rounds)
DEFAULT_HOLDOUT = 20_000  # games per design on the held-out deals
DEFAULT_MAX_EDITS = 2
DEFAULT_SUSPECTS = 3  # destinations: tickets (or cities) tried per round
MAX_EDITS_LIMIT = 10
MAX_BUDGET = 10**9  # search games: a study's most games per cell (sims.study.MAX_GAMES)
MAX_HOLDOUT = 10**8  # held-out games per design: rounded up to whole seatings, still below
# bands as typed: seat and strategies in points, destinations in z. Under 0.1 no hold-out of a
# sensible size confirms one (0.1 points takes about a million games); above the top every
# design meets it (at 2 players no seat's share is 50 points from fair)
BAND_LIMITS = {"seat": (0.1, 50.0), "strategies": (0.1, 50.0), "destinations": (0.1, 10.0)}
MAX_EDIT_VALUES = 100  # values one edits entry may let the search try: a ticket's 1-99 fit
SCREEN_SHARE = 0.10  # of the search budget: the current design alone
INCREMENTS = 4  # a round's budget is played in about this many increments (arms drop between)
MIN_DEALS_TO_DECIDE = 30  # no arm is dropped or declared better on fewer deals
DROP_LEVEL = 0.99  # racing: worse than the best at 99%, one-sided
SIGNIFICANCE = 0.95  # greedy: better than the current design at 95%, one-sided, Bonferroni
TARGET_LEVEL = 0.95  # items within their band at 95% (Bonferroni over free items)
INDIFFERENCE_SHARE = 0.02  # an arm that cannot gain 2% of the current loss is futile
INDIFFERENCE_FLOOR = 1e-4
BOOTSTRAP = 300  # resamples of deals for standard errors
BATCH_CAP = 400  # games per results part
EVIDENCE_ARMS = 6  # candidates listed in the verdict's evidence, closest to the target first

SPEC_KEYS = {"within", "min", "max", "step", "values"}
DESTINATION_RANGE = (1, 99)
# destinations: the default range of a ticket's points around its current value. A ticket
# raised by 6 (the planted benchmark's largest plant) must be able to land 2 below the value
# it was raised from, or the search could never show that it overshoots its fair price
DESTINATION_WITHIN = 8
BIG_CITY_RANGE = (1, 50)
# the seat objective's levers: extra cards (0-2) or an extra locomotive at setup for each seat
# after the first, and a first turn of one card for the first seat (first_turn)
SEAT_LEVER_EDITS: dict[str, dict[str, int]] = {
    "seat_extra_cards": {"min": 0, "max": 2},
    "seat_extra_locomotives": {"min": 0, "max": 1},
}
# the setup and draw settings, each within a small range of its current value: the seat
# objective's levers where the rules have no seat levers, and the strategies objective's
DEFAULT_RULE_EDITS: dict[str, dict[str, int]] = {
    "starting_hand": {"within": 2},
    "starting_locomotives": {"within": 1},
    "face_up": {"within": 2},
    "destinations_dealt": {"within": 2},
    "destinations_min_keep": {"within": 1},
    "destinations_drawn": {"within": 2},
}
