"""numba's compiled-code cache is keyed by a fingerprint of every engine and strategy source, so that a
change in one file (say rng.py) can never leave stale machine code in the kernels of another."""
import os

import numba

from simcore import compiled


def test_fingerprint_follows_every_source_file(tmp_path):
    a, b = tmp_path / "simcore", tmp_path / "strategies"
    (a / "games").mkdir(parents=True)
    b.mkdir()
    (a / "rng.py").write_text("import numba\nX = 1\n")
    (a / "games" / "sen.py").write_text("import numba\nY = 2\n")
    (b / "sen.py").write_text("import numba\nZ = 3\n")
    (b / "plain.py").write_text("Z = 3\n")             # no compiled code can come from it
    (a / "notes.txt").write_text("not a source")
    dirs = (str(a), str(b))
    first = compiled.source_fingerprint(dirs)
    assert first == compiled.source_fingerprint(dirs)
    (a / "notes.txt").write_text("changed, still not a source")
    assert compiled.source_fingerprint(dirs) == first
    (b / "plain.py").write_text("Z = 4\n")
    assert compiled.source_fingerprint(dirs) == first
    (a / "rng.py").write_text("import numba\nX = 10\n")        # a called module changes
    second = compiled.source_fingerprint(dirs)
    assert second != first
    (a / "games" / "sen.py").rename(a / "games" / "sen2.py")  # a renamed file counts too
    assert compiled.source_fingerprint(dirs) not in (first, second)


def test_the_cache_folder_is_the_fingerprinted_one():
    if os.environ.get("NUMBA_CACHE_DIR"):
        assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"]
    else:
        fingerprint = compiled.source_fingerprint()
        assert numba.config.CACHE_DIR.endswith(os.path.join("", fingerprint))
        if compiled._writable(compiled.cache_folder(fingerprint)):
            assert numba.config.CACHE_DIR == compiled.cache_folder(fingerprint)
    assert len(compiled.SOURCE_DIRS) == 2 and all(os.path.isdir(d) for d in compiled.SOURCE_DIRS)
