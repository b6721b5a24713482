"""The `clirkit` command itself: the verb list, the light top-level help, one language vocabulary."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clirkit.cli import VERBS, main


def test_top_level_help_lists_every_verb_without_importing_numpy():
    code = (
        "import sys\nfrom clirkit.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('NUMPY', 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("NUMPY False")
    for verb in VERBS:
        assert f"    {verb}" in out


@pytest.mark.parametrize("verb", list(VERBS))
def test_every_verb_has_help_without_none_defaults(verb, capsys):
    with pytest.raises(SystemExit) as done:
        main([verb, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "(default: None)" not in text and "SPEC" not in text


def test_an_unknown_language_code_is_refused_by_the_option(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(
            [
                "ttable",
                "train",
                "--source",
                "a",
                "--target",
                "b",
                "--source-lang",
                "english",
                "--target-lang",
                "es",
                "-o",
                str(tmp_path / "t.npz"),
            ]
        )
    assert done.value.code == 2
    assert "'english' is not an ISO 639-1 language code" in capsys.readouterr().err


def test_ttable_train_twice_gives_byte_identical_tables(tmp_path):
    (tmp_path / "en.txt").write_text(
        "in the beginning god created\nand god said let there be light\n", encoding="utf-8"
    )
    (tmp_path / "es.txt").write_text("en el principio crió dios\ny dijo dios sea la luz\n", encoding="utf-8")
    for name in ("a.npz", "b.npz"):
        assert (
            main(
                [
                    "ttable",
                    "train",
                    "--source",
                    str(tmp_path / "en.txt"),
                    "--target",
                    str(tmp_path / "es.txt"),
                    "--source-lang",
                    "en",
                    "--target-lang",
                    "es",
                    "-o",
                    str(tmp_path / name),
                    "-q",
                ]
            )
            == 0
        )
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_an_interrupt_is_one_line_and_status_130(monkeypatch, capsys):
    import clirkit.cli as cli

    def interrupted(argv=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["index", "--help"]) == 130
    assert capsys.readouterr().err == "clirkit: interrupted\n"


# the console script pip writes for `clirkit = "clirkit.cli:main"`, run from a file named clirkit as it is; its
# first line says when `import clirkit` is done (the earliest code of clirkit's a Ctrl-C can meet)
_CONSOLE_SCRIPT = """import re
import sys
import clirkit
print("imported", flush=True)
{between}
from clirkit.cli import main
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\\\.pyw|\\\\.exe)?$", "", sys.argv[0])
    sys.exit(main())
"""


def _interrupt(tmp_path, delay: float, between: str = "") -> tuple[int, str]:
    import signal
    import time

    script = tmp_path / "clirkit"
    script.write_text(_CONSOLE_SCRIPT.format(between=between), encoding="utf-8")
    # enough documents that the command is still indexing when the last delay is over, on a fast machine too
    lines = (f"d{i}\tel principio {i} la luz {i % 977} de la tierra {i % 313}\n" for i in range(60_000))
    (tmp_path / "docs.tsv").write_text("".join(lines), encoding="utf-8")
    child = subprocess.Popen(
        [
            sys.executable,
            str(script),
            "index",
            str(tmp_path / "docs.tsv"),
            "-o",
            str(tmp_path / "ix.npz"),
            "--lang",
            "es",
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline() == "imported\n"
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    return child.returncode, err


@pytest.mark.parametrize("delay", [0, 0.001, 0.003, 0.006, 0.01, 0.015, 0.02, 0.04, 0.08])
def test_a_ctrl_c_while_the_command_starts_is_one_line_and_status_130(tmp_path, delay):
    assert _interrupt(tmp_path, delay) == (130, "clirkit: interrupted\n")
    assert not (tmp_path / "ix.npz").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["clirkit", "docs.tsv"]


def test_a_ctrl_c_during_the_imports_before_main_is_one_line_and_status_130(tmp_path):
    # deterministic: the signal lands right after `import clirkit`, while the command imports its modules
    assert _interrupt(tmp_path, 0, "import signal\nsignal.raise_signal(signal.SIGINT)\nimport argparse, json") == (
        130,
        "clirkit: interrupted\n",
    )


def test_a_ctrl_c_that_python_could_only_ignore_still_stops_the_command_in_one_line(tmp_path):
    # deterministic form of a Ctrl-C landing in a finalizer while the command starts (Python hands it to
    # sys.unraisablehook): the command stops there, writes nothing and says one line
    between = """import clirkit.cli as _cli
class _Finalized:
    def __del__(self):
        raise KeyboardInterrupt
_build = _cli.build_parser
def _build_after_a_lost_ctrl_c(argv=None):
    _Finalized()
    return _build(argv)
_cli.build_parser = _build_after_a_lost_ctrl_c"""
    script = tmp_path / "clirkit"
    script.write_text(_CONSOLE_SCRIPT.format(between=between), encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("d1\tuna casa\n", encoding="utf-8")
    argv = [sys.executable, str(script), "index", str(tmp_path / "docs.tsv"), "-o", str(tmp_path / "ix.npz"), "-q"]
    done = subprocess.run([*argv, "--lang", "es"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (130, "imported\n", "clirkit: interrupted\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clirkit", "docs.tsv"]


def test_importing_clirkit_as_a_library_leaves_the_sigint_handler_alone():
    code = "import signal, clirkit, clirkit.cli\nprint(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "True\n"


def test_an_error_that_a_ctrl_c_turned_into_another_is_still_an_interrupt(monkeypatch, capsys):
    # numpy's compiled import turns a KeyboardInterrupt into "ImportError: PyCapsule_Import could not import"
    from clirkit import cli

    def interrupted_import(argv=None):
        try:
            cli._interrupt(2, None)
        except KeyboardInterrupt:
            raise ImportError('PyCapsule_Import could not import module "datetime"') from None

    monkeypatch.setattr(cli, "build_parser", interrupted_import)
    monkeypatch.setattr(cli, "_interrupted", False)
    assert main(["index", "--help"]) == 130
    assert capsys.readouterr().err == "clirkit: interrupted\n"
    monkeypatch.setattr(cli, "_interrupted", False)
    monkeypatch.setattr(cli, "build_parser", lambda argv=None: (_ for _ in ()).throw(ImportError("a real one")))
    with pytest.raises(ImportError, match="a real one"):
        main(["index", "--help"])


def test_an_output_in_a_missing_folder_is_refused_before_the_work(tmp_path, capsys, monkeypatch):
    from clirkit.cli import index as index_verb

    (tmp_path / "d.tsv").write_text("d1\tla luz\n", encoding="utf-8")
    monkeypatch.setattr(index_verb, "run", lambda args: pytest.fail("the verb ran"))
    assert main(["index", str(tmp_path / "d.tsv"), "-o", str(tmp_path / "nope" / "ix.npz"), "--lang", "es"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {tmp_path / 'nope' / 'ix.npz'}: the folder "
        f"{tmp_path / 'nope'} does not exist (create it, or write elsewhere)\n"
    )
