"""The choice among episodes rankings, cross-validated on two datasets at once, on made-up scores with a known best."""

from __future__ import annotations

from memoria.evaluation.context import DENSE, RANKINGS, Scores, fold_count, folded, ranking_choose


def scores_with(best: str, *, locomo: int = 20, musique: int = 10) -> Scores:
    """`best` gains 0.2 over dense on both datasets, the current default 0.1, the others nothing."""
    scores = Scores()
    for dataset, count in (("locomo", locomo), ("musique", musique)):
        for index in range(count):
            scores.dataset.append(dataset)
            scores.labels.append(dataset)
            base = 0.3 + 0.01 * (index % 7)
            scores.add(scores.rankings, DENSE, base)
            for name in RANKINGS:
                gain = 0.2 if name == best else 0.1 if name == RANKINGS[0] else 0.0
                scores.add(scores.rankings, name, base + gain)
    return scores


def test_the_ranking_with_the_best_gain_on_both_datasets_is_chosen_in_every_fold() -> None:
    choice = ranking_choose(scores_with("hybrid"))
    assert choice.chosen == ("hybrid",) * 5
    assert len(choice.held_out["locomo"]) == 20 and len(choice.held_out["musique"]) == 10


def test_a_tie_keeps_the_current_default() -> None:
    scores = scores_with(RANKINGS[0])
    scores.rankings["hybrid"] = list(scores.rankings[RANKINGS[0]])
    assert set(ranking_choose(scores).chosen) == {RANKINGS[0]}


def test_a_gain_on_one_dataset_only_does_not_outweigh_a_loss_on_the_other() -> None:
    scores = scores_with(RANKINGS[0])
    graph = scores.rankings["episodes_graph_fused"]
    for position, dataset in enumerate(scores.dataset):
        graph[position] = scores.rankings[DENSE][position] + (0.15 if dataset == "musique" else -0.5)
    assert "episodes_graph_fused" not in ranking_choose(scores).chosen


def test_folds_and_intervals() -> None:
    assert fold_count(1) == 0 and fold_count(3) == 3 and fold_count(50) == 5
    found = folded([1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [0.0] * 6)
    assert len(found.folds) == 5 and abs(found.mean - 4 / 6) < 1e-9
    assert found.versus is not None and found.versus.low is not None and found.versus.low > 0
