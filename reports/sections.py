"""The report's sections, built once from an analysis: what each one says, draws and tabulates
on the HTML page, and what the Markdown summary keeps of it (the model: reports/document.py;
the rule variants' and sweeps' sections: reports/variant_sections.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pandas as pd
import plotly.graph_objects as go

from . import answers, figures, planning, power, robustness, skill, study_kinds
from .analysis import Analysis
from .document import Block, Chart, Heading, Report, Section, StudyFacts, Table
from .findings import headline, players_know
from .intervals import game_ids
from .level import at_alpha
from .numbers import p_text
from .settled import looks_note
from .variant_sections import sweeps_section, variants_section


def build(analysis: Analysis, info: study_kinds.StudyInfo | None = None) -> Report:
    """The report of an analysis; ``info`` (default: the study's own) decides the title,
    the question and the page's order of sections. Read at the analysis's level."""
    with at_alpha(analysis.alpha):
        return _build(analysis, info)


def _build(analysis: Analysis, info: study_kinds.StudyInfo | None) -> Report:
    study = analysis.results.study
    info = info or study_kinds.study_info(study, analysis.seats, analysis.results.plan.description)
    checked = robustness.comparisons(analysis)  # the summary's rows and the section read it
    return Report(
        title=f"Ticket to Ride: The Card Game - {info.name} study",
        description=info.description,
        question=info.question,
        intents=study_kinds.strategy_intents(
            figures.strategy_order(analysis.strategies), study.get("strategies")
        ),
        knowledge=study_kinds.knowledge_sentence(analysis.seats, study.get("strategies"))
        + study_kinds.adaptation_sentence(analysis.results.plan.adaptations),
        partial_note=" ".join(filter(None, [analysis.partial_note, looks_note(analysis)])),
        findings=headline(analysis),
        summary=answers.summary(
            analysis, info.question, info.order, robustness.summary_rows(checked)
        ),
        sections=_sections(analysis, checked),
        order=info.order,
        facts=StudyFacts(
            name=str(study.get("name")),
            games=len(analysis.games),
            failures=analysis.failures,
            players=list(study.get("players", [])),
            rotation=str(study.get("rotation")),
            seed=str(study.get("seed")),
            variants=list(study.get("variants", {})),
            sweeps=[sweep.name for sweep in analysis.sweeps],
            pairing=pairing_text(study),
        ),
    )


# ------------------------------------------------------------------ front matter
def pairing_text(study: dict) -> str:
    """How the study's games share deals (docs/data.md), in one sentence."""
    pairing = study.get("pairing", "none")
    if pairing == "none":
        return "unpaired (every cell draws its own deals)."
    if pairing == "seatings":
        return (
            "paired by seatings: every line-up of a player count plays the same deals, each "
            "deal in every seat order, so identical strategies play identical games; variant "
            "effects are paired by deal, and the strategy comparisons and the first seat's "
            "edge cluster by deal (the games of one deal are not independent), the other "
            "intervals by game."
        )
    return (
        f"paired ({pairing}): game i of every variant and line-up of a player count replays "
        "the same deal (common random numbers); variant effects are paired by deal, the "
        "strategy comparisons and the first seat's edge cluster by deal, the other intervals "
        "by game (they may be somewhat too narrow in a paired study)."
    )


# ------------------------------------------------------------------ the sections
def _sections(analysis: Analysis, checked: dict[str, pd.DataFrame]) -> list[Section]:
    """Every section, in the summary's order (the page orders them by the study's
    question); no chart without data, strategies in one order on every axis."""
    t = analysis.tables
    order = figures.strategy_order(analysis.strategies)
    out = [
        _strongest(analysis),
        _seats(analysis),
        _players(analysis),
        _points(analysis, order),
        _destinations(analysis),
        _cities(analysis),
    ]
    if not t["variants"].empty:
        out.append(variants_section(analysis))
    if analysis.sweeps:
        out.append(sweeps_section(analysis))
    if "quality" in t:
        out.append(_quality(analysis))
    out.append(_designers(analysis))
    if "skill_pairs" in t:
        out.append(_skill(analysis))
    held = robustness.robustness_section(analysis, checked)
    if held is not None:
        out.append(held)
    for section in out:
        section.charts = [
            Chart(
                partial(_in_strategy_order, chart.draw, order),
                chart.caption,
                chart.method,
                chart.lead,
            )
            for chart in section.charts
        ]
    out.append(_convergence(analysis, figures.strategy_colours(order)))
    return out


def _in_strategy_order(draw: Callable[[], go.Figure], order: list[str]) -> go.Figure:
    """The figure with every axis whose categories are strategies in the report's one order,
    unless the figure orders its own (``layout.meta["own_order"]``: heatmaps by strength)."""
    fig = draw()
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("own_order"):
        return fig
    known = set(order)
    for axis in ("x", "y"):
        values = [
            v
            for trace in fig.data
            if getattr(trace, axis, None) is not None
            for v in list(getattr(trace, axis))
        ]
        if values and all(isinstance(v, str) and v in known for v in values):
            figures.order_axes(fig, order, x=axis == "x", y=axis == "y")
            if axis == "y":
                fig.update_yaxes(autorange="reversed")  # the first strategy on top
    return fig


def _strongest(analysis: Analysis) -> Section:
    """Ratings, win rates and head-to-head, each per player count; the pooled rating only
    beside its likelihood-ratio test and its own pairwise test. Left off the page when every
    seat plays one strategy (the findings say so)."""
    t = analysis.tables
    rated = t["ratings"].dropna(subset=["strength"])
    tables_rated = int(rated.groupby("players")["n_tables"].max().sum()) if len(rated) else 0
    charts = []
    if t["ratings"]["strength"].notna().any():
        apart = figures.ratings_apart(t["ratings"])
        charts.append(
            Chart(
                partial(figures.ratings, t["ratings"]),
                "Each strategy's strength per player count: further right finishes ahead "
                "more often" + (f"; {apart}." if apart else "."),
                f"Plackett-Luce strengths, maximum likelihood over {tables_rated:,} tables (a "
                "strategy seated twice counts as two seats of one strength); bars: Wald 95% "
                "intervals from the observed information. Scale: log-odds, 0 = mean of the "
                "non-random strategies. A strategy that finished ahead of (or behind) every "
                "other one has no finite strength: see its note. Whether two strategies "
                "differ is the pairwise test of their difference (pairwise), never the overlap "
                "of two intervals.",
            )
        )
    alone = t["win_rates"]["note"].str.startswith("the only strategy").all()
    if not alone:
        charts.append(
            Chart(
                partial(figures.win_rates, t["win_rates"]),
                "How often each strategy won its games, against the fair share of a table of "
                "equals (dotted).",
                "Win rate = share of its games a strategy won (its seats' win shares summed "
                "per game, a k-way shared win counting 1/k); bars: Wilson 95% intervals over "
                f"n_games; n_games and n_seats in the table ({len(analysis.seats):,} seat "
                "rows); games in which a strategy held every seat are left out (n_alone). "
                "Against the field: what it would win if the non-random strategies were "
                "equally strong, paired per game, Bonferroni over the strategies of a player "
                "count, "
                "with its verdict against the margin (win_rates).",
            )
        )
    for players in sorted(t["head_to_head"]["players"].unique()):
        charts.append(
            Chart(
                partial(figures.head_to_head, t["head_to_head"], int(players), t["ratings"]),
                f"At {int(players)} players, how often the row strategy finished ahead of the "
                "column strategy where both sat, strongest first.",
                "Share of the games both sat in that the row strategy finished ahead (R22 "
                "order; a tie counts one half; a game counts once however many seats each "
                "had); n_games in the hover; * marks a pair separated by the score test after "
                "Holm over the pairs of the player count. The colour scale is set by the "
                "non-random pairs (random's cells are clipped to it).",
            )
        )
    tables = [
        Table("leaders", t["leaders"]),
        Table("win_rates", t["win_rates"]),
        Table("ratings", t["ratings"]),
        Table("pairwise", t["pairwise"]),
        Table("head_to_head", t["head_to_head"]),
    ]
    if not t["rating_pooling"].empty:
        tables += [
            Table("rating_pooling", t["rating_pooling"]),
            Table("ratings_pooled", t["ratings_pooled"]),
            Table("pairwise_pooled", t["pairwise_pooled"]),
        ]
    if not t["lineup_swaps"].empty:  # a paired study: line-ups swapping one strategy
        tables.append(Table("lineup_swaps", t["lineup_swaps"]))
    intro = (
        "Every seat in this study is the same strategy: there is nothing to compare, so no "
        "rating or win-rate chart is drawn. "
        if alone
        else ""
    )
    one_strategy = study_kinds.alone_everywhere(analysis.seats)
    return Section(
        key="strongest",
        title="Which strategy is strongest?",
        intro=intro + "Per player count: strength depends on it. A strategy is named the "
        "strongest only when its rating is separated from every other one (the difference's "
        "verdict is different); otherwise the strategies not separated from the top are tied. "
        "Every 'A beats B' is a test of the difference itself, read off its interval "
        "(Bonferroni over the pairs of a player count) against a practical margin of "
        f"±{analysis.margins['log_odds']:g} log-odds (rating) or "
        f"±{100 * analysis.margins['win_share']:g} points (win share).",
        charts=charts,
        tables=tables,
        summary=_strategies_summary(analysis, one_strategy),
        on_page=not one_strategy,
    )


def _strategies_summary(analysis: Analysis, one_strategy: bool) -> list[Block]:
    """Leaders, ratings, pooling, win rates and the pairs' verdicts (where strategies meet)."""
    from .findings import disagreements

    t = analysis.tables
    if one_strategy:
        return [
            Heading("Strategies"),
            "Every seat plays the same strategy: no rating, win rate or pairwise comparison to "
            "show.",
        ]
    leaders = t["leaders"][t["leaders"]["players"] != "pooled"]
    return [
        Heading("Strategy ratings per player count (Plackett-Luce)"),
        "Strength on the log-odds scale; 0 = mean of the non-random strategies. `leaders`: "
        "the strongest only when separated from every other strategy, else those tied at "
        "the top; `basis`: what separated them (a rating difference, in log-odds, or, in a "
        "paired study, line-up swaps against the same opponents, seats and deals, in win "
        "share).",
        Table("leaders", leaders,
              ["players", "leaders", "verdict", "basis", "runner_up", "difference",
               "family_low", "family_high", "p_adjusted", "needed"]),
        Table("ratings", t["ratings"],
              ["players", "rank", "strategy", "strength", "ci_low", "ci_high", "n_tables", "note"]),
        *_pooling_summary(t),
        Heading("Win rates"),
        "Share of its games won; `field`: its share if the non-random strategies were equally "
        "strong; `verdict` of its excess over the field, Bonferroni over the strategies of a "
        "player "
        "count.",
        Table("win_rates", t["win_rates"],
              ["players", "strategy", "rate", "ci_low", "ci_high", "n_games", "n_seats", "field",
               "p_adjusted", "verdict"]),
        Heading("Pairs that differ (verdict different; Bonferroni per player count and method)"),
        _separated_pairs(t["pairwise"]),
        *disagreements(analysis),
        *_swaps_summary(t["lineup_swaps"]),
    ]  # fmt: skip


def _pooling_summary(t: dict[str, pd.DataFrame]) -> list[Block]:
    """The pooled rating, only beside its likelihood-ratio test and its pairwise test."""
    test = t["rating_pooling"]
    if test.empty:
        return []
    row = test.iloc[0]
    blocks: list[Block] = [
        Heading("Pooling the player counts", 3),
        f"Likelihood-ratio test of strategy x player count: chi-square {row['lr']:.1f}, "
        f"df={int(row['df'])}, {p_text(row['p_value'])}.",
    ]
    if not row["pooling_justified"]:
        return [*blocks, "Strength depends on the player count: no pooled ranking is given."]
    pooled = t["leaders"][t["leaders"]["players"] == "pooled"]
    lead = (
        f"Pooled leader: {pooled.iloc[0]['leaders']} ({pooled.iloc[0]['verdict']} against the "
        "next, Bonferroni over the pooled pairs)."
        if len(pooled)
        else "No pooled leader."
    )
    return [
        *blocks,
        "No evidence that strength depends on the player count (which does not show that one "
        "rating fits every count). " + lead,
        Table("ratings_pooled", t["ratings_pooled"],
              ["rank", "strategy", "strength", "ci_low", "ci_high", "n_tables"]),
    ]  # fmt: skip


def _separated_pairs(pairs: pd.DataFrame) -> Block:
    hits = pairs[pairs["verdict"] == "different"] if len(pairs) else pairs
    if hits.empty:
        return (
            "No pair is separated after Bonferroni's correction over the pairs of a player count "
            "(rating difference or win share paired by game): no evidence that any strategy "
            "differs from another at these sample sizes; see each pair's interval and the games "
            "needed in pairwise."
        )
    return Table(
        "pairwise",
        hits,
        ["players", "strategy", "opponent", "difference", "family_low", "family_high", "p_adjusted",
         "method"],
    )  # fmt: skip


def _swaps_summary(swaps: pd.DataFrame) -> list[Block]:
    """Paired studies: line-ups that differ by one strategy, compared on the same deals."""
    if swaps.empty:
        return []
    return [
        Heading("Swapping one strategy on the same deals (paired t over deals, Bonferroni per "
                "player count)"),
        "Each row: the strategy's win share minus the opponent's in the same seat of two "
        "line-ups that differ only by that swap (same other strategies, same deal: the same "
        "game seed, so the same shuffles at setup and the same seat order); the differences of "
        "every such pair of line-ups (n_contexts) are averaged per deal, and the deal is the "
        "unit (n_deals).",
        Table(
            "lineup_swaps",
            swaps[swaps["metric"] == "win_share"],
            ["players", "strategy", "opponent", "n_contexts", "n_deals", "difference",
             "family_low", "family_high", "p_adjusted", "verdict"],
        ),
    ]  # fmt: skip


def _seats(analysis: Analysis) -> Section:
    t = analysis.tables
    edge = t["seat_edge"]
    equal = (edge["tables"] == "equal players").any()
    return Section(
        key="seats",
        title="Does the seat order matter?",
        intro="Seat 0 plays first (R6), as on the command line and in the game records. "
        + (
            "The first seat's edge is measured at tables of equal players (every seat the same "
            "strategy), which isolate the seat order. "
            if equal
            else "This study has no table of equal players, so the first seat's edge is "
            "measured over every table, where strategies rotate through the seats. "
        )
        + "Its verdict is against a margin of "
        f"±{100 * analysis.margins['win_share']:g} points of win share, Bonferroni over the player "
        "counts together.",
        charts=[
            Chart(
                partial(figures.seat_advantage, t["seat_advantage"]),
                "Win rate of each seat per player count, against the fair share (dotted).",
                "Win rate by seat over games (one row per game and seat), Wilson 95% "
                "intervals. Equality across seats (seat_tests): chi-square of the winning "
                "seat, one count per game (equal to Cochran's Q over the games' winner "
                "indicators); scores blocked by game: Friedman's rank test (the sign test at 2 "
                "players); each Holm-corrected over the player counts together.",
            )
        ],
        tables=[
            Table("seat_edge", edge),
            Table("seat_advantage", t["seat_advantage"]),
            Table("seat_tests", t["seat_tests"]),
        ],
        summary=[
            Heading("Seat advantage"),
            "Seat 0 plays first (R6). `seat_edge`: seat 0's win share minus the fair share, "
            "one value per game, t interval, verdict against the margin (Bonferroni over the "
            "player "
            "counts together); `needed`: games to decide at the margin.",
            Table("seat_edge", edge,
                  ["players", "tables", "n_games", "rate", "difference", "family_low",
                   "family_high",
                   "p_adjusted", "verdict", "needed"]),
            Table("seat_advantage", t["seat_advantage"],
                  ["players", "seat", "n_games", "rate", "ci_low", "ci_high", "fair"]),
            Table("seat_tests", t["seat_tests"],
                  ["players", "n_games", "wins_p_adjusted", "wins_significant", "score_test",
                   "score_p_adjusted"]),
        ],
    )  # fmt: skip


def _players(analysis: Analysis) -> Section:
    t = analysis.tables
    n_games = int((~analysis.games["failed"]).sum())
    length = t["game_length"]
    return Section(
        key="players",
        title="How do 2, 3 and 4 players differ?",
        intro="Length and interaction of a game: turns of all seats together and each "
        "player's own turns, simulated minutes and steals; at 4 players, how the points split "
        "between the two rounds (R18-R19).",
        charts=[
            Chart(
                partial(figures.game_length, length),
                "Game length and steals by player count.",
                f"Means with Student t 95% intervals over {n_games:,} games (base rules); "
                "'turns' counts every seat's turns together, 'turns per player' each player's "
                "own; simulated minutes come from the SimPy table clock's think-time model.",
            )
        ],
        tables=[Table("game_length", length), Table("round_shares", t["round_shares"])],
        summary=[
            Heading("Game length"),
            "Per game, Student t 95% intervals over games; `turns` is all seats together, "
            "`turns_per_player` each player's own turns.",
            Table("game_length", length,
                  ["players", "metric", "n_games", "mean", "ci_low", "ci_high"]),
        ],
    )  # fmt: skip


def _points(analysis: Analysis, order: list[str]) -> Section:
    """Score parts per strategy: one chart per player count, or one chart across the
    counts when every seat plays one strategy."""
    t = analysis.tables
    if len(order) == 1:
        charts = [
            Chart(
                partial(figures.score_parts_by_count, t["score_parts"]),
                "Where a seat's points come from at each player count.",
                f"Every seat plays {order[0]}: mean points per seat with 95% intervals "
                "clustered by game (CR1, statsmodels); n_games and n_seats in score_parts.",
            )
        ]
    else:
        charts = [
            Chart(
                partial(figures.score_parts, t["score_parts"], int(p)),
                f"Where each strategy's points come from at {int(p)} players.",
                "Mean points per seat with 95% intervals clustered by game (CR1, "
                "statsmodels); n_games and n_seats in score_parts.",
            )
            for p in sorted(t["score_parts"]["players"].unique())
        ]
    return Section(
        key="points",
        title="Where do the points come from?",
        intro="Destination points gained, penalties for destinations not reached (R20) and "
        "big-city bonuses (R21), per strategy.",
        charts=charts,
        tables=[Table("score_parts", t["score_parts"])],
    )


def _destinations(analysis: Analysis) -> Section:
    """The cards out of line; no chart when no card was kept often enough to fit."""
    t = analysis.tables
    offers = int(t["destinations"]["offered"].sum())
    intro = (
        "For each card and player count: how often kept when offered, how often completed "
        "when kept, and its mean net points when kept (+points if reached, -points if "
        "not), against cards of the same printed points and trains. A card is flagged "
        "only when it is out of line beyond the card-to-card spread."
    )
    charts = [
        Chart(
            partial(figures.destination_balance, t["destinations"]),
            "What each destination card earns against cards of its printed points and trains "
            "(the diagonal); flagged cards are labelled.",
            "Mean net points when kept (95% intervals with the game as the unit) against "
            "the net points expected of a card of its printed points and trains: a "
            "random-effects regression of completion (logit) on points and trains per "
            "player count, card-to-card spread by DerSimonian-Laird, each card against "
            "the fit without it; flagged: Holm-adjusted p < 0.05 over every card and "
            "player count. Open circles: kept under 20 times, not tested. The table "
            "gives each flagged card's fair printed value and the cards dominated on "
            f"paper. {offers:,} offers.",
        )
    ]
    if not t["destinations"]["expected"].notna().any():
        charts = []
        intro += (
            " No card was kept 20 times or more at any player count: too few to fit the "
            "model, so no chart is drawn (the table holds the raw counts)."
        )
    return Section(
        key="destinations",
        title="Which destination cards are out of line?",
        intro=intro,
        charts=charts,
        tables=[Table("destinations", t["destinations"])],
        summary=destinations_summary(t["destinations"]),
    )


DESTINATION_COLUMNS = [
    "card", "points", "cards", "kept", "completion", "net_mean", "expected", "excess", "p_holm",
    "suggested_points", "plays_like_points", "flag",
]  # fmt: skip


def destinations_summary(destinations: pd.DataFrame) -> list[Block]:
    """The destination cards per player count: flagged cards (number and cities), then the
    cards dominated on paper."""
    blocks: list[Block] = [Heading("Destination cards")]
    if destinations.empty:
        return [*blocks, "No destination card was offered."]
    frame = destinations.assign(card=destinations["label"])
    for column in ("suggested_points", "plays_like_points"):  # integers; empty when none
        frame[column] = frame[column].map(lambda v: "" if pd.isna(v) else str(int(v)))
    for players, group in frame.groupby("players", sort=True):
        flagged = group[group["flag"] != ""].sort_values("p_holm")
        name = f"{int(players)} players" if players else "All player counts"
        if not group["tested"].any():
            blocks.append(f"{name}: too few cards kept 20 times to test.")
        elif flagged.empty:
            blocks.append(f"{name}: no card out of line ({int(group['tested'].sum())} tested).")
        else:
            blocks += [
                Heading(f"{name}: cards out of line", 3),
                Table("destinations", flagged, DESTINATION_COLUMNS),
            ]
    beaten = frame.drop_duplicates("destination_id")
    beaten = beaten[beaten["dominated_by"] != ""]
    if not beaten.empty:
        blocks += [
            Heading(
                "Dominated on paper (another card needs a subset of their trains for at least "
                "their points)",
                3,
            ),
            Table(
                "destinations",
                beaten.rename(columns={"dominated_by": "dominated by"}),
                ["card", "points", "dominated by"],
            ),
        ]
    return blocks


def _cities(analysis: Analysis) -> Section:
    t = analysis.tables
    return Section(
        key="cities",
        title="What are the big cities worth?",
        intro="How often each bonus is won or shared, and how much winning it lifts the win rate.",
        charts=[
            Chart(
                partial(figures.big_cities, t["big_cities"]),
                "How much more often the seats that won each big-city bonus won the game.",
                "Win share of seats that won the bonus minus those that did not, 95% "
                "intervals clustered by game (OLS on the holder flag, CR1 errors); a "
                "correlation, not a cause (strong seats win bonuses too).",
            )
        ],
        tables=[Table("big_cities", t["big_cities"])],
    )


def _quality(analysis: Analysis) -> Section:
    """Game quality per player count, and what each variant (or swept value) does to it."""
    t = analysis.tables
    summary, effects = t["quality"], t["quality_variants"]
    charts = [
        Chart(
            partial(figures.game_quality, summary),
            "How close the games are at each player count: lead changes, drama, when the game "
            "is decided, excitement, comebacks and the winning margin.",
            "One value per finished game of the printed game (sims/quality.py defines each), "
            "from each seat's chance of winning after every turn as the learned model "
            "estimates it (sims/winmodel.py, docs/viewer.md); mean with a Student t 95% "
            "interval over games.",
        )
    ]
    if not effects.empty:
        charts.append(
            Chart(
                partial(
                    figures.variant_effects,
                    effects,
                    tuple(figures.QUALITY_METRICS),
                    figures.QUALITY_METRICS,
                    "Game quality: variant minus the printed game (each panel its own scale)",
                ),
                "What each variant (or swept value) changes in how close the games are.",
                "Variant minus base per game; in a paired study averaged per deal, paired t "
                "over deals; bars: the interval each verdict is read from, Bonferroni over "
                "the variants and player counts of a metric (the equivalence interval for "
                "practically equal); grey band: the metric's practical margin.",
            )
        )
    tables = [Table("quality", summary)]
    if not effects.empty:
        tables.append(Table("quality_variants", effects))
    return Section(
        key="quality",
        title="Are the games close, and when are they decided?",
        intro="A game's quality from the chance each seat had of winning after every turn: "
        "how often the favourite changed, how far behind the eventual winner was (drama), "
        "how much of the game was played before the winner's chance stayed above one half "
        "(decisiveness), how much the chances moved in all (excitement), the winner's "
        "lowest chance (comeback) and the final winning margin.",
        charts=charts,
        tables=tables,
        summary=quality_blocks(summary, effects),
    )


def quality_blocks(summary: pd.DataFrame, effects: pd.DataFrame) -> list[Block]:
    """The summary's quality part: per player count the headline metrics, then each variant
    metric whose verdict is not "practically equal"."""
    blocks: list[Block] = [Heading("Are the games close?")]

    def say(row: pd.DataFrame, metric: str, digits: int = 2) -> str:
        r = row.loc[metric]
        return f"{r['mean']:.{digits}f} [{r['ci_low']:.{digits}f}, {r['ci_high']:.{digits}f}]"

    for players, here in summary.groupby("players", sort=True):
        row = here.set_index("metric")
        if row["n_games"].max() == 0:
            continue

        blocks.append(
            f"At {players} players ({int(row['n_games'].max()):,} games) the favourite changes "
            f"{say(row, 'lead_changes_chance')} times a game and the points leader "
            f"{say(row, 'lead_changes_points')}; a game is decided after "
            f"{100 * row.loc['decisive_fraction', 'mean']:.0f}% of its turns on average "
            f"(the winner's chance above 1/2 from then on), and the winner wins by "
            f"{say(row, 'final_margin', 1)} points."
        )
    if not effects.empty:
        moved = effects[effects["verdict"] != "practically equal"]
        blocks.append(Heading("Does a variant change that?", 3))
        if moved.empty:
            blocks.append("No variant changes any quality metric beyond its practical margin.")
        else:
            blocks.append(Table("quality_variants", moved, [
                "variant", "players", "metric", "base", "value", "difference", "family_low",
                "family_high", "verdict"]))  # fmt: skip
    return blocks


def _designers(analysis: Analysis) -> Section:
    """What designers ask: first seat among equals, score margins and tie-breaks, each
    card's contribution to winning, non-transitivity and the meta-game. A chart only where
    it has data."""
    t = analysis.tables
    charts = []
    if (t["first_seat"]["n_games"] > 0).any():
        charts.append(
            Chart(
                partial(figures.first_seat_advantage, t["first_seat"]),
                "Seat 0's edge over its fair share at tables of equal players.",
                "Tables where every seat holds the same non-random strategy: seat 0 (plays "
                "first, R6) win rate minus the fair share 1/players, one value per game; bars: "
                "Student t 95% intervals over games; Holm over every player count and mirrored "
                "strategy together; the hover gives the smallest advantage the games could "
                "detect (80% power at that family's level).",
            )
        )
    if not t["margin_distribution"].empty:
        charts.append(
            Chart(
                partial(figures.score_margins, t["margin_distribution"]),
                "How far the winner finished ahead of the runner-up.",
                "Winner's score minus the runner-up's, one per game (0: the top score is "
                "shared and R22's tie-break decides). score_margins: mean (Student t), median "
                "(order-statistic interval, scipy quantile_test), tie rate (Wilson), over games.",
            )
        )
    if not t["card_contribution_shown"].empty:
        charts.append(
            Chart(
                partial(figures.card_contribution, t["card_contribution_shown"]),
                "Which destination cards go with winning when completed, and with losing when "
                "failed.",
                "Per card and player count, among the seats that kept it: win rate of those "
                "that completed it minus those that failed it; the 5 largest and 5 smallest "
                "per player count (at least 10 seats of each; all cards in card_contribution). "
                "A card is kept at most once per game, so its seats are independent games: "
                "Newcombe 95% intervals, pooled z-test, Holm over the cards of a player count. "
                "A correlation, not a cause: weak seats fail cards and lose games.",
            )
        )
    if not t["meta_game"].empty:
        charts.append(
            Chart(
                partial(figures.meta_game, t["meta_game"]),
                "The mix of strategies no single strategy can exploit at 2 players.",
                "The symmetric 2-player zero-sum game whose payoff is P(row strategy finishes "
                "ahead of column strategy) - 0.5 (R22 order, ties one half): its Nash mix by "
                "linear programming (scipy linprog). Bars: mean over "
                f"{int(t['meta_game']['draws'].iloc[0])} game-level bootstrap draws (each "
                "pair's games resampled, seeded), 95% percentile intervals, left off where they "
                "span nearly 0-100% (the data do not pin that weight); the equilibrium need "
                "not be unique, so read share_positive in the table.",
            )
        )
    know = players_know(analysis)
    return Section(
        key="designers",
        title="What designers ask",
        intro=know
        + " Per player count: the first player's advantage among equal players, how close "
        "games are and how often the tie-break decides, which destination cards go with "
        "winning, whether strategies beat each other in a circle, and which mix of strategies "
        "no opponent can exploit at 2 players.",
        charts=charts,
        tables=[
            Table("first_seat", t["first_seat"]),
            Table("score_margins", t["score_margins"]),
            Table("card_contribution", t["card_contribution"]),
            Table("non_transitivity", t["non_transitivity"]),
            Table("meta_game", t["meta_game"]),
        ],
        summary=_designers_summary(t, know),
    )


def _designers_summary(t: dict[str, pd.DataFrame], know: str) -> list[Block]:
    """The tables of 'What designers ask' (their findings are in the headline list)."""
    blocks: list[Block] = [Heading("What designers ask"), know]
    seat = t["first_seat"][t["first_seat"]["n_games"] > 0]
    if not seat.empty:
        blocks += [
            Heading("First-seat advantage among equal players (t over games)", 3),
            Table("first_seat", seat.astype(object),
                  ["players", "strategy", "n_games", "rate", "advantage", "adv_ci_low",
                   "adv_ci_high", "p_value", "mde"]),
        ]  # fmt: skip
    if not t["score_margins"].empty:
        blocks += [
            Heading("Score margins and tie-breaks (one per game)", 3),
            Table("score_margins", t["score_margins"].astype(object),
                  ["players", "n_games", "median_margin", "mean_margin", "ci_low", "ci_high",
                   "tie_rate", "tie_ci_low", "tie_ci_high", "shared"]),
        ]  # fmt: skip
    if not t["card_contribution_shown"].empty:
        blocks += [
            Heading("Cards and winning: completed minus failed, top and bottom (Newcombe, Holm)",
                    3),
            Table("card_contribution", t["card_contribution_shown"].astype(object),
                  ["players", "label", "n_completed", "n_failed", "difference", "ci_low",
                   "ci_high", "p_adjusted"]),
        ]  # fmt: skip
    if not t["meta_game"].empty:
        blocks += [
            Heading("Equilibrium mix of the 2-player meta-game (game-level bootstrap)", 3),
            Table("meta_game", t["meta_game"].astype(object),
                  ["strategy", "weight", "boot_mean", "ci_low", "ci_high", "share_positive"]),
        ]  # fmt: skip
    return blocks


def _skill(analysis: Analysis) -> Section:
    """The skill ladder (reports/skill.py): pairs, skill and luck, the value of memory, and
    the scripted ranking against search players; a chart only where it has data."""
    t = analysis.tables
    pairs, share, memory = t["skill_pairs"], t["skill_share"], t["memory_value"]
    ranking, agreement = t["skill_ranking"], t["skill_agreement"]
    pair = skill.memory_pair(analysis.strategies, analysis.results.study.get("strategies"))
    charts = [
        Chart(
            partial(figures.skill_pairs, pairs, int(players)),
            f"At {int(players)} players, how often the stronger of each pair finished ahead.",
            f"{int(players)} players: for each pair of strategies that sat at the same tables, "
            "the share of those games in which the stronger one finished ahead of the other "
            "(R22 order; a tie counts one half; a game counts once however many seats each "
            "had); bars: Wilson 95% intervals over n_games; blue: different from 50% after "
            "Holm's correction over the pairs of this player count (score test).",
        )
        for players in sorted(pairs["players"].unique())
    ]
    if not share.empty:
        charts.append(
            Chart(
                partial(figures.skill_share, share),
                "How much of the spread of seat scores the seated strategy explains.",
                "Share of the variance of seat scores explained by the seated strategy (eta "
                "squared: between-strategy over total sum of squares, per player count); bars: "
                f"95% percentile intervals from {int(share['draws'].iloc[0])} bootstrap draws "
                "resampling whole games (seeded). 'without random' leaves the random seats "
                "out. The rest of the spread is luck from a seat's point of view: the deal, "
                "the seat order and the other seats' play.",
            )
        )
    paired = memory[memory["unit"] == "deals"]
    if not paired.empty:
        charts.append(
            Chart(
                partial(figures.memory_value, paired, "win_share difference"),
                "What perfect memory of one's own pile is worth in win share.",
                f"Win share of {pair[0] if pair else skill.PERFECT} minus "
                f"{pair[1] if pair else skill.HUMAN} in the same seat of line-ups that differ "
                "only by that swap, replaying the same deals (pairing = deals): differences "
                "averaged per deal, paired t 95% interval over deals (n in the hover; the "
                "score difference is in memory_value).",
            )
        )
    if not ranking.empty:
        charts.append(
            Chart(
                partial(figures.search_ranking, ranking),
                "Whether the scripted strategies rank alike against scripted and against "
                "search opponents.",
                "Each scripted strategy (random left out): x, the share of its head-to-head "
                "comparisons won against scripted opponents in games without a search player; "
                "y, against the search seats of games with one; each averaged per game, "
                "Wilson 95% intervals over games (n in the hover). Kendall's tau between the "
                "two orders per player count is in skill_agreement.",
            )
        )
    intro = " ".join(
        [
            "From random through the scripted strategies to the search player, per player "
            "count, the game as the unit.",
            skill.pair_sentence(pairs),
            skill.share_summary(share),
            skill.memory_sentence(memory, pair),
            skill.tau_summary(agreement),
        ]
    )
    if ranking.empty:
        intro += " No scripted strategy met both scripted and search opponents: no ranking."
    return Section(
        key="skill",
        title="The skill ladder",
        intro=intro,
        charts=charts,
        tables=[
            Table("skill_pairs", pairs),
            Table("skill_share", share),
            Table("memory_value", memory),
            Table("skill_ranking", ranking),
            Table("skill_agreement", agreement),
        ],
        summary=_skill_summary(t, pair),
    )


def _skill_summary(t: dict[str, pd.DataFrame], pair: tuple[str, str] | None) -> list[Block]:
    """The skill ladder in the summary: every number with its interval and sample size."""
    pairs, share, memory = t["skill_pairs"], t["skill_share"], t["memory_value"]
    ranking, agreement = t["skill_ranking"], t["skill_agreement"]
    blocks: list[Block] = [
        Heading("The skill ladder"),
        Heading("How often the stronger of a pair finishes ahead", 3),
        "Share of the games both sat in that the first finished ahead (R22 order, a tie "
        "one half), Wilson 95% interval over games, score test of 50% with Holm's "
        "correction over the pairs of a player count. " + skill.pair_sentence(pairs),
        Table("skill_pairs", pairs, ["players", "strategy", "opponent", "n_games", "rate",
                                     "ci_low", "ci_high", "p_adjusted"])
        if not pairs.empty else "",
        Heading("How much of the score spread is skill", 3),
        "Share of the variance of seat scores explained by the seated strategy (between over "
        "total sum of squares), 95% interval from a bootstrap over games.",
        *(skill.share_sentence(row) for _, row in share.iterrows()),
        Table("skill_share", share, ["players", "scope", "n_games", "n_strategies", "share",
                                     "ci_low", "ci_high"])
        if not share.empty else "Scores never varied: no share.",
        Heading("The value of memory", 3),
        skill.memory_sentence(memory, pair),
    ]  # fmt: skip
    if not memory.empty:
        blocks.append(
            Table("memory_value", memory, ["players", "measure", "unit", "n", "value", "ci_low",
                                           "ci_high", "p_value"])
        )  # fmt: skip
    blocks.append(Heading("Does the heuristics' ranking hold against search players?", 3))
    if ranking.empty:
        blocks.append("No scripted strategy met both scripted and search opponents.")
    else:
        blocks += [
            "Share of head-to-head comparisons won (per game, Wilson over games) against "
            "scripted opponents and against the search seats, random left out; rank 1 = best.",
            Table("skill_ranking", ranking,
                  ["players", "strategy", "rank_scripted", "rate_scripted", "n_games_scripted",
                   "rank_search", "rate_search", "search_ci_low", "search_ci_high",
                   "n_games_search"]),
            *(skill.tau_sentence(row) for _, row in agreement.iterrows()),
        ]  # fmt: skip
    return [block for block in blocks if block]  # no empty paragraph


def _convergence(analysis: Analysis, colours: dict[str, str]) -> Section:
    """How the key estimates settle with the games played (or a sentence, when too few), and
    how many games the next study needs to detect a change of a given size."""
    base = analysis.seats[analysis.seats["variant"] == "base"]
    base = base if len(base) else analysis.seats
    frame = power.key_convergence(base)
    plan = planning.planning(base, analysis.tables["variants"])
    n_games = len(pd.unique(game_ids(base)))
    what = (
        "each strategy's win rate"
        if frame.empty or set(frame["strategy"]) != {"seat 0"}
        else "the first seat's win rate (every seat plays the same strategy)"
    )
    plan_blocks: list[Block] = [
        Heading("How many games does a question need?"),
        planning.planning_sentence(plan),
        Table("planning", plan,
              ["players", "metric", "change", "games_unpaired", "deals_paired", "lineups",
               "family"]),
    ] if len(plan) else []  # fmt: skip
    title = "Have the estimates settled, and how many games does a question need?"
    tables = [Table("planning", plan)] if len(plan) else []
    if n_games < power.MIN_CONVERGENCE_GAMES or frame.empty:
        return Section(
            key="convergence",
            title=title,
            intro=f"Only {n_games:,} games: too few to show how {what} settles with the number "
            f"of games (the figure needs {power.MIN_CONVERGENCE_GAMES} or more). "
            + planning.planning_sentence(plan),
            tables=tables,
            summary=plan_blocks,
        )
    return Section(
        key="convergence",
        title=title,
        intro=f"Cumulative estimate of {what} against the games played at each player count, "
        "in game-index order (the same on every run). Where a line is flat and its band no "
        "longer narrows, more games change little; a band still wide says the study is small "
        "for that question. " + planning.planning_sentence(plan),
        charts=[
            Chart(
                partial(figures.convergence, frame, colours),
                f"How {what} settles as games accumulate.",
                "Cumulative win rate (a game's shared win split) after each number of games "
                "played at that player count, with its Wilson 95% interval over the games it "
                "sat in; dotted line: 1/players. The band narrows as 1/sqrt(games).",
            )
        ],
        tables=[Table("convergence", frame), *tables],
        summary=plan_blocks,
    )
