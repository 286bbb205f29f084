"""The self-contained HTML report: plotly.js inlined once, every table downloadable as
CSV (a data link, so it works offline), the method and sample size under each figure.

This is the only module of the reports package that writes a file.
"""

from __future__ import annotations

import html
import os
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from sims.errors import ResultsError

from . import figures, power, skill, study_kinds
from .analysis import Analysis
from .findings import headline

STYLE = """
.partial{background:#fff3cd;padding:.5em 1em;border-radius:4px}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:0 auto;padding:1em 2em;color:#222;line-height:1.45}
h1{margin-bottom:.2em}.subtitle{font-size:1.15em;color:#444;margin-top:0}
h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
.findings{background:#f5f8ff;border-left:4px solid #3b6fd8;padding:.6em 1.2em}
.caption{color:#555;font-size:.92em;margin:.2em 0 1.2em}
table.data{border-collapse:collapse;font-size:.85em;margin:.5em 0}
table.data td,table.data th{border:1px solid #ddd;padding:2px 6px;text-align:right}
details{margin:.4em 0 1.2em}summary{cursor:pointer;color:#3b6fd8}
#report-errors{display:none;background:#fee;border:1px solid #c00;padding:.5em;color:#900}
"""

# Shows any script error to the reader (and to the browser test) instead of a blank chart.
ERROR_HOOK = """
window.addEventListener('error', function (e) {
  var box = document.getElementById('report-errors');
  box.style.display = 'block';
  box.textContent += 'A figure could not be drawn: ' + e.message + '\\n';
});
"""


@dataclass
class Section:
    title: str
    intro: str
    figures: list[tuple[go.Figure, str]]  # (figure, caption: method and sample size)
    tables: list[tuple[str, pd.DataFrame]]
    key: str = ""  # what question it answers: the study decides the order (study_kinds)


def _pairing_text(study: dict) -> str:
    """How the study's games share deals (docs/data.md), in one sentence."""
    pairing = study.get("pairing", "none")
    if pairing == "none":
        return "unpaired (every cell draws its own deals)."
    return (
        f"paired ({pairing}): game i of every variant and line-up of a player count replays "
        "the same deal (common random numbers); variant effects are paired by deal, while "
        "the other intervals cluster by game and so treat the line-ups of one deal as "
        "independent (they may be somewhat too narrow in a paired study)."
    )


def _bold(text: str) -> str:
    """The findings' Markdown emphasis (**bold**, `code`) as HTML, after escaping."""
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(text))
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def _csv_link(name: str, frame: pd.DataFrame) -> str:
    data = urllib.parse.quote(frame.to_csv(index=False))
    return (
        f'<a download="{html.escape(name)}.csv" href="data:text/csv;charset=utf-8,{data}">'
        f"download {html.escape(name)}.csv</a>"
    )


def _table(name: str, frame: pd.DataFrame) -> str:
    frame = study_kinds.for_people(frame)  # seats from 1, counts as integers
    shown = frame.head(60).to_html(
        index=False, classes="data", float_format=lambda x: f"{x:.3g}", na_rep="", border=0
    )
    more = f" (first 60 of {len(frame)} rows)" if len(frame) > 60 else ""
    return (
        f"<details><summary>Table {html.escape(name)}{more}: {_csv_link(name, frame)}</summary>"
        f"{shown}</details>"
    )


