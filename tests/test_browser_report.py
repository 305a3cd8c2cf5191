"""A generated report in a real browser (headless Chromium driven by playwright): no console errors,
every image loaded with a non-zero size, and the answer sentence on the page."""
import os
import shutil

import pytest

from experiments import run_experiment
from reports import build_report

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser


def _browser_or_skip():
    if os.path.exists(CHROMIUM):
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    pytest.skip(f"{CHROMIUM} is not installed (make test installs it)")


def _answer(page):
    """The answer sentences as a reader sees them: the headline first, and the answer in full after a click on
    its fold (a report whose answer is a headline of its own shows it unfolded)."""
    fold = page.locator("details#every-sentence")
    if fold.count():
        assert page.locator("p.headline-sentence").first.is_visible()
        assert not page.locator("li.answer-sentence").first.is_visible()
        fold.locator("summary").click()
    sentences = page.locator("li.answer-sentence")
    assert sentences.first.is_visible()
    return sentences.all_inner_texts()


def test_report_renders_in_chromium(tmp_path):
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    res = run_experiment({"title": "Browser test", "question": "Which wake is best?", "game": "sen", "players": 3,
                          "games": 15, "seed": 4, "lineup": {"focus": "threshold", "field": "threshold"},
                          "sweep": {"focus.wake": [8, 11]}})
    run_dir = res.write(str(tmp_path / "runs"))
    page_path = build_report(run_dir)
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
            page.goto("file://" + os.path.abspath(page_path))
            page.wait_for_load_state("load")
            images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight,"
                                   " i.getBoundingClientRect().width])")
            answer = _answer(page)
            index = os.path.join(os.path.dirname(run_dir), "index.html")
            page.goto("file://" + index)
            page.wait_for_load_state("load")
            link = page.locator("a", has_text=os.path.basename(run_dir)).count()
        finally:
            browser.close()
    assert problems == []
    assert len(images) >= 5
    for done, w, h, shown in images:
        assert done and w > 0 and h > 0 and shown > 0
    assert answer == res.answer and answer[0].startswith("best wake: ")
    assert link == 1


def test_calibration_report_renders_in_chromium(tmp_path):
    """The Sensu sticks calibration (its own plots and the estimates table) at a tiny size."""
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    res = run_experiment(os.path.join(root, "experiments", "sensu_sticks_calibration.toml"), games=12)
    page_path = build_report(res.write(str(tmp_path / "runs")), index=False)
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.goto("file://" + os.path.abspath(page_path))
            page.wait_for_load_state("load")
            images = page.evaluate("Array.from(document.images).map(i => [i.alt, i.complete && i.naturalWidth > 0])")
            answer = _answer(page)
            tables = page.locator("h3").all_inner_texts()
        finally:
            browser.close()
    assert problems == []
    assert all(ok for _, ok in images) and {"Calibration criterion", "Levels"} <= {alt for alt, _ in images}
    assert answer == res.answer and "level scale plausible" in answer[0]
    assert "Estimates" in tables


def test_equilibrium_report_renders_in_chromium(tmp_path):
    """An equilibrium report (iterated best response and a 2-player meta-game) at a tiny size: the answer
    first, its own plots (curves, support, paths, payoffs) and the equilibrium table."""
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    res = run_experiment({"title": "Equilibrium browser test", "question": "Which wake is its own best response?",
                          "game": "sen", "players": 2, "games": 40, "seed": 5,
                          "lineup": {"focus": "threshold", "field": "threshold:wake=8"},
                          "search": {"focus.wake": {"min": 4, "max": 16, "step": 4}, "meta": [2], "bootstrap": 10},
                          "report": {"answer": "equilibrium"}})
    page_path = build_report(res.write(str(tmp_path / "runs")), index=False)
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.goto("file://" + os.path.abspath(page_path))
            page.wait_for_load_state("load")
            images = page.evaluate("Array.from(document.images).map(i => [i.alt, i.complete && i.naturalWidth > 0])")
            answer = _answer(page)
            tables = page.locator("h3").all_inner_texts()
            first = page.evaluate("document.querySelector('section').id")
        finally:
            browser.close()
    assert problems == []
    assert all(ok for _, ok in images)
    assert {"Best-response curves", "Equilibrium support", "Iteration paths", "Meta-game payoffs"} <= {a for a, _ in images}
    assert answer == res.answer and answer[0].startswith("symmetric equilibrium")
    assert {"Equilibria", "Iterations", "Races", "Meta-game"} <= set(tables)
    assert first == "question"
