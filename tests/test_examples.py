"""Every example in the docs (README.md, docs/**/*.md) and in the docstrings runs as written.

What counts as an example: a fenced ``python`` block (executed), a fenced ``toml`` block (a config is
loaded and run with 2 deals per cell; any other TOML must parse), every ``sensei ...`` line of a plain
fenced block (``bash``, ``sh``, ``console`` or none), every ``>>>`` session and ``::`` literal block of a docstring (Python is executed, TOML
parsed), and every ``Example: sensei ...`` line and ````sensei CMD ARG ...```` span of a docstring. Command lines
with placeholders (``GAME``, ``CONFIG``, ``[--games N]``) are synopses, not examples, and are skipped;
``--games`` (200 games for ``play``, 4 deals per cell for ``run``; ``games=`` and ``n_games=`` in Python)
is capped and ``--jobs`` / ``jobs=`` set to 1 so that the suite stays fast (the example is otherwise run
as written). Everything
runs in a scratch folder where ``experiments/`` and ``examples/`` are the project's and ``mine.py`` is
the strategy of ``strategies/base.py``'s docstring (which says to save it under that name).

A block the docs do not want run says so in the source, on the line before its fence:
``<!-- not run: REASON -->`` (``make demo``, a long run, an excerpt); it shows up here as a skipped
test with that reason, never silently. A plain block with a ``make`` line must carry that marker. A
block after ``<!-- save as: NAME -->`` is also written to NAME in the scratch folder, for the commands
that use it (``sensei run my_question.toml``). A block after ``<!-- output of the command above -->``
shows what the previous block's command prints: that command is run as written (keep it small) and
every line of the block must be a line of its output.
"""
import ast
import glob
import os
import re
import shlex
import textwrap
import tomllib

import pytest
from typer.testing import CliRunner