def _strongest_section(t: dict[str, pd.DataFrame], tables_rated: int, seat_rows: int) -> Section:
    """Ratings, win rates and head-to-head, each per player count; the pooled rating only
    beside its likelihood-ratio test."""
    figs = []
    if t["ratings"]["strength"].notna().any():
        figs.append(
            (
                figures.ratings(t["ratings"]),
                f"Plackett-Luce strengths per player count, maximum likelihood over "
                f"{tables_rated:,} tables (a strategy seated twice counts as two seats of one "
                "strength); bars: Wald 95% intervals from the observed information. Scale: "
                "log-odds, 0 = mean of the non-random strategies. A strategy that finished "
                "ahead of (or behind) every other one has no finite strength: see its note.",
            )
        )
    alone = t["win_rates"]["note"].str.startswith("the only strategy").all()
    if not alone:
        figs.append(
            (
                figures.win_rates(t["win_rates"]),
                "Win rate = share of its games a strategy won (its seats' win shares summed per "
                "game, a k-way shared win counting 1/k); bars: Wilson 95% intervals over n_games; "
                f"n_games and n_seats in the table ({seat_rows:,} seat rows); games in which a "
                "strategy held every seat are left out (n_alone). Above the field: "
                "against what it would win if the non-random strategies were equally strong, "
                "paired per game, Holm-corrected over the strategies of a player count.",
            )
        )
    for players in sorted(t["head_to_head"]["players"].unique()):
        figs.append(
            (
                figures.head_to_head(t["head_to_head"], int(players)),
                f"{int(players)} players: share of the games both sat in that the row "
                "strategy finished ahead of the column strategy (R22 order; a tie counts one "
                "half; a game counts once however many seats each had); n_games in the hover.",
            )
        )
    tables = [
        ("win_rates", t["win_rates"]),
        ("ratings", t["ratings"]),
        ("pairwise", t["pairwise"]),
        ("head_to_head", t["head_to_head"]),
    ]
    if not t["rating_pooling"].empty:
        tables += [("rating_pooling", t["rating_pooling"]), ("ratings_pooled", t["ratings_pooled"])]
    if not t["lineup_swaps"].empty:  # a paired study: line-ups swapping one strategy
        tables.append(("lineup_swaps", t["lineup_swaps"]))
    intro = (
        "Every seat in this study is the same strategy: there is nothing to compare, so no "
        "rating or win-rate chart is drawn. "
        if alone
        else ""
    )
    return Section(
        "Which strategy is strongest?",
        intro + "Per player count: strength depends on it. Every 'A beats B' is a test of the "
        "difference itself (pairwise: rating differences from the fitted covariance and win "
        "shares paired by game, Holm-corrected per player count and method); a pooled rating "
        "is shown only beside the likelihood-ratio test of pooling (rating_pooling).",
        figs,
        tables,
        "strongest",
    )


def sections(analysis: Analysis) -> list[Section]:
    t = analysis.tables
    seats, games = analysis.seats, analysis.games
    n_games = int((~games["failed"]).sum())
    rated = t["ratings"].dropna(subset=["strength"])
    tables_rated = int(rated.groupby("players")["n_tables"].max().sum()) if len(rated) else 0
    offers = int(t["destinations"]["offered"].sum())
    out = [
        _strongest_section(t, tables_rated, len(seats)),
        Section(
            "Does the seat order matter?",
            "Seat 1 plays first (R6). Seatings are rotated so every strategy sits everywhere.",
            [
                (
                    figures.seat_advantage(t["seat_advantage"]),
                    "Win rate by seat over games (one row per game and seat), Wilson 95% "
                    "intervals; dotted lines: fair share. Equality across seats (seat_tests): "
                    "chi-square of the winning seat, one count per game (equal to Cochran's Q "
                    "over the games' winner indicators); scores blocked by game: Friedman's "
                    "rank test (the sign test at 2 players).",
                )
            ],
            [("seat_advantage", t["seat_advantage"]), ("seat_tests", t["seat_tests"])],
            "seats",
        ),
        Section(
            "How do 2, 3 and 4 players differ?",
            "Length and interaction of a game; at 4 players, how the points split between the "
            "two rounds (R18-R19).",
            [
                (
                    figures.game_length(t["game_length"]),
                    f"Means with Student t 95% intervals over {n_games:,} games; simulated minutes "
                    "come from the SimPy table clock's think-time model.",
                )
            ],
            [("game_length", t["game_length"]), ("round_shares", t["round_shares"])],
            "players",
        ),
        Section(
            "Where do the points come from?",
            "Destination points gained, penalties for destinations not reached (R20) and "
            "big-city bonuses (R21), per strategy.",
            [
                (
                    figures.score_parts(t["score_parts"], int(p)),
                    f"Mean points per seat with 95% intervals clustered by game (CR1, "
                    f"statsmodels); {int(p)} players; n_games and n_seats in score_parts.",
                )
                for p in sorted(t["score_parts"]["players"].unique())
            ],
            [("score_parts", t["score_parts"])],
            "points",
        ),
        Section(
            "Which destination cards are out of line?",
            "For each card and player count: how often kept when offered, how often completed "
            "when kept, and its mean net points when kept (+points if reached, -points if "
            "not), against cards of the same printed points and trains. A card is flagged "
            "only when it is out of line beyond the card-to-card spread.",
            [
                (
                    figures.destination_balance(t["destinations"]),
                    "Mean net points when kept (95% intervals with the game as the unit) against "
                    "the net points expected of a card of its printed points and trains: a "
                    "random-effects regression of completion (logit) on points and trains per "
                    "player count, card-to-card spread by DerSimonian-Laird, each card against "
                    "the fit without it; flagged: Holm-adjusted p < 0.05 over every card and "
                    "player count. Open circles: kept under 20 times, not tested. The table "
                    "gives each flagged card's fair printed value and the cards dominated on "
                    f"paper. {offers:,} offers.",
                )
            ],
            [("destinations", t["destinations"])],
            "destinations",
        ),
        Section(
            "What are the big cities worth?",
            "How often each bonus is won or shared, and how much winning it lifts the win rate.",
            [
                (
                    figures.big_cities(t["big_cities"]),
                    "Win share of seats that won the bonus minus those that did not, 95% "
                    "intervals clustered by game (OLS on the holder flag, CR1 errors); a "
                    "correlation, not a cause (strong seats win bonuses too).",
                )
            ],
            [("big_cities", t["big_cities"])],
            "cities",
        ),
    ]
    if not t["variants"].empty:
        out.append(
            Section(
                "What do the rule variants change?",
                "Each variant against the base game with the same strategies, shown only at "
                "the player counts where the variant changes the rules. In a paired study "
                '(pairing = "deals") variant game i replays base game i: the same train and '
                "destination shuffles at setup, the same line-up and the same seat order.",
                [
                    (
                        figures.variant_effects(t["variants"], m),
                        "Variant minus base, seat metrics averaged per game first. Paired "
                        "studies: per-game differences averaged per deal (line-ups share "
                        "deals), paired t 95% interval over deals; unpaired studies: "
                        "difference of means, Welch 95% interval "
                        "(the table's method column says which). A difference is significant "
                        "when its Benjamini-Hochberg q < 0.05 over all the variant comparisons; "
                        "the detectable column is the smallest difference the study finds with "
                        '80% power at the 5% level, so a non-significant bar means "no '
                        'difference larger than about that", not "no difference".',
                    )
                    for m in ("turns", "mean_score", "first_seat_win_share")
                ],
                [("variants", t["variants"])],
                "variants",
            )
        )
    out.append(designer_section(analysis))
    if "skill_pairs" in t:
        out.append(skill_section(analysis))
    return out


