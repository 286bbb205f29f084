"""A report that fits its study: title and description, the sections that answer its question
first, no chart without data, rulings quoted, seats from 1, one strategy order, and what the
simulated players know."""

import re

import pytest

from reports import figures, study_kinds
from reports.analysis import analyse
from reports.findings import headline
from reports.html import render
from reports.markdown import render as markdown
from reports.sections import build
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict


@pytest.fixture(scope="module")
def same_table(tmp_path_factory):
    """A miniature of the built-in player-counts study: every seat plays planner."""
    study = {"name": "player-counts", "seed": 5, "players": [2, 3],
             "lineups": [["planner", "planner"], ["planner", "planner", "planner"]],
             "games_per_cell": 30, "batch_size": 30}  # fmt: skip
    folder = tmp_path_factory.mktemp("pc") / "r"
    run(from_dict(study, "test"), workers=1, out=folder, progress=False)
    return analyse(load_results(folder))


def fitted_sections(analysis, info):
    """The sections the page shows, in the order ``info`` gives them."""
    return build(analysis, info).page_sections


def _figure_titles(analysis, info):
    return [c.figure.layout.title.text for s in fitted_sections(analysis, info) for c in s.charts]


def test_title_names_a_built_in_study_and_its_description(same_table):
    page = render(same_table)
    assert "<title>Ticket to Ride: The Card Game - player-counts study: The same strong" in page
    assert "how the game changes with the count." in page
    assert "Question:</strong> How does the game change" in page


def test_player_counts_study_has_no_strategy_chart_and_no_empty_chart(same_table):
    info = study_kinds.study_info(same_table.results.study, same_table.seats)
    sections = fitted_sections(same_table, info)
    assert sections[0].key == "players"  # its question first
    assert "strongest" not in [s.key for s in sections]
    titles = _figure_titles(same_table, info)
    assert not any(re.search("rating|Win rate by strategy|Head to head", t) for t in titles)
    assert "Score parts by player count" in titles  # one chart, not one bar per count
    for section in sections:
        for chart in section.charts:
            traces = chart.figure.data
            assert any(len(list(trace.x if trace.x is not None else [])) for trace in traces)


def test_destinations_study_puts_the_cards_first(analysis):
    study = {**analysis.results.study, "name": "destinations"}
    info = study_kinds.study_info(study, analysis.seats)
    assert info.description.startswith("Card balance")
    assert fitted_sections(analysis, info)[0].key == "destinations"


def test_no_destination_chart_from_zero_fitted_cards(analysis):
    info = study_kinds.study_info(analysis.results.study, analysis.seats)
    cards = next(s for s in fitted_sections(analysis, info) if s.key == "destinations")
    if not analysis.tables["destinations"]["expected"].notna().any():
        assert cards.charts == [] and "no chart is drawn" in cards.intro


def test_every_cited_ruling_is_quoted(analysis):
    page = render(analysis)
    text = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    cited = study_kinds.cited_rulings(re.sub(r"<[^>]+>", " ", text))
    assert {6, 9, 20, 21, 22} <= set(cited)
    for number in cited:
        assert f"<strong>R{number}</strong>: " in page, number


def test_cited_rulings_expand_ranges():
    assert study_kinds.cited_rulings("rounds (R18-R19), R9 and R20-R22") == [
        9,
        15,
        16,
        18,
        19,
        20,
        21,
        22,
    ]  # fmt: skip  (R19's quote cites R15 and R16)


def test_report_says_what_the_players_know(analysis):
    sentence = study_kinds.knowledge_sentence(analysis.seats)
    assert "perfect recall" in sentence and "(R9)" in sentence
    assert "restent cachées de tous, y compris du joueur qui les a mises en circulation" in sentence
    assert re.search(r"completed \d+% at 2 players", sentence)
    page = render(analysis)
    assert "restent cach" in page and "perfect recall" in page
    assert "restent cach" in markdown(analysis)


def test_strategies_are_described_from_their_intent(analysis):
    page = render(analysis)
    assert "Chooses uniformly among the legal actions: the baseline." in page  # random.intent


def test_seats_count_from_one_and_counts_are_integers(analysis):
    shown = study_kinds.for_people(analysis.tables["seat_advantage"])
    assert shown["seat"].min() == 1
    assert str(shown["n_games"].dtype) == "Int64"
    assert "| seat |" in markdown(analysis)


def test_one_strategy_order_and_palette_for_the_report():
    order = figures.strategy_order(["thief", "random", "big_city", "planner"])
    assert order == ["big_city", "planner", "thief", "random"]
    colours = figures.strategy_colours(order)
    assert colours["random"] == figures.BASELINE_COLOUR and len(set(colours.values())) == 4


def test_every_headline_on_strategies_and_seats_carries_n_and_its_power(analysis):
    lines = [line for line in headline(analysis) if line.startswith(("At", "Seat order"))]
    for line in lines:
        record = "won every game" in line or "won no game" in line  # no test, said in words
        if ("wins" in line and "field" in line and not record) or line.startswith("Seat order"):
            assert "n=" in line and "at 80% power" in line, line


def test_a_small_study_says_it_is_too_small_with_the_games_needed(same_table):
    lines = headline(same_table)
    small = [line for line in lines if "too few games" in line]
    assert small, lines
    assert any(re.search(r"About [\d,]+ games would detect", line) for line in small)


def test_convergence_skipped_with_a_sentence_below_50_games(analysis, same_table):
    info = study_kinds.study_info(analysis.results.study, analysis.seats)
    conv = next(s for s in fitted_sections(analysis, info) if s.key == "convergence")
    assert conv.charts == [] and "too few" in conv.intro  # 48 base games
    info = study_kinds.study_info(same_table.results.study, same_table.seats)
    conv = next(s for s in fitted_sections(same_table, info) if s.key == "convergence")
    assert len(conv.charts) == 1 and "first seat" in conv.intro  # 60 games


def test_headline_answers_the_study_question_first(analysis):
    from dataclasses import replace

    results = replace(analysis.results, study={**analysis.results.study, "name": "destinations"})
    lines = headline(replace(analysis, results=results))
    cards = [i for i, line in enumerate(lines) if "card" in line and "destination" in line]
    strength = [i for i, line in enumerate(lines) if line.startswith("Strongest strategy")]
    assert cards and (not strength or max(cards) < min(strength))


def test_the_knowledge_statement_names_forgetful_and_searching_seats(analysis):
    """A seat with human memory is not said to have perfect recall; its games are left out of
    the perfect-recall completion rate; a search seat is said to remember the history."""
    seats = analysis.seats.copy()
    labels = sorted(seats["strategy"].unique())
    forgetful, searcher = labels[0], labels[1]
    specs = {
        forgetful: {"base": "planner", "knobs": {"memory": "human", "recall": 0.5}},
        searcher: {"base": "ismcts", "knobs": {"iterations": 16}},
    }
    sentence = study_kinds.knowledge_sentence(seats, specs)
    assert f"all but {forgetful} have perfect recall" in sentence
    assert "recalled with probability 0.5" in sentence
    assert f"{searcher} also remembers the game's public history" in sentence
    recall_only = seats[seats["strategy"] != forgetful]
    for players, rate in study_kinds.completion_rates(recall_only).items():
        assert f"{100 * rate:.0f}% at {players} players" in sentence
    plain = study_kinds.knowledge_sentence(seats)
    assert "every seat has perfect recall" in plain and "public history" not in plain
