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