def _convergence_section(analysis: Analysis, colours: dict[str, str]) -> Section:
    """How the key estimates settle with the games played (or a sentence, when too few)."""
    base = analysis.seats[analysis.seats["variant"] == "base"]
    base = base if len(base) else analysis.seats
    frame = power.key_convergence(base)
    n_games = int(base[["cell", "game_index"]].drop_duplicates().shape[0])
    what = (
        "each strategy's win rate"
        if frame.empty or set(frame["strategy"]) != {"seat 1"}
        else "the first seat's win rate (every seat plays the same strategy)"
    )
    if n_games < power.MIN_CONVERGENCE_GAMES or frame.empty:
        return Section(
            "Have the estimates settled?",
            f"Only {n_games:,} games: too few to show how {what} settles with the number of "
            f"games (the figure needs {power.MIN_CONVERGENCE_GAMES} or more).",
            [],
            [],
            "convergence",
        )
    return Section(
        "Have the estimates settled?",
        f"Cumulative estimate of {what} against the games played at each player count, in "
        "game-index order (the same on every run). Where a line is flat and its band no longer "
        "narrows, more games change little; a band still wide says the study is small for "
        "that question.",
        [
            (
                figures.convergence(frame, colours),
                "Cumulative win rate (a game's shared win split) after each number of games "
                "played at that player count, with its Wilson 95% interval over the games it "
                "sat in; dotted line: 1/players. The band narrows as 1/sqrt(games).",
            )
        ],
        [("convergence", frame)],
        "convergence",
    )


def _order_strategies(fig: go.Figure, order: list[str]) -> None:
    """Every axis whose categories are strategies shows them in the report's one order."""
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


def fitted_sections(analysis: Analysis, info: study_kinds.StudyInfo) -> list[Section]:
    """The sections that answer the study's question, first; no chart without data."""
    t = analysis.tables
    order = figures.strategy_order(analysis.strategies)
    out = []
    for section in sections(analysis):
        if section.key == "strongest" and study_kinds.alone_everywhere(analysis.seats):
            continue  # every seat plays one strategy: nothing to rank (said in the findings)
        if section.key == "destinations" and not t["destinations"]["expected"].notna().any():
            section.figures = []
            section.intro += (
                " No card was kept 20 times or more at any player count: too few to fit the "
                "model, so no chart is drawn (the table holds the raw counts)."
            )
        if section.key == "points" and len(order) == 1:
            section.figures = [
                (
                    figures.score_parts_by_count(t["score_parts"]),
                    f"Every seat plays {order[0]}: mean points per seat with 95% intervals "
                    "clustered by game (CR1, statsmodels); n_games and n_seats in score_parts.",
                )
            ]
        for fig, _ in section.figures:
            _order_strategies(fig, order)
        out.append(section)
    out.append(_convergence_section(analysis, figures.strategy_colours(order)))
    return study_kinds.order_sections(out, info.order)


