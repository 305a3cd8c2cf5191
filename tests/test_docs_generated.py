"""The generated blocks of the docs (rule options, strategies and their parameters) say what the code
says: regenerating them (``make docs``) changes nothing, and every game has its page with both blocks."""
import importlib.util
import os

from simcore.registry import game_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("gendocs", os.path.join(ROOT, "tools", "gendocs.py"))
gendocs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gendocs)


def test_every_game_has_a_page_with_its_generated_blocks():
    for game in game_names():
        path = os.path.join(ROOT, "docs", "games", f"{game}.md")
        text = open(path, encoding="utf-8").read()
        for kind in ("rules", "strategies"):
            assert f"<!-- generated: {kind} {game} -->" in text, f"{path}: no generated {kind} block"


def test_generated_blocks_match_the_code():
    stale = [os.path.relpath(p, ROOT) for p in gendocs.files()
             if gendocs.render(open(p, encoding="utf-8").read()) != open(p, encoding="utf-8").read()]
    assert not stale, f"out of date, run `make docs`: {', '.join(stale)}"


def test_a_changed_description_is_caught():
    """A block whose text differs from the code's descriptions is rewritten (the check can fail)."""
    text = "<!-- generated: rules sen -->\n| `penalty` | int | `4` | made up |\n<!-- end generated -->\n"
    new = gendocs.render(text)
    assert new != text and "`penalty` | int | `5`" in new


def test_the_repository_stands_alone():
    """No file sends readers to material a clone does not have (the rules and the contract live in docs/)."""
    import re
    import subprocess

    banned = re.compile("|".join(["CONTRACT" + r"\.md", "shared" + "/rules", r"\brules/[\w-]+" + r"\.(md|txt)\b",
                                  r"[\w-]+-rule" + r"book\.txt"]))
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:  # not a git checkout: walk the tree
        tracked = [os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(ROOT)
                   if ".venv" not in d and ".git" not in d for f in fs]
    hits = []
    for rel in tracked:
        if rel.endswith((".md", ".py", ".toml", ".txt", ".cfg")) or rel in ("Makefile",):
            path = os.path.join(ROOT, rel)
            if not os.path.exists(path):
                continue
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                if banned.search(line):
                    hits.append(f"{rel}:{n}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits)


def _anchors(path):
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    import re

    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out


def test_links_in_the_docs_resolve():
    import glob
    import re

    bad = []
    for path in [os.path.join(ROOT, "README.md")] + glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True):
        text = open(path, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            file, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(full):
                bad.append(f"{os.path.relpath(path, ROOT)}: {target}")
            elif anchor and full.endswith(".md") and anchor not in _anchors(full):
                bad.append(f"{os.path.relpath(path, ROOT)}: {target} (no such heading)")
    assert not bad, bad


def test_bench_writes_only_its_block(tmp_path):
    from bench.run import write_block

    page = tmp_path / "speed.md"
    page.write_text("# Speed\n\nintro\n\n<!-- bench: begin (written by make bench) -->\nold\n<!-- bench: end -->\n\ntail\n")
    write_block(str(page), "new table\n")
    assert page.read_text() == ("# Speed\n\nintro\n\n<!-- bench: begin (written by make bench) -->\nnew table\n"
                                "<!-- bench: end -->\n\ntail\n")
