from pathlib import Path

import pytest

from cardgame import DataError, default_catalogue, load_catalogue
from cardgame.cards import COLOURS

DATA = Path(__file__).parents[1] / "cardgame" / "data"


def test_r1_catalogue_has_46_destinations_and_6_big_cities():
    catalogue = default_catalogue()
    assert len(catalogue.destinations) == 46
    assert len({d.id for d in catalogue.destinations}) == 46
    assert catalogue.big_city_names == (
        "Seattle",
        "Los Angeles",
        "Chicago",
        "Dallas",
        "New York",
        "Miami",
    )


def test_r2_destination_needs_a_colour_multiset():
    la_pittsburgh = default_catalogue().destination(39)
    assert (la_pittsburgh.city_a, la_pittsburgh.city_b) == ("Los Angeles", "Pittsburgh")
    assert la_pittsburgh.points == 18
    need = dict(zip(COLOURS, la_pittsburgh.need, strict=True))
    assert need["white"] == 1 and need["blue"] == 2 and need["purple"] == 1
    assert sum(la_pittsburgh.need) == 4


def test_catalogue_matches_sources_consistency_checks():
    catalogue = default_catalogue()
    circles = [c for d in catalogue.destinations for c in d.colours]
    assert len(circles) == 132
    assert sum(d.points for d in catalogue.destinations) == 581


def _copy_with(tmp_path: Path, destinations: str) -> Path:
    (tmp_path / "big_cities.csv").write_text((DATA / "big_cities.csv").read_text())
    (tmp_path / "destinations.csv").write_text(destinations)
    return tmp_path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("yellow-green", "yellow-teal", 1), "line 4: unknown colour 'teal'"),
        (
            lambda t: t.replace(",6,yellow-green", ",-6,yellow-green", 1),
            "line 4: points must be > 0",
        ),
        (lambda t: t.replace("\n3,Chicago", "\n2,Chicago", 1), "line 4: duplicate id 2"),
        (lambda t: t.rsplit("\n", 2)[0] + "\n", "expected 46 destinations, found 45"),
        (
            lambda t: t.replace("Chicago,Dallas", "Boston,Dallas", 1).replace(
                "3,Boston,Dallas", "3,Boston,Denver", 1
            ),
            "line 4: names no big city",
        ),
    ],
)
def test_broken_data_file_names_file_line_and_problem(tmp_path, edit, message):
    text = edit((DATA / "destinations.csv").read_text())
    folder = _copy_with(tmp_path, text)
    with pytest.raises(DataError, match=message) as info:
        load_catalogue(folder)
    assert "destinations.csv" in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_data_file_is_one_clear_error(tmp_path):
    with pytest.raises(DataError, match="big_cities.csv: cannot read"):
        load_catalogue(tmp_path)
