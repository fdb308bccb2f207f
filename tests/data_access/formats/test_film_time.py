"""The one film-time formatter (data_access/formats/film_time.py) and the question-type source."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from data_access.formats.film_time import film_clock
from data_access.formats.question_types import ALL_TYPES, ARC_TYPES, BELIEF_STATE_TYPES


@pytest.mark.parametrize(
    "seconds,paper,padded",
    [
        (0, "0:00", "00:00:00"),
        (59.4, "0:59", "00:00:59"),
        (3286, "54:46", "00:54:46"),  # LF-VideoQA Table 9 prints 54:46
        (7883, "2:11:23", "02:11:23"),  # and 2:11:23
        (np.float64(3599.6), "1:00:00", "01:00:00"),
    ],
)
def test_paper_and_padded_styles(seconds, paper, padded):
    assert film_clock(seconds) == paper
    assert film_clock(seconds, padded=True) == padded


@pytest.mark.parametrize("missing", [None, math.nan, np.nan, pd.NA, pd.NaT])
def test_missing_times_print_the_callers_placeholder(missing):
    assert film_clock(missing) == "—"
    assert film_clock(missing, missing="no time") == "no time"


def test_the_eleven_question_types_in_paper_order():
    assert ALL_TYPES == ("Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "N1", "N2", "N3")
    assert ALL_TYPES == BELIEF_STATE_TYPES + ARC_TYPES