from experiments.cli import app

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                                                                        recursive=True))
PACKAGES = ["simcore", "strategies", "experiments", "reports"]
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]+\b|\[")
RUN_FOLDER = re.compile(r"runs/[\w.-]+-\d{8}-\d{6}\b")
GAMES_CAP = {"play": 200, "run": 4}
cli = CliRunner()


# ----------------------------------------------------------------------------------- collecting
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$")
SAVE_AS = re.compile(r"<!--\s*save as:\s*([\w.-]+)\s*-->\s*$")
SKIPPED: list[tuple[str, str]] = []  # (where, reason) of every block marked not run
SAVED: dict[str, str] = {}  # file name -> text of every block marked "save as" (the commands use them)
UNMARKED: list[str] = []  # make lines in blocks without a not-run marker (an error)
OUTPUT = re.compile(r"<!--\s*output of the command above\s*-->\s*$")
OUTPUTS: list[tuple[str, str, str]] = []  # (command, printed lines, where): output the docs show, checked


def _md_blocks(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    last_command = None
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        where = f"{path}:{text[:m.start()].count(chr(10)) + 1}"
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if OUTPUT.search(before):
            assert last_command, f"{where}: output of which command?"
            OUTPUTS.append((last_command, m.group(2), where))
            continue
        commands = [c for c in map(_command, m.group(2).splitlines()) if c]
        last_command = commands[-1] if commands else None
        marker = NOT_RUN.search(before)
        if marker:
            SKIPPED.append((where, marker.group(1) or "marked not run"))
            continue
        save = SAVE_AS.search(before)
        if save:
            SAVED[save.group(1)] = m.group(2)
        yield m.group(1), m.group(2), where


def _docstrings():
    for pkg in PACKAGES:
        for path in sorted(glob.glob(os.path.join(ROOT, pkg, "**", "*.py"), recursive=True)):
            tree = ast.parse(open(path, encoding="utf-8").read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(node, clean=True)
                    if doc:
                        yield doc, f"{os.path.relpath(path, ROOT)}:{getattr(node, 'lineno', 1)}"


def _literal_blocks(doc):
    """reST literal blocks: the indented lines after a paragraph ending in ``::``."""
    lines = doc.splitlines()
    indent = lambda ln: len(ln) - len(ln.lstrip())  # noqa: E731
    i = 0
    while i < len(lines):
        if lines[i].rstrip().endswith("::"):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            block = []
            while j < len(lines) and (not lines[j].strip() or indent(lines[j]) > indent(lines[i])):
                block.append(lines[j])
                j += 1
            if block:
                yield textwrap.dedent("\n".join(block)).strip() + "\n"
            i = j
        else:
            i += 1


def _sessions(doc):
    code = [ln.strip()[4:] for ln in doc.splitlines() if ln.strip().startswith((">>> ", "... "))]
    if code:
        yield "\n".join(code) + "\n"


def _command(line):
    line = line.strip()
    line = re.split(r"\s{2,}#|\s#\s", line)[0].strip()
    return line if line.startswith("sensei ") else None


def collect():
    python, toml, commands = [], [], []
    for path in DOCS:
        for lang, text, where in _md_blocks(path):
            if lang == "python":
                python.append((text, where))
            elif lang == "toml":
                toml.append((text, where))
            elif lang in ("", "bash", "sh", "shell", "console"):
                commands += [(c, where) for c in map(_command, text.splitlines()) if c]
                UNMARKED.extend(f"{where}: {ln.strip()}" for ln in text.splitlines() if ln.strip().startswith("make "))
    for doc, where in _docstrings():
        for block in _literal_blocks(doc):
            try:
                compile(block, where, "exec")
                python.append((block, where))
            except SyntaxError:
                toml.append((block, where))
        python += [(code, where) for code in _sessions(doc)]
        for m in re.finditer(r"^\s*Example:\s*(sensei .*)$", doc, re.M):
            commands.append((m.group(1).strip(), where))
        for m in re.finditer(r"``(sensei [^`]+)``", doc):  # a command, not a mention (``sensei play --json``)
            words = m.group(1).split()
            if len(words) > 2 and not words[2].startswith("-"):
                commands.append((m.group(1).strip(), where))
    runnable = [(c, w) for c, w in commands if not PLACEHOLDER.search(c.replace("sensei ", "", 1))
                or RUN_FOLDER.search(c)]
    # commands that are the same at the sizes the test plays them are run once
    by_capped: dict[str, list[tuple[str, str]]] = {}
    for c, w in runnable:
        key = re.sub(r" (--jobs|-j) 1\b", "", " ".join(_capped(shlex.split(c)[1:])))
        by_capped.setdefault(key, []).append((c, w))
    runnable = [(same[0][0], " ".join(w for _, w in same)) for same in by_capped.values()]
    return _once(python), _once(toml), _once(runnable)


def _once(examples):
    """Each distinct example once (the two READMEs share sections), named by every place it is in."""
    where: dict[str, list[str]] = {}
    for text, w in examples:
        where.setdefault(text, []).append(w)
    return [(text, " ".join(ws)) for text, ws in where.items()]



# ----------------------------------------------------------------------------------- running
@pytest.fixture(scope="module")
def scratch():
    """A working folder with the project's experiments/ and examples/ and the docstring's mine.py.

    Its path is the same from run to run (one per checkout and test worker): a strategy file's compiled
    lineup is cached under its path, so a new folder each run would compile the examples' strategies
    again. (Per worker: the folder is made afresh, so two workers that both run this module, as under
    ``make test`` when a worker takes tests from the other's queue, must not share it.)"""
    import hashlib
    import pathlib
    import shutil
    import tempfile

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    d = pathlib.Path(tempfile.gettempdir()) / f"sensei-examples-{hashlib.sha1(ROOT.encode()).hexdigest()[:12]}-{worker}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    os.symlink(os.path.join(ROOT, "experiments"), d / "experiments")
    os.symlink(os.path.join(ROOT, "examples"), d / "examples")
    import strategies.base
    (block,) = [b for b in _literal_blocks(strategies.base.__doc__) if "class " in b]
    (d / "mine.py").write_text(block)
    for name, text in SAVED.items():
        (d / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(d)
    yield d
    os.chdir(cwd)
    from strategies.registry import register_files
    register_files([])


def _capped(args):
    out = list(args)
    cap = GAMES_CAP.get(out[0]) if out else None
    for i, a in enumerate(out[:-1]):
        if a in ("--jobs", "-j") and out[i + 1].isdigit():
            out[i + 1] = "1"  # results do not depend on it; starting workers would only slow the suite
        if a in ("--games", "-n") and cap is not None and out[i + 1].isdigit():
            out[i + 1] = str(min(int(out[i + 1]), cap))
    if out and out[0] == "play" and cap is not None and not {"--games", "-n"} & set(out):
        out += ["--games", str(cap)]  # the default of 1,000 games would only slow the suite
    return out


PYTHON, TOML, COMMANDS = collect()


def test_there_are_examples_to_run():
    assert len(PYTHON) >= 3 and len(TOML) >= 2 and len(COMMANDS) >= 8, (len(PYTHON), len(TOML), len(COMMANDS))
    assert len(SKIPPED) < len(PYTHON) + len(TOML) + len(COMMANDS), "most examples must run"


@pytest.mark.parametrize("command, shown, where", OUTPUTS, ids=[w for _, _, w in OUTPUTS])
def test_output_the_docs_show_is_what_the_command_prints(scratch, command, shown, where):
    args = shlex.split(command)[1:]
    r = cli.invoke(app, args + (["--no-progress"] if args[0] in ("play", "run") else []))  # commands with a bar
    assert r.exit_code == 0, (where, r.output)
    printed = {" ".join(line.split()) for line in r.output.splitlines()}
    missing = [line for line in shown.splitlines() if line.strip() and " ".join(line.split()) not in printed]
    assert not missing, f"{where}: not printed by {command!r}: {missing}"


def test_long_commands_are_marked_not_run():
    """A block with a make line (make test, make demo, ...) says so: <!-- not run: REASON --> before it."""
    assert not UNMARKED, UNMARKED


@pytest.mark.parametrize("where, reason", SKIPPED, ids=[w for w, _ in SKIPPED])
def test_examples_marked_not_run(where, reason):
    pytest.skip(f"not run ({reason})")


def test_every_command_has_a_help_example():
    """``sensei COMMAND --help`` shows a runnable example for every command."""
    import typer.main
    group = typer.main.get_command(app)
    for name, cmd in group.commands.items():
        r = cli.invoke(app, [name, "--help"])
        assert r.exit_code == 0, (name, r.output)
        assert re.search(r"^\s*Example:\s*sensei " + re.escape(name) + r"\b", cmd.help or "", re.M), \
            f"sensei {name} --help shows no example"


def _capped_python(code):
    """The Python example at small sizes: ``games=`` (deals per cell) at most 10, ``n_games=`` at most 2,000,
    ``jobs=`` 1 (no figure depends on it)."""
    code = re.sub(r"\bgames=([\d_]+)", lambda m: f"games={min(int(m.group(1)), 10)}", code)
    code = re.sub(r"\bn_games=([\d_]+)", lambda m: f"n_games={min(int(m.group(1)), 2000)}", code)
    return re.sub(r"\bjobs=\d+", "jobs=1", code)


@pytest.mark.parametrize("code, where", PYTHON, ids=[w for _, w in PYTHON])
def test_python_examples_run(scratch, code, where):
    from strategies.base import Strategy

    import hashlib

    from simcore.lineup import load_source_module

    # run as a file of the scratch folder (a module like a user's strategy file), so that the compiled
    # lineup of a strategy it defines is cached between runs
    code = _capped_python(code)
    name = "example_" + hashlib.sha1(code.encode()).hexdigest()[:12]
    path = scratch / f"{name}.py"
    path.write_text(f"# {where}\n{code}")
    namespace = vars(load_source_module(str(path), name))
    # a strategy an example defines also plays (its decisions are what the example is about)
    for obj in list(namespace.values()):
        if isinstance(obj, type) and issubclass(obj, Strategy) and obj.__module__ == name and obj.game:
            from simcore.runner import simulate
            from simcore.registry import get_game
            players = get_game(obj.game).default_players
            res = simulate(obj.game, [obj()] * players, n_games=200)
            assert res.n == 200


@pytest.mark.parametrize("text, where", TOML, ids=[w for _, w in TOML])
def test_toml_examples_are_valid(scratch, text, where):
    raw = tomllib.loads(text)
    if {"title", "question", "game"} <= set(raw):
        from experiments.experiment import run_experiment
        res = run_experiment(raw, games=2)
        assert res.answer, where
    entry = raw.get("project", {}).get("entry-points", {}).get("sensei.strategies")
    if entry is not None:
        from simcore.registry import game_names
        for name, value in entry.items():
            game, _, strategy = name.partition(".")
            assert game in game_names() and strategy and re.fullmatch(r"[\w.]+:\w+", value), (name, value)


@pytest.mark.parametrize("command, where", sorted(COMMANDS, key=lambda c: "report" in c[0].split()[1:2]),
                         ids=[w for _, w in sorted(COMMANDS, key=lambda c: "report" in c[0].split()[1:2])])
def test_command_examples_run(scratch, command, where):
    if RUN_FOLDER.search(command):  # a run folder of the example: the one a run example made
        made = sorted(glob.glob(os.path.join(scratch, "runs", "*", "manifest.json")))
        if not made:
            r = cli.invoke(app, ["run", "experiments/sen_variants.toml", "--games", "2", "--no-progress"])
            assert r.exit_code == 0, r.output
            made = sorted(glob.glob(os.path.join(scratch, "runs", "*", "manifest.json")))
        command = RUN_FOLDER.sub(os.path.relpath(os.path.dirname(made[-1]), scratch), command)
    args = _capped(shlex.split(command)[1:])
    r = cli.invoke(app, args)
    assert r.exit_code == 0, (where, command, r.output)
