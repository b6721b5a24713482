"""The every-translation bag of baselines/languages_reverse_vs_bag.py (English queries, MUSE read from its XX side)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "baselines"))
import languages_reverse_vs_bag as reverse  # noqa: E402  (baselines/ is not a package)


def test_every_translation_of_every_english_word_once_per_word(tmp_path):
    muse = tmp_path / "zh-en.txt"
    muse.write_text("电脑 computer\n计算机 computer\n网络 network\n电脑 PC\n", encoding="utf-8")
    dictionary = reverse.english_to(muse)
    assert dictionary == {"computer": ["电脑", "计算机"], "network": ["网络"], "pc": ["电脑"]}
    queries, coverage = reverse.bag_queries({"q1": "Computer network, computer!", "q2": "nothing"}, dictionary)
    assert queries == {"q1": "电脑 计算机 网络 电脑 计算机"}
    assert coverage == {"found": 3, "of": 4, "no_match": 1}
