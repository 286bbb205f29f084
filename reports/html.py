"""The HTML writer of the report model (reports/sections.py): one self-contained page,
plotly.js inlined once, every table downloadable as CSV (a data link, so it works offline),
the method and sample size under each figure.

This is the only module of the reports package that writes a file.
"""

from __future__ import annotations

import html
import os
import re
import urllib.parse
from pathlib import Path

import pandas as pd
from plotly.offline import get_plotlyjs

from sims.errors import ResultsError

from . import study_kinds
from .analysis import Analysis
from .sections import Report, StudyFacts, build

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


def render(analysis: Analysis) -> str:
    """The whole page of an analysis as one string."""
    return page(build(analysis))


def page(report: Report) -> str:
    """The whole page of a report as one string."""
    findings = "".join(f"<li>{inline_markdown(line)}</li>" for line in report.findings)
    body = []
    first_figure = 0
    for section in report.page_sections:
        body.append(f"<h2>{html.escape(section.title)}</h2><p>{html.escape(section.intro)}</p>")
        for chart in section.charts:
            first_figure += 1
            body.append(
                chart.figure.to_html(
                    full_html=False,
                    include_plotlyjs=False,
                    div_id=f"figure-{first_figure}",
                    config={"displaylogo": False},
                )
            )
            body.append(f'<p class="caption">{html.escape(chart.caption)}</p>')
        for table in section.tables:
            frame = table.frame if table.columns is None else table.frame[table.columns]
            body.append(_table(table.name, frame))
    partial = (
        f"<p class='partial'>{html.escape(report.partial_note)}</p>" if report.partial_note else ""
    )
    method = _method(report.facts)
    described = f"{report.title}: {report.description}" if report.description else report.title
    content = (
        partial
        + f"<div class='findings'><h3>Headline findings</h3><ul>{findings}</ul></div>"
        + "".join(body)
        + method
    )
    about = _about(report)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(described)}</title><style>{STYLE}</style>"
        f"<script>{ERROR_HOOK}</script>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
        f"<h1>{html.escape(report.title)}</h1>"
        + (
            f"<p class='subtitle'>{html.escape(report.description)}</p>"
            if report.description
            else ""
        )
        + "<div id='report-errors'></div>"
        + about
        + content
        + _rulings(_visible_text(about + content))
        + "</body></html>"
    )


def _method(facts: StudyFacts) -> str:
    """How the study was run and analysed."""
    return (
        f"<h2>Method and data</h2><p>Study <code>{html.escape(facts.name)}</code>: "
        f"{facts.games:,} games ({facts.failures} failed), players "
        f"{', '.join(str(p) for p in facts.players)}, rotation "
        f"{html.escape(facts.rotation)}, root seed {facts.seed}, variants "
        f"{html.escape(', '.join(facts.variants))}; {facts.pairing} Every "
        "game is a pure function of rules, strategies and its seed, drawn from the root seed "
        "with numpy SeedSequence. "
        "The game is the unit: rates are over games (Wilson 95% intervals), means of seat "
        "rows have intervals clustered by game, seat tests are blocked by game, and every "
        "pairwise comparison is a test of the difference itself with Holm's correction over "
        "its family (docs/statistics.md). Strategy and seat statistics use the base rules "
        "only, per player count.</p>"
    )


def _about(report: Report) -> str:
    """The study's question, its strategies (from their intent), what the players know."""
    items = "".join(
        f"<li><code>{html.escape(name)}</code>: {html.escape(text)}</li>"
        for name, text in report.intents.items()
    )
    return (
        f"<p><strong>Question:</strong> {html.escape(report.question)}</p>"
        f"<p>Strategies (what each one tries to do):</p><ul>{items}</ul>"
        f"<p class='caption'>{html.escape(report.knowledge)}</p>"
    )


def _rulings(text: str) -> str:
    """Every ruling the page cites, quoted from the rules digest (rulings.md)."""
    cited = study_kinds.quoted_rulings(text)
    if not cited:
        return ""
    items = "".join(f"<li><strong>R{n}</strong>: {html.escape(quote)}</li>" for n, quote in cited)
    return (
        "<h2>Rulings cited</h2><p>From the project's rules digest (rulings.md):</p>"
        f"<ul>{items}</ul>"
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
