"""The HTML writer of the report model (reports/sections.py): one self-contained page,
plotly.js inlined once, every table downloadable as CSV (a data link, so it works offline),
the method and sample size under each figure.

This is the only module of the reports package that writes a file.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path

import pandas as pd
from plotly.offline import get_plotlyjs

from sims.errors import ResultsError
from sims.files import write_atomic

from . import answers
from .analysis import Analysis
from .document import Report, StudyFacts, for_people
from .numbers import INTERVAL_NOTE, shown
from .rulings import quoted_rulings
from .sections import build

STYLE = """
.partial{background:#fff3cd;padding:.5em 1em;border-radius:4px}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:0 auto;padding:.6em 2em;color:#222;line-height:1.45}
h1{margin:.2em 0 .1em;font-size:1.7em}.subtitle{font-size:1.05em;color:#444;margin-top:0}
h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
#summary{background:#f5f8ff;border-left:4px solid #3b6fd8;padding:.2em 1.2em .6em;margin:.6em 0}
#summary h2{border:0;margin:.3em 0 .2em;font-size:1.3em}
#summary .question{font-weight:600;margin:.2em 0 .5em}
table.answers{border-collapse:collapse;font-size:.95em}
table.answers th,table.answers td{padding:3px 12px 3px 0;text-align:left;vertical-align:top}
table.answers thead th{border-bottom:1px solid #bbb;color:#444}
.light{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:.35em;
vertical-align:-.05em;border:1px solid rgba(0,0,0,.25)}
.light.green{background:#2e9d49}.light.amber{background:#f0a500}.light.red{background:#d33}
.legend{color:#555;font-size:.85em;margin:.5em 0 0}
nav.toc{font-size:.9em;margin:.4em 0 1em;color:#444}nav.toc a{margin-right:.9em}
.findings li{margin:.2em 0}
.caption{color:#333;font-size:.95em;margin:.2em 0 .2em}
.method{color:#555;font-size:.88em}
table.data{border-collapse:collapse;font-size:.85em;margin:.5em 0}
table.data td,table.data th{border:1px solid #ddd;padding:2px 6px;text-align:right;
white-space:nowrap}
details>table.data{display:block;overflow-x:auto;max-width:100%}
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


def inline_markdown(text: str) -> str:
    """The findings' Markdown emphasis (**bold**, `code`) as HTML, after escaping."""
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(text))
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def _csv_link(name: str, frame: pd.DataFrame) -> str:
    data = urllib.parse.quote(frame.to_csv(index=False))
    return (
        f'<a download="{html.escape(name)}.csv" href="data:text/csv;charset=utf-8,{data}">'
        f"download {html.escape(name)}.csv</a>"
    )


def _table(name: str, frame: pd.DataFrame, columns: list[str] | None = None) -> str:
    """A table folded under its name: the first 60 rows as a reader sees them
    (reports/numbers.py), the CSV download with every number as computed."""
    data = for_people(frame if columns is None else frame[columns])  # counts as integers
    cells = shown(frame.head(60), name, columns).to_html(index=False, classes="data", border=0)
    more = f" (first 60 of {len(frame)} rows)" if len(frame) > 60 else ""
    return (
        f"<details><summary>Table {html.escape(name)}{more}: {_csv_link(name, data)}</summary>"
        f"{cells}</details>"
    )


def render(analysis: Analysis) -> str:
    """The whole page of an analysis as one string."""
    return page(build(analysis))


def summary_html(summary: answers.Summary) -> str:
    """The answers at the top: the question, a row per answer (linked to its section), a
    cell per player count with its traffic light, and the legend."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in summary.columns)
    rows = []
    for answer in summary.answers:
        cells = []
        for column in summary.columns:
            cell = answer.cells.get(column)
            if cell is None:
                cells.append("<td>-</td>")
                continue
            light = (
                f"<span class='light {cell.light}' title='{summary.lights[cell.light]}'></span>"
                if cell.light
                else ""
            )
            cells.append(f"<td>{light}{html.escape(cell.text)}</td>")
        rows.append(
            f"<tr><th><a href='#{answer.key}'>{html.escape(answer.label)}</a></th>"
            + "".join(cells)
            + "</tr>"
        )
    legend = " ".join(
        f"<span class='light {light}'></span>{html.escape(words)}"
        for light, words in summary.lights.items()
    )
    return (
        "<section id='summary'><h2>Summary</h2>"
        f"<p class='question'>{html.escape(summary.question)}</p>"
        f"<table class='answers'><thead><tr><th></th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class='legend'>{legend}. {html.escape(summary.note)}</p></section>"
    )


def _chart(chart, number: int) -> str:
    """A figure: its lead paragraph, the figure, its one-sentence caption, its method folded."""
    lead = f"<p>{inline_markdown(chart.lead)}</p>" if chart.lead else ""
    figure = chart.figure.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=f"figure-{number}",
        config={"displaylogo": False},
    )
    method = (
        f"<details class='method'><summary>How it is computed</summary>"
        f"<p>{html.escape(chart.method)}</p></details>"
        if chart.method
        else ""
    )
    return f"{lead}{figure}<p class='caption'>{html.escape(chart.caption)}</p>{method}"


def page(report: Report) -> str:
    """The whole page of a report as one string: the summary first, then the contents, the
    study and the findings in full (folded), every section, the method and the rulings."""
    findings = "".join(f"<li>{inline_markdown(line)}</li>" for line in report.findings)
    body = []
    number = 0
    sections = report.page_sections
    for section in sections:
        body.append(
            f"<h2 id='{html.escape(section.key)}'>{html.escape(section.title)}</h2>"
            f"<p>{html.escape(section.intro)}</p>"
        )
        for chart in section.charts:
            number += 1
            body.append(_chart(chart, number))
        for table in section.tables:
            body.append(_table(table.name, table.frame, table.columns))
    partial = (
        f"<p class='partial'>{html.escape(report.partial_note)}</p>" if report.partial_note else ""
    )
    toc = (
        "<nav class='toc'><strong>Contents:</strong> "
        + "".join(f"<a href='#{html.escape(s.key)}'>{html.escape(s.title)}</a>" for s in sections)
        + "<a href='#findings'>Findings in full</a><a href='#method'>Method and data</a></nav>"
    )
    described = f"{report.title}: {report.description}" if report.description else report.title
    about = _about(report)
    details = (
        f"<details id='findings'><summary>Findings in full ({len(report.findings)} "
        "sentences, each with its test)</summary>"
        f"<ul class='findings'>{findings}</ul></details>"
    )
    content = partial + summary_html(report.summary) + toc + about + details + "".join(body)
    content += _method(report.facts)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(described)}</title><style>{STYLE}</style>"
        f"<script>{ERROR_HOOK}</script>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
        f"<h1>{html.escape(report.title)}</h1>"
        + (
            f"<p class='subtitle'>{html.escape(_first_sentence(report.description))}</p>"
            if report.description
            else ""
        )
        + "<div id='report-errors'></div>"
        + content
        + _rulings(_visible_text(content))
        + "</body></html>"
    )


def _first_sentence(text: str) -> str:
    """A description's first sentence (the whole one is under 'About this study')."""
    head, dot, _ = text.partition(". ")
    return head + (dot.strip() if dot else "")


def _method(facts: StudyFacts) -> str:
    """How the study was run and analysed."""
    return (
        f"<h2 id='method'>Method and data</h2><p>Study <code>{html.escape(facts.name)}</code>: "
        f"{facts.games:,} games ({facts.failures} failed), players "
        f"{', '.join(str(p) for p in facts.players)}, rotation "
        f"{html.escape(facts.rotation)}, root seed {facts.seed}, variants "
        f"{html.escape(', '.join(facts.variants))}"
        + (f", sweeps {html.escape(', '.join(facts.sweeps))}" if facts.sweeps else "")
        + f"; {facts.pairing} Every "
        "game is a pure function of rules, strategies and its seed, drawn from the root seed "
        "with numpy SeedSequence. "
        "The game is the unit: rates are over games (Wilson 95% intervals), means of seat "
        "rows have intervals clustered by game, seat tests are blocked by game, and every "
        "pairwise comparison is a test of the difference itself over a stated family. Each "
        "comparison's verdict is its family's Bonferroni-corrected interval against a "
        "practical margin (the p_adjusted beside it is Bonferroni-adjusted over the same "
        "family, below the level exactly when that interval excludes 0; p_holm and the "
        "head-to-head and seat tests are Holm-adjusted): different (the test rejects no "
        "difference), practically equal (the "
        "equivalence test, TOST at 5%, puts it inside the margin) or not yet known, with the "
        "games needed to decide (docs/statistics.md). "
        + html.escape(INTERVAL_NOTE.replace("`", ""))
        + " Win shares and other shares of games are percentages, changes of them percentage "
        "points (pts). The headline strategy and seat "
        "statistics use the base rules, per player count; each variant's own are in its "
        "section.</p>"
    )


def _about(report: Report) -> str:
    """The study's question, its description, its strategies (from their intent) and what
    the players know, folded under the summary."""
    items = "".join(
        f"<li><code>{html.escape(name)}</code>: {html.escape(text)}</li>"
        for name, text in report.intents.items()
    )
    return (
        "<details id='about'><summary>About this study: its question, strategies and what the "
        "simulated players know</summary>"
        f"<p><strong>Question:</strong> {html.escape(report.question)}</p>"
        + (f"<p>{html.escape(report.description)}</p>" if report.description else "")
        + f"<p>Strategies (what each one tries to do):</p><ul>{items}</ul>"
        f"<p class='caption'>{html.escape(report.knowledge)}</p></details>"
    )


def _rulings(text: str) -> str:
    """Every ruling the page cites, quoted from the rules digest (docs/rules/rulings.md)."""
    cited = quoted_rulings(text)
    if not cited:
        return ""
    items = "".join(f"<li><strong>R{n}</strong>: {html.escape(quote)}</li>" for n, quote in cited)
    return (
        "<h2>Rulings cited</h2><p>From the project's rules digest (docs/rules/rulings.md):</p>"
        f"<ul>{items}</ul>"
    )


def _visible_text(page: str) -> str:
    """The page's words without scripts and tags: what a reader sees (for the citations)."""
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    page = re.sub(r"<div id=\"figure-.*?</div>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def write(text: str, path: Path) -> None:
    """Write atomically: a failed report never leaves a half-written file behind."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    except OSError as exc:
        raise ResultsError(f"{path}: cannot write the report: {exc.strerror or exc}") from None
