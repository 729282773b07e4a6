"""What `pip install batchdoku` brings along."""

import importlib.metadata
import re


def test_the_package_requires_what_pysparks_map_in_arrow_checks_for():
    # pyspark's mapInArrow refuses to run without pyarrow>=18 and
    # pandas>=2.2 (it checks both, though it hands over Arrow only), so
    # `pip install batchdoku pyspark` must bring them.
    required = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower(): r for r in importlib.metadata.requires("batchdoku") or [] if "extra ==" not in r}
    assert {"numpy", "pyarrow", "pandas"} <= set(required), required
    assert ">=18" in required["pyarrow"] and ">=2.2" in required["pandas"], required


def _installed_command() -> str:
    """The `batchdoku` command the package installed beside this Python."""
    import pathlib
    import shutil
    import sys

    here = pathlib.Path(sys.executable).parent
    found = shutil.which("batchdoku", path=str(here))
    assert found, f"no batchdoku command in {here}: the package's [project.scripts] entry is missing"
    return found


def test_the_package_installs_the_command_line_and_it_is_the_binarys(cli, sample_lines, tmp_path):
    # The same subcommands, the same output through a real pipe, the same
    # exit codes as the cargo-built binary: one command line, in both.
    import subprocess

    command = _installed_command()
    text = ("\n".join(sample_lines[:200]) + "\nnot a puzzle\n").encode()
    runs = [
        subprocess.run([exe, "solve", "-q", "--format", "csv", "-"], input=text, capture_output=True)
        for exe in (command, cli)
    ]
    assert runs[0].returncode == runs[1].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.decode().count("\n") == 202  # header + 201 records
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(sample_lines[:50]) + "\n")
    answers = tmp_path / "a.txt"
    subprocess.run([command, "solve", "-q", str(puzzles), "-o", str(answers)], check=True)
    lines = answers.read_text().splitlines()
    assert len(lines) == 50
    ok = subprocess.run([command, "verify", str(puzzles), str(answers)], capture_output=True, text=True)
    assert ok.returncode == 0 and "50 passed, 0 failed" in ok.stdout, ok.stdout + ok.stderr
    lines[3] = lines[4]
    answers.write_text("\n".join(lines) + "\n")
    wrong = subprocess.run([command, "verify", str(puzzles), str(answers)], capture_output=True, text=True)
    assert wrong.returncode == 1 and "record 4 (" in wrong.stdout, wrong.stdout
    usage = subprocess.run([command, "no-such-command"], capture_output=True, text=True)
    assert usage.returncode == 2 and "unrecognized subcommand" in usage.stderr
    version = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout == subprocess.run([cli, "--version"], capture_output=True, text=True).stdout