def _about(analysis: Analysis, info: study_kinds.StudyInfo) -> str:
    """The study's question, its strategies (from their intent), what the players know."""
    study = analysis.results.study
    intents = study_kinds.strategy_intents(
        figures.strategy_order(analysis.strategies), study.get("strategies")
    )
    items = "".join(
        f"<li><code>{html.escape(name)}</code>: {html.escape(text)}</li>"
        for name, text in intents.items()
    )
    knows = study_kinds.knowledge_sentence(analysis.seats, study.get("strategies"))
    return (
        f"<p><strong>Question:</strong> {html.escape(info.question)}</p>"
        f"<p>Strategies (what each one tries to do):</p><ul>{items}</ul>"
        f"<p class='caption'>{html.escape(knows)}</p>"
    )


def _rulings(text: str) -> str:
    """Every ruling the page cites, quoted from the rules digest (rulings.md)."""
    cited = [n for n in study_kinds.cited_rulings(text) if n in study_kinds.RULINGS]
    if not cited:
        return ""
    items = "".join(
        f"<li><strong>R{n}</strong>: {html.escape(study_kinds.RULINGS[n])}</li>" for n in cited
    )
    return (
        "<h2>Rulings cited</h2><p>From the project's rules digest (rulings.md):</p>"
        f"<ul>{items}</ul>"
    )


def render(analysis: Analysis, title: str | None = None) -> str:
    """The whole page as one string."""
    study = analysis.results.study
    info = study_kinds.study_info(study, analysis.seats)
    title = title or f"Ticket to Ride: The Card Game - {info.name} study"
    findings = "".join(f"<li>{_bold(line)}</li>" for line in headline(analysis))
    body = []
    first_figure = 0
    for section in fitted_sections(analysis, info):
        body.append(f"<h2>{html.escape(section.title)}</h2><p>{html.escape(section.intro)}</p>")
        for fig, caption in section.figures:
            first_figure += 1
            body.append(
                fig.to_html(
                    full_html=False,
                    include_plotlyjs=False,
                    div_id=f"figure-{first_figure}",
                    config={"displaylogo": False},
                )
            )
            body.append(f'<p class="caption">{html.escape(caption)}</p>')
        for name, frame in section.tables:
            body.append(_table(name, frame))
    partial = (
        f"<p class='partial'>{html.escape(analysis.partial_note)}</p>"
        if analysis.partial_note
        else ""
    )
    games = analysis.games
    method = (
        f"<h2>Method and data</h2><p>Study <code>{html.escape(str(study.get('name')))}</code>: "
        f"{len(games):,} games ({analysis.failures} failed), players "
        f"{', '.join(str(p) for p in study.get('players', []))}, rotation "
        f"{html.escape(str(study.get('rotation')))}, root seed {study.get('seed')}, variants "
        f"{html.escape(', '.join(study.get('variants', {})))}; {_pairing_text(study)} Every "
        "game is a pure function of rules, strategies and its seed, drawn from the root seed "
        "with numpy SeedSequence. "
        "The game is the unit: rates are over games (Wilson 95% intervals), means of seat "
        "rows have intervals clustered by game, seat tests are blocked by game, and every "
        "pairwise comparison is a test of the difference itself with Holm's correction over "
        "its family (docs/statistics.md). Strategy and seat statistics use the base rules "
        "only, per player count.</p>"
    )
    described = f"{title}: {info.description}" if info.description else title
    content = (
        partial
        + f"<div class='findings'><h3>Headline findings</h3><ul>{findings}</ul></div>"
        + "".join(body)
        + method
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(described)}</title><style>{STYLE}</style>"
        f"<script>{ERROR_HOOK}</script>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        + (f"<p class='subtitle'>{html.escape(info.description)}</p>" if info.description else "")
        + "<div id='report-errors'></div>"
        + _about(analysis, info)
        + content
        + _rulings(_visible_text(_about(analysis, info) + content))
        + "</body></html>"
    )


