"""Cross-validation and the paired bootstrap on inputs small enough to work out by hand."""

from __future__ import annotations

import pytest

from memoria.evaluation.crossval import cross_validate, fold_indexes, fold_means, paired_bootstrap


def test_folds_cover_every_question_once_and_repeat_with_the_seed() -> None:
    folds = fold_indexes(7, folds=3, seed=5)
    assert sorted(len(fold) for fold in folds) == [2, 2, 3]  # 7 = 3 + 2 + 2
    assert sorted(position for fold in folds for position in fold) == list(range(7))
    assert all(fold == sorted(fold) for fold in folds)
    assert fold_indexes(7, folds=3, seed=5) == folds
    assert fold_indexes(40, seed=1) != fold_indexes(40, seed=2)
    assert len(fold_indexes(50)) == 5 and {len(fold) for fold in fold_indexes(50)} == {10}


def test_too_few_questions_or_folds() -> None:
    with pytest.raises(ValueError, match="3 question"):
        fold_indexes(3, folds=5)
    with pytest.raises(ValueError, match="at least 2 folds"):
        fold_indexes(10, folds=1)


def test_fold_means() -> None:
    assert fold_means([1, 0, 1, 0], [[0, 1], [2, 3]]) == [0.5, 0.5]
    assert fold_means([1, 0, 1, 0], [[0, 2], [1, 3]]) == [1.0, 0.0]


def test_a_setting_that_only_fits_its_training_folds_scores_nothing_held_out() -> None:
    """Setting x is perfect on fold 1's questions and useless on fold 2's, y the reverse. Both average 0.5 over
    all questions, which is what choosing on all of them would report. Held out, fold 1 is scored with the setting
    that won fold 2 (y), which gets 0 there, and the other way round: cross-validation reports 0."""
    first, _ = fold_indexes(4, folds=2)
    x = [1.0 if position in first else 0.0 for position in range(4)]
    y = [1.0 - score for score in x]
    found = cross_validate({"x": x, "y": y}, folds=2)
    assert [(fold.fold, fold.chosen, fold.train, fold.test, fold.questions) for fold in found.folds] == [
        (1, "y", 1.0, 0.0, 2),
        (2, "x", 1.0, 0.0, 2),
    ]
    assert found.held_out == (0.0, 0.0, 0.0, 0.0) and found.mean == 0.0


def test_a_setting_better_everywhere_is_chosen_in_every_fold() -> None:
    plain = [0.5, 0.5, 0.0, 1.0, 0.5, 0.0]
    better = [1.0, 0.5, 0.5, 1.0, 1.0, 0.5]  # ≥ plain on each question
    found = cross_validate({"plain": plain, "better": better}, folds=3)
    assert [fold.chosen for fold in found.folds] == ["better"] * 3
    assert found.held_out == tuple(better) and found.mean == pytest.approx(0.75)


def test_a_tie_keeps_the_setting_listed_first() -> None:
    same = [0.25, 0.75, 0.5, 0.5]
    found = cross_validate({"default": same, "knob": list(same)}, folds=2)
    assert {fold.chosen for fold in found.folds} == {"default"}


def test_unequal_score_lists_are_refused() -> None:
    with pytest.raises(ValueError, match="one score per question"):
        cross_validate({"a": [1.0, 0.0], "b": [1.0]}, folds=2)
    with pytest.raises(ValueError, match="no candidate"):
        cross_validate({}, folds=2)


def test_paired_bootstrap_by_hand() -> None:
    """Differences (1, 0, 0, 0): a resample of 4 holds the 1 j times with j ~ Binomial(4, 1/4), so its mean is
    j/4 with P = .316, .422, .211, .047, .004 for j = 0..4. The 2.5th percentile falls in j = 0 and the 97.5th in
    j = 3 (.949 of the mass is below it, .996 up to it): the interval is [0, 0.75] around a mean of 0.25."""
    found = paired_bootstrap([1.0, 0.5, 0.5, 0.0], [0.0, 0.5, 0.5, 0.0])
    assert (found.mean, found.low, found.high, found.questions) == (0.25, 0.0, 0.75, 4)
    assert not found.excludes_zero
    # (1, -1): resampled means are -1, 0, 1 with P = 1/4, 1/2, 1/4
    swing = paired_bootstrap([1.0, 0.0], [0.0, 1.0])
    assert (swing.mean, swing.low, swing.high) == (0.0, -1.0, 1.0)


def test_paired_bootstrap_edges() -> None:
    constant = paired_bootstrap([0.6] * 5, [0.5] * 5)
    assert constant.mean == pytest.approx(0.1) and constant.low == pytest.approx(0.1) and constant.excludes_zero
    assert paired_bootstrap([0.3] * 3, [0.3] * 3).high == 0.0
    single = paired_bootstrap([1.0], [0.0])
    assert (single.mean, single.low, single.high) == (1.0, None, None) and not single.excludes_zero
    with pytest.raises(ValueError, match="one length"):
        paired_bootstrap([1.0, 0.0], [0.0])
    with pytest.raises(ValueError, match="no questions"):
        paired_bootstrap([], [])
    assert paired_bootstrap([1.0, 0.0, 1.0], [0.0] * 3, seed=1) == paired_bootstrap([1.0, 0.0, 1.0], [0.0] * 3, seed=1)
