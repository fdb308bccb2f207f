"""`storyscope film video FILM VIDEO`: a video registered after ingest reaches the pages; a wrong
film or an unreadable file is refused with the reason and leaves the store as it was."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.queries import film_view
from data_access.store import Store
from pipelines.cli import app, load_commands
from tests.support.app_fixture_data import FILM
from tests.support.app_fixtures import build_app_fixture
from tests.support.numbered_video import FPS, numbered_video


@pytest.fixture
def fixture_store(store_path) -> Store:
    store = Store(store_path, lock_timeout=10)
    build_app_fixture(store)
    return store


def _film_video(store: Store, film_id: str) -> tuple:
    header = film_view.film_header(store, film_id)
    fps = header["fps"]
    return header["video_path"], None if pd.isna(fps) else fps


def _invoke(*args: str):
    load_commands()
    return CliRunner().invoke(app, ["film", "video", *args])


def test_registers_path_and_frame_rate(fixture_store, store_path, tmp_path):
    video = numbered_video(tmp_path / "film.avi")
    result = _invoke(FILM, video, "--store", str(store_path))
    assert result.exit_code == 0, result.output
    assert f"{FPS} fps" in result.output and "0.1 min" in result.output  # 6 s
    path, fps = _film_video(fixture_store, FILM)
    assert path == str((tmp_path / "film.avi").resolve()) and fps == pytest.approx(FPS)


@pytest.mark.parametrize("problem", ["unknown film", "missing file", "not a video"])
def test_refuses_with_the_reason_and_writes_nothing(fixture_store, store_path, tmp_path, problem):
    before = _film_video(fixture_store, FILM)
    film, video = FILM, tmp_path / "film.avi"
    if problem == "unknown film":
        film = "no-such-film"
        numbered_video(video)
    elif problem == "not a video":
        video.write_text("these are not frames")
    result = _invoke(film, str(video), "--store", str(store_path))
    assert result.exit_code != 0
    assert "nothing was written" in result.output
    expected = {"unknown film": "no-such-film", "missing file": "no such video"}
    assert expected.get(problem, str(video)) in result.output
    assert _film_video(fixture_store, FILM) == before
