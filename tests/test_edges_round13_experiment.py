"""Issue 40, edge round 13 (13A): keys of an experiment file that the rest of the file leaves without effect, refused
when the file is read, as their siblings already were; and what a run stopped by an error leaves, said."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused

from clirkit.experiment import Experiment

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n{top}[systems.DT]\nkind = "dt"\n{more}'


def _read(tmp_path, text: str) -> Experiment:
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return Experiment.read(path)


# --------------------------------------------------------------------------- 13A-10: [table] iterations


@pytest.mark.parametrize(
    "more, why",
    [
        ('table = "dict.tsv"\n', "the table files are read"),
        ('[systems.B]\nkind = "bm25"\n', None),  # DT trains IBM Model 1: accepted
    ],
)
def test_table_iterations_are_refused_when_every_system_reads_its_own_table_file(mini, tmp_path, capsys, more, why):
    # [table] file = ... with iterations was refused; a system's own table = FILE let iterations through unused
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    text = _ONE.format(mini=mini, top="[table]\niterations = 3\n", more=more)
    if why is None:
        assert _read(tmp_path, text).table["iterations"] == 3
        return
    _refused(
        tmp_path,
        capsys,
        text,
        "[table]: iterations applies to IBM Model 1 trained on the parallel corpus, and no system trains it "
        f"({why}): remove iterations",
    )


def test_table_iterations_are_refused_when_no_system_translates_with_a_table(mini, tmp_path, capsys):
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[table]\niterations = 3\n[systems.B]\nkind = "bm25"\n'
    _refused(
        tmp_path,
        capsys,
        text,
        "[table]: iterations applies to IBM Model 1 trained on the parallel corpus, and no system trains it "
        "(no system translates with a table): remove iterations",
    )


@pytest.mark.parametrize(
    "system",
    [
        '[systems.P]\nkind = "psq"\ntable = "dict.tsv"\ntable2 = "ibm1"\n',
        '[systems.P]\nkind = "docpsq"\n',
        '[systems.P]\nkind = "psq"\n',
    ],
)
def test_table_iterations_are_accepted_when_a_system_trains_ibm1_beside_own_table_files(mini, tmp_path, system):
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    text = _ONE.format(mini=mini, top="[table]\niterations = 3\n", more='table = "dict.tsv"\n' + system)
    assert _read(tmp_path, text).table["iterations"] == 3
