"""The examples of the README's "From Python" section and of docs/python.md, run as doctests: every `>>>`
line's output is what the package prints."""

import doctest
import pathlib
import re

import pytest

from conftest import need

ROOT = pathlib.Path(__file__).resolve().parents[2]


def blocks(path):
    text = path.read_text()
    return [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" in b]


@pytest.mark.parametrize("name", ["README.md", "docs/python.md"])
def test_examples(name):
    need("chess")
    found = blocks(ROOT / name)
    assert found, f"{name} has no Python examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    # One doctest of all the blocks, so that later examples see the names earlier ones made.
    test = parser.get_doctest("\n".join(found), {}, name, str(ROOT / name), 0)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} differ (see above)"
