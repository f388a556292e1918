"""``barley evaluate --show-errors N``: a page of the N sentences with the most errors, worst first."""

from __future__ import annotations

from barley import cli
from barley.evaluation.attachment import evaluate
from barley.render import errors
from rendered_sentence import SENTENCE


def _sentence(number: int, wrong_labels: int) -> tuple[str, str]:
    gold = SENTENCE.replace("sent_id = s1", f"sent_id = s{number}")
    system = gold
    for label in ["det", "aux", "obl:tmod"][:wrong_labels]:
        system = system.replace(f"\t{label}\t", "\tdep\t", 1)
    return gold, system


def test_the_worst_sentences_come_first_and_correct_ones_never(tmp_path, capsys):
    pairs = [_sentence(k, wrong) for k, wrong in enumerate([1, 0, 3, 2], start=1)]
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text("".join(g for g, _ in pairs), encoding="utf-8")
    system.write_text("".join(s for _, s in pairs), encoding="utf-8")
    assert errors.worst(evaluate(str(gold), str(system)), 10) == [2, 3, 0]
    page = tmp_path / "worst.html"
    assert cli.main(["evaluate", str(gold), str(system), "--show-errors", "2", "--errors-page", str(page)]) == 0
    assert "worst sentences" in capsys.readouterr().err
    text = page.read_text(encoding="utf-8")
    assert text.count("<figure>") == 2
    assert text.index("sent_id = s3") < text.index("sent_id = s4") and "sent_id = s1:" not in text
    assert "3 of 9 scored words wrong" in text and text.count('class="arc wrong-label"') == 5


def test_show_errors_refuses_stdin(tmp_path, capsys):
    assert cli.main(["evaluate", "-", str(tmp_path / "x.conllu"), "--show-errors", "3"]) == 2
    assert "not from stdin" in capsys.readouterr().err