def _visible_text(page: str) -> str:
    """The page's words without scripts and tags: what a reader sees (for the citations)."""
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    page = re.sub(r"<div id=\"figure-.*?</div>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def write(text: str, path: Path) -> None:
    """Write atomically: a failed report never leaves a half-written file behind."""
    temp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise ResultsError(f"{path}: cannot write the report: {exc.strerror or exc}") from None


def designer_section(analysis: Analysis) -> Section:
    """What designers ask (issue 7, item 8): first seat among equals, score margins and
    tie-breaks, each card's contribution to winning, non-transitivity and the meta-game.
    A figure is drawn only when it has data."""
    from .findings import players_know

    t = analysis.tables
    figs = []
    if (t["first_seat"]["n_games"] > 0).any():
        figs.append(
            (
                figures.first_seat_advantage(t["first_seat"]),
                "Tables where every seat holds the same non-random strategy: seat 1 (plays "
                "first, R6) win rate minus the fair share 1/players, one value per game; bars: "
                "Student t 95% intervals over games; the hover gives the smallest advantage "
                "the games could detect (80% power, 5% level).",
            )
        )
    if not t["margin_distribution"].empty:
        figs.append(
            (
                figures.score_margins(t["margin_distribution"]),
                "Winner's score minus the runner-up's, one per game (0: the top score is "
                "shared and R22's tie-break decides). score_margins: mean (Student t), median "
                "(order-statistic interval, scipy quantile_test), tie rate (Wilson), over games.",
            )
        )
    if not t["card_contribution_shown"].empty:
        figs.append(
            (
                figures.card_contribution(t["card_contribution_shown"]),
                "Per card and player count, among the seats that kept it: win rate of those "
                "that completed it minus those that failed it; the 5 largest and 5 smallest "
                "per player count (at least 10 seats of each; all cards in card_contribution). "
                "A card is kept at most once per game, so its seats are independent games: "
                "Newcombe 95% intervals, pooled z-test, Holm over the cards of a player count. "
                "A correlation, not a cause: weak seats fail cards and lose games.",
            )
        )
    if not t["meta_game"].empty:
        figs.append(
            (
                figures.meta_game(t["meta_game"]),
                "The symmetric 2-player zero-sum game whose payoff is P(row strategy finishes "
                "ahead of column strategy) - 0.5 (R22 order, ties one half): its Nash mix by "
                "linear programming (scipy linprog). Bars: mean over "
                f"{int(t['meta_game']['draws'].iloc[0])} game-level bootstrap draws (each "
                "pair's games resampled, seeded), 95% percentile intervals; the equilibrium "
                "need not be unique, so read share_positive in the table.",
            )
        )
    return Section(
        "What designers ask",
        players_know(analysis)
        + " Per player count: the first player's advantage among equal players, how close "
        "games are and how often the tie-break decides, which destination cards go with "
        "winning, whether strategies beat each other in a circle, and which mix of strategies "
        "no opponent can exploit at 2 players.",
        figs,
        [
            ("first_seat", t["first_seat"]),
            ("score_margins", t["score_margins"]),
            ("card_contribution", t["card_contribution"]),
            ("non_transitivity", t["non_transitivity"]),
            ("meta_game", t["meta_game"]),
        ],
    )


def skill_section(analysis: Analysis) -> Section:
    """The skill ladder (reports/skill.py): pairs, skill and luck, the value of memory, and
    the scripted ranking against search players; a figure only where it has data."""
    t = analysis.tables
    pairs, share, memory = t["skill_pairs"], t["skill_share"], t["memory_value"]
    ranking, agreement = t["skill_ranking"], t["skill_agreement"]
    pair = skill.memory_pair(analysis.strategies, analysis.results.study.get("strategies"))
    figs = [
        (
            figures.skill_pairs(pairs, int(players)),
            f"{int(players)} players: for each pair of strategies that sat at the same tables, "
            "the share of those games in which the stronger one finished ahead of the other "
            "(R22 order; a tie counts one half; a game counts once however many seats each "
            "had); bars: Wilson 95% intervals over n_games; blue: different from 50% after "
            "Holm's correction over the pairs of this player count (score test).",
        )
        for players in sorted(pairs["players"].unique())
    ]
    if not share.empty:
        figs.append(
            (
                figures.skill_share(share),
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
        figs.append(
            (
                figures.memory_value(paired, "win_share difference"),
                f"Win share of {pair[0] if pair else skill.PERFECT} minus "
                f"{pair[1] if pair else skill.HUMAN} in the same seat of line-ups that differ "
                "only by that swap, replaying the same deals (pairing = deals): differences "
                "averaged per deal, paired t 95% interval over deals (n in the hover; the "
                "score difference is in memory_value).",
            )
        )
    if not ranking.empty:
        figs.append(
            (
                figures.search_ranking(ranking),
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
        "The skill ladder",
        intro,
        figs,
        [
            ("skill_pairs", pairs),
            ("skill_share", share),
            ("memory_value", memory),
            ("skill_ranking", ranking),
            ("skill_agreement", agreement),
        ],
        "skill",
    )
