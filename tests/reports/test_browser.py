"""Every built-in study's report (sims/studies/*.toml, at a few games per cell) opened in
headless Chromium: a screenshot of the first screen, the summary inside its first 900 pixels,
no figure left empty and no script error."""

import json
import os
import shutil
import subprocess

import pytest

from sims.study import builtin_studies

WIDTH, HEIGHT = 1280, 900
# games per cell: enough for every table to have rows, few enough for a test
GAMES = {"strategy-ladder": 6, "player-counts": 40, "destinations": 24, "variants": 12, "skill": 2}
PLAYERS = {"skill": [2]}  # the search games cost seconds each: its 2-player cells only

PROBE = """<script>
window.addEventListener('load', function () { setTimeout(function () {
  var out = {figures: []};
  var box = document.getElementById('summary').getBoundingClientRect();
  out.summary_top = box.top + window.scrollY;
  out.summary_bottom = box.bottom + window.scrollY;
  out.errors = document.getElementById('report-errors').textContent;
  document.querySelectorAll('.plotly-graph-div').forEach(function (gd) {
    var points = 0;
    (gd._fullData || []).forEach(function (t) {
      if (t.visible === false) { return; }
      var n = Math.max((t.x || []).length, (t.y || []).length, (t.z || []).length);
      points += n;
    });
    out.figures.push({id: gd.id, points: points, svg: !!gd.querySelector('.main-svg'),
                      traces: gd.querySelectorAll('g.trace, g.hm, .heatmaplayer image').length});
  });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 0); });
</script>"""


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _browse(browser: str, page, profile, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
         f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=20000", *flags,
         page.as_uri()],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip


def _study_params():
    for name in sorted(builtin_studies()):
        marks = [pytest.mark.slow] if name == "skill" else []
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", list(_study_params()))
def test_built_in_study_report_answers_on_the_first_screen(name, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but no Chromium was found")
        pytest.skip("no Chromium on this machine (.ci/run installs it)")
    from reports import answers
    from reports.analysis import analyse
    from reports.html import page, write
    from reports.sections import build
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict, load_study, quick_study

    study = load_study(name)
    if name in PLAYERS:  # its line-ups of those player counts only
        data = dict(study.source, players=PLAYERS[name])
        data["lineups"] = [
            x
            for x in data["lineups"]
            if len(x["seats"] if isinstance(x, dict) else x) in PLAYERS[name]
        ]
        study = from_dict(data, f"{name}.toml")
    study = quick_study(study, games=GAMES[name])
    run(study, workers=1, out=tmp_path / "r", progress=False)
    report = build(analyse(load_results(tmp_path / "r")))
    assert report.summary.words() <= answers.MAX_WORDS
    text = page(report)
    shown = tmp_path / "report.html"
    write(text, shown)
    shot = tmp_path / "first-screen.png"
    _browse(browser, shown, tmp_path / "p1", f"--screenshot={shot}")
    assert shot.exists() and shot.stat().st_size > 10_000  # the first screen, drawn
    probed = tmp_path / "probed.html"
    write(text.replace("</body>", PROBE + "</body>"), probed)
    dom = _browse(browser, probed, tmp_path / "p2", "--dump-dom").stdout
    found = json.loads(dom.split('<pre id="probe">', 1)[1].split("</pre>", 1)[0])
    assert found["errors"].strip() == "", found["errors"]
    assert found["summary_bottom"] <= HEIGHT, found  # the answers on the first screen
    assert found["figures"], "no figure at all"
    for figure in found["figures"]:
        assert figure["svg"] and figure["points"] > 0 and figure["traces"] > 0, figure
