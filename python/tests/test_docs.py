"""docs/python.md's walk-through is a doctest: its outputs are the package's real outputs."""

import doctest
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_walk_through(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # r.html("audit.html") writes here
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = "\n".join(blocks)  # one session: later blocks use earlier names
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/python.md", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.summarize(verbose=False).attempted > 30
    assert not failures, "".join(failures)
    assert (tmp_path / "audit.html").exists()
