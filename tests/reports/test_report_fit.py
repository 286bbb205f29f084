"""A report that fits its study: title and description, the sections that answer its question
first, no chart without data, rulings quoted, seat 0 plays first, one strategy order, and what the
simulated players know."""

import re

import pandas as pd
import pytest

from reports import document, figures, rulings, study_kinds
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
    study = {
        "name": "player-counts",
        "seed": 5,
        "players": [2, 3],
        "lineups": [["planner", "planner"], ["planner", "planner", "planner"]],
        "games_per_cell": 30,
        "batch_size": 30,
    }
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
    from sims.study import builtin_description

    study = {**analysis.results.study, "name": "destinations"}
    # the plan of a study named after a built-in one carries that one's description
    info = study_kinds.study_info(study, analysis.seats, builtin_description("destinations"))
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
    cited = rulings.cited_rulings(re.sub(r"<[^>]+>", " ", text))
    assert {6, 9, 20, 21, 22} <= set(cited)
    for number in cited:
        assert f"<strong>R{number}</strong>: " in page, number


def test_cited_rulings_expand_ranges():
    expanded = [9, 15, 16, 18, 19, 20, 21, 22]  # R19's quote cites R15 and R16
    assert rulings.cited_rulings("rounds (R18-R19), R9 and R20-R22") == expanded


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


def test_one_seat_numbering_everywhere_and_counts_are_integers(analysis):
    shown = document.for_people(analysis.tables["seat_advantage"])
    assert shown["seat"].min() == 0  # seat 0 plays first: command line, records, docs, report
    assert str(shown["n_games"].dtype) == "Int64"
    text = markdown(analysis)
    assert "| seat |" in text and "Seat 0 plays first (R6)" in text
    page = render(analysis)
    assert "Seat 1 plays first" not in page and "seat 1 (plays first" not in page.lower()


def test_one_strategy_order_and_palette_for_the_report():
    order = figures.strategy_order(["thief", "random", "big_city", "planner"])
    assert order == ["big_city", "planner", "thief", "random"]
    colours = figures.strategy_colours(order)
    assert colours["random"] == figures.BASELINE_COLOUR and len(set(colours.values())) == 4


def test_every_verdict_on_strategies_and_seats_carries_its_interval_and_family(analysis):
    lines = [
        line for line in headline(analysis) if line.startswith(("At", "Seat order", "Strongest"))
    ]
    judged = [
        line
        for line in lines
        if "**not yet known**" in line or "**different**" in line or "**practically equal**" in line
    ]
    assert judged
    for line in judged:
        assert "interval" in line and ("Bonferroni over" in line or "single comparison" in line)
        if "**not yet known**" in line:
            assert "no evidence of a difference (p = " in line
        assert "not significant" not in line


def test_a_small_study_says_what_would_decide_at_the_margin(same_table):
    lines = headline(same_table)
    seats = [line for line in lines if line.startswith("Seat order")]
    assert seats, lines
    unknown = [line for line in seats if "**not yet known**" in line]
    assert unknown, seats  # 30 games per count cannot settle a 2-point margin
    assert all(re.search(r"about [\d,]+ games would decide at ±2\.0", line) for line in unknown)
    assert all("level 0.05/2" in line for line in unknown)  # Bonferroni over the 2 counts


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
    strength = [i for i, line in enumerate(lines) if line.startswith("Strongest")]
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


def test_every_figure_has_a_one_sentence_caption_and_its_method_apart(analysis, same_table):
    for case in (analysis, same_table):
        for section in build(case).sections:
            for chart in section.charts:
                sentences = re.findall(r"[.!?](?:\s|$)", chart.caption)
                assert len(sentences) == 1, chart.caption
                assert chart.method, chart.caption  # how it is computed, folded on the page


def test_the_summary_opens_the_page_and_stays_under_150_words(analysis, same_table):
    from reports import answers

    for case in (analysis, same_table):
        report = build(case)
        assert report.summary.words() <= answers.MAX_WORDS
        page = render(case)
        body = page.split("<body>", 1)[1]
        assert body.index("id='summary'") < body.index("<h2 id=")  # before every section
        assert body.index("id='summary'") < body.index("Findings in full")
        for answer in report.summary.answers:
            assert f"<a href='#{answer.key}'>" in page and f"<h2 id='{answer.key}'>" in page


def test_a_count_that_is_never_reached_stays_a_float_and_shows():
    """Games needed to decide can be infinite on a tiny study (2 games): shown, not a crash."""
    frame = pd.DataFrame({"needed": [12.0, float("inf"), None], "n": [3.0, 4.0, 5.0]})
    shown = document.for_people(frame)
    assert str(shown["n"].dtype) == "Int64"
    assert shown["needed"].dtype == float and shown["needed"].iloc[1] == float("inf")
